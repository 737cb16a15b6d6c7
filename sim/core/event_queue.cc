// Binary min-heap over Event with a fully deterministic order (see event_queue.h).
#include "sim/core/event_queue.h"

#include <algorithm>
#include <tuple>

namespace aicore::sim {
namespace {

// std::push_heap builds a max-heap; "later" compares greater so the earliest event is on top.
struct Later {
  bool operator()(const Event& a, const Event& b) const { return EventQueue::Before(b, a); }
};

}  // namespace

bool EventQueue::Before(const Event& a, const Event& b) {
  return std::tie(a.cycle, a.kind, a.core, a.unit, a.sequence) <
         std::tie(b.cycle, b.kind, b.core, b.unit, b.sequence);
}

void EventQueue::Push(Cycle cycle, EventKind kind, uint32_t core, uint8_t unit, uint64_t payload) {
  heap_.push_back(Event{cycle, kind, core, unit, next_sequence_++, payload});
  std::push_heap(heap_.begin(), heap_.end(), Later());
}

Event EventQueue::Pop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later());
  Event e = heap_.back();
  heap_.pop_back();
  return e;
}

}  // namespace aicore::sim
