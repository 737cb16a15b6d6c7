// A byte range one instruction reads or writes in one memory, as the issue stage computed it:
// the unit the dependency tracker (auto_sync, race checks) and the use-after-free check reason
// about. Strided copies are described by their hull.
#pragma once

#include <cstdint>

#include "sim/isa/program.h"

namespace aicore::sim {

struct MemRange {
  MemSpace space = MemSpace::kInvalid;
  uint64_t lo = 0, hi = 0;  // [lo, hi): UB offsets, or GM device addresses
  bool write = false;
};

}  // namespace aicore::sim
