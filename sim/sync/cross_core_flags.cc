// Counters of a group's cross-core flags (see cross_core_flags.h).
#include "sim/sync/cross_core_flags.h"

#include <string>

#include "sim/core/invariant.h"

namespace aicore::sim {

CrossCoreFlags::CrossCoreFlags(uint32_t cores, uint32_t ids, uint32_t max_count)
    : cores_(cores), ids_(ids), max_count_(max_count), counts_(cores * ids, 0) {
  // A counter is a byte.
  SIM_CHECK(max_count <= 255,
            "cross-core flag counters hold at most 255 sets, not " + std::to_string(max_count));
}

uint32_t CrossCoreFlags::Index(uint32_t core, uint32_t id) const {
  SIM_CHECK(core < cores_ && id < ids_, "cross-core flag " + std::to_string(id) + " of core " +
                                            std::to_string(core) + " is outside a group of " +
                                            std::to_string(cores_) + " cores with " +
                                            std::to_string(ids_) + " ids");
  return core * ids_ + id;
}

bool CrossCoreFlags::Set(uint32_t core, uint32_t id) {
  uint8_t& count = counts_[Index(core, id)];
  if (count >= max_count_) return false;
  ++count;
  return true;
}

bool CrossCoreFlags::TryWait(uint32_t core, uint32_t id) {
  uint8_t& count = counts_[Index(core, id)];
  if (count == 0) return false;
  --count;
  return true;
}

}  // namespace aicore::sim
