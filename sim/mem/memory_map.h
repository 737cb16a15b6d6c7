// The local memories of one core, owned in one place and found by memory space: UB on a vector
// core; L1, L0A, L0B, L0C, BT and FB on a cube core. Built from the core spec's memory rows, so a
// core type with other memories is a different spec, not different code.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/isa/program.h"
#include "sim/mem/local_memory.h"

namespace aicore::sim {

// One local memory of a core spec: its space, capacity and operand start alignment.
struct MemorySpec {
  MemSpace space = MemSpace::kInvalid;
  uint64_t bytes = 0;
  uint32_t alignment = 0;
};

class MemoryMap {
 public:
  explicit MemoryMap(const std::vector<MemorySpec>& memories);

  // The memory of `space`, or nullptr if this core has none (GM is not a local memory).
  LocalMemory* Find(MemSpace space) { return memories_[Index(space)].get(); }
  const LocalMemory* Find(MemSpace space) const { return memories_[Index(space)].get(); }

 private:
  static constexpr int kSpaces = 9;  // MemSpace values
  static int Index(MemSpace s) {
    int i = static_cast<int>(s);
    return i < kSpaces ? i : 0;
  }
  std::array<std::unique_ptr<LocalMemory>, kSpaces> memories_;
};

}  // namespace aicore::sim
