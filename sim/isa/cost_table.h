// Vector instruction costs resolved from the config's (op, dtype) rows into an array indexed by
// [opcode][dtype], once per launch, so the pipe never searches strings on the hot path.
#pragma once

#include <array>
#include <string>

#include "sim/core/config.h"
#include "sim/core/status.h"
#include "sim/isa/dtype.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {

struct VectorCost {
  bool present = false;
  double per_call_cycles = 0;    // destination written this long after the last repeat issued
  double cycles_per_repeat = 0;  // pipe occupancy per repeat
};

class CostTable {
 public:
  // Fails with InvalidArgument if a vector opcode/dtype the model supports has no row (an exact
  // dtype row wins over a "*" row), or a row names an unknown op or dtype.
  static StatusOr<CostTable> Build(const SocConfig& config);

  const VectorCost& Vector(Opcode op, DType t) const {
    return vector_[static_cast<int>(op)][static_cast<int>(t)];
  }

 private:
  std::array<std::array<VectorCost, kNumDTypes>, kNumOpcodes> vector_{};
};

// Cost-row op names the config may contain: the cost rows the instruction table names, plus
// "copy", reserved for the vector copy instruction.
bool IsKnownVectorCostOp(const std::string& op);

}  // namespace aicore::sim
