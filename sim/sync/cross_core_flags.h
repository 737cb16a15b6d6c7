// The cross-core flag file of one core group (FFTS on C220, hardware-910b.md 3.4): every core of
// the group has `ids` flag ids, each a counter of sets not yet waited for, up to `max_count`. A
// set adds one to the counter of each core it targets; a wait takes one from its own core's
// counter, or blocks while it is zero. Which cores a set targets (modes 0, 1, 2) and the
// instructions that set and wait belong to the mixed-kernel issue; nothing uses this file yet.
#pragma once

#include <cstdint>
#include <vector>

namespace aicore::sim {

class CrossCoreFlags {
 public:
  // `cores` are the group's cores, numbered by their place in the group.
  CrossCoreFlags(uint32_t cores, uint32_t ids, uint32_t max_count);

  uint32_t cores() const { return cores_; }
  uint32_t ids() const { return ids_; }
  uint32_t max_count() const { return max_count_; }

  // Sets of flag `id` on `core` not yet waited for.
  uint32_t Count(uint32_t core, uint32_t id) const { return counts_[Index(core, id)]; }
  // One more set of `id` on `core`. False when the counter already holds max_count: the chip
  // hangs or faults there, so the set is not counted and the caller reports it.
  bool Set(uint32_t core, uint32_t id);
  // A wait on `core` for `id`: consumes one set and returns true, or returns false (nothing
  // changes) while none is pending, so the waiting core stays blocked.
  bool TryWait(uint32_t core, uint32_t id);

 private:
  uint32_t Index(uint32_t core, uint32_t id) const;

  uint32_t cores_;
  uint32_t ids_;
  uint32_t max_count_;
  std::vector<uint8_t> counts_;  // [core * ids + id]
};

}  // namespace aicore::sim
