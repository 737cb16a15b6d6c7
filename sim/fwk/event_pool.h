// TPipe's event id pool (ascendc-semantics.md 7.1): per HardEvent an occupancy mask over the ids
// 0..flag_ids_per_event-1, allocated lowest-free-first. Queues, alloc/fetch/release_event_id and
// auto_sync's inserted pairs draw from the same masks, so none of them hands out an id another
// still holds.
#pragma once

#include <array>
#include <cstdint>

#include "sim/sync/hard_event.h"

namespace aicore::sim {

class EventPool {
 public:
  explicit EventPool(uint32_t ids_per_event);

  uint32_t ids_per_event() const { return ids_; }
  // TPipe init/reset: the library's reservations are forgotten. Ids of auto_sync pairs whose
  // wait has not passed yet stay reserved: their flags are still in flight.
  void ResetLibrary();
  // Everything, for a new block.
  void ResetAll();

  // AllocEventID: reserves and returns the lowest free id, -1 when every id is taken.
  int Alloc(uint32_t event);
  // FetchEventID: the lowest free id without reserving it, -1 when none is free.
  int Fetch(uint32_t event) const;
  // ReleaseEventID: returns false when `id` is out of range (releasing a free id is harmless,
  // as in the library, which only clears the bit).
  bool Release(uint32_t event, uint32_t id);
  bool Reserved(uint32_t event, uint32_t id) const;
  // Bits of the ids in use (library or auto_sync).
  uint32_t InUse(uint32_t event) const { return library_[event] | inserted_[event]; }

  // auto_sync: the lowest id that is free and not in `busy` (ids whose flags are in flight for
  // other reasons), reserved until ReleaseInserted; -1 when none.
  int AllocInserted(uint32_t event, uint32_t busy);
  void ReleaseInserted(uint32_t event, uint32_t id);

 private:
  int Lowest(uint32_t taken) const;

  uint32_t ids_;
  uint32_t all_;  // mask of the valid ids
  std::array<uint32_t, kNumHardEvents> library_{};
  std::array<uint32_t, kNumHardEvents> inserted_{};
};

}  // namespace aicore::sim
