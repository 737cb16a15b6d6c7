// Lowest-free-id allocation over per-event occupancy masks (see event_pool.h).
#include "sim/fwk/event_pool.h"

namespace aicore::sim {

EventPool::EventPool(uint32_t ids_per_event)
    : ids_(ids_per_event > 32 ? 32 : ids_per_event),
      all_(ids_ >= 32 ? 0xffffffffu : ((1u << ids_) - 1)) {}

void EventPool::ResetLibrary() { library_.fill(0); }

void EventPool::ResetAll() {
  library_.fill(0);
  inserted_.fill(0);
}

int EventPool::Lowest(uint32_t taken) const {
  uint32_t free = ~taken & all_;
  return free == 0 ? -1 : __builtin_ctz(free);
}

int EventPool::Alloc(uint32_t event) {
  int id = Lowest(InUse(event));
  if (id >= 0) library_[event] |= 1u << id;
  return id;
}

int EventPool::Fetch(uint32_t event) const { return Lowest(InUse(event)); }

bool EventPool::Release(uint32_t event, uint32_t id) {
  if (id >= ids_) return false;
  library_[event] &= ~(1u << id);
  return true;
}

bool EventPool::Reserved(uint32_t event, uint32_t id) const {
  return id < ids_ && (library_[event] >> id & 1u) != 0;
}

int EventPool::AllocInserted(uint32_t event, uint32_t busy) {
  int id = Lowest(InUse(event) | busy);
  if (id >= 0) inserted_[event] |= 1u << id;
  return id;
}

void EventPool::ReleaseInserted(uint32_t event, uint32_t id) {
  if (id < ids_) inserted_[event] &= ~(1u << id);
}

}  // namespace aicore::sim
