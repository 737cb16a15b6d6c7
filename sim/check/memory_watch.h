// The UB watch registers check_local_memory_ia arms (asc-api.md 4.4; docs/checkers.md): four per
// core, each a block range (start, end] in 32-byte units and the kinds of access it traps. An
// access of a trapped kind that touches a watched block is the chip's core exception: a kernel
// fault at the accessing instruction's line.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "sim/isa/pipe_id.h"
#include "sim/mem/mem_range.h"

namespace aicore::sim {

class MemoryWatch {
 public:
  // Applies one CHECK_LOCAL_MEMORY word (proto/kernel.proto StoreConfigOp for its bits).
  void Apply(uint64_t word);
  bool armed() const { return armed_ != 0; }

  // The first trapped access among `ranges` of an instruction on `pipe`: a text naming the
  // access, the watched range and the register, or empty when none traps.
  std::string Check(PipeId pipe, const MemRange* ranges, int num_ranges) const;

 private:
  struct Register {
    uint64_t lo = 0, hi = 0;  // watched UB bytes [lo, hi)
    uint32_t kinds = 0;       // bit per access kind (kScalarRead ...)
  };
  std::array<Register, 4> registers_{};
  uint32_t armed_ = 0;  // bit per enabled register
};

}  // namespace aicore::sim
