// Binary min-heap over packed event keys with a fully deterministic order (see event_queue.h).
// Sifting moves a hole instead of swapping, and one key comparison is two integer compares.
#include "sim/core/event_queue.h"

#include <string>
#include <tuple>

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

constexpr uint64_t Mask(int bits) { return (uint64_t{1} << bits) - 1; }

}  // namespace

bool EventQueue::Before(const Event& a, const Event& b) {
  return std::tie(a.cycle, a.kind, a.core, a.unit, a.sequence) <
         std::tie(b.cycle, b.kind, b.core, b.unit, b.sequence);
}

void EventQueue::Push(Cycle cycle, EventKind kind, uint32_t core, uint8_t unit, uint64_t payload) {
  SIM_CHECK(
      core <= Mask(kCoreBits) && unit <= Mask(kUnitBits) && next_sequence_ <= Mask(kSequenceBits),
      "event key field out of range (core " + std::to_string(core) + ", unit " +
          std::to_string(unit) + ")");
  Entry e{cycle.value(), PrefixOf(kind, core, unit) | next_sequence_++, payload};
  size_t hole = heap_.size();
  heap_.push_back(e);
  while (hole > 0) {
    size_t parent = (hole - 1) / 2;
    if (!(e < heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = e;
}

Event EventQueue::Pop() {
  const Entry top = heap_.front();
  const Entry last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n > 0) {
    size_t hole = 0;
    for (;;) {
      size_t child = 2 * hole + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1] < heap_[child]) ++child;
      if (!(heap_[child] < last)) break;
      heap_[hole] = heap_[child];
      hole = child;
    }
    heap_[hole] = last;
  }
  Event e;
  e.cycle = Cycle(top.cycle);
  e.kind = static_cast<EventKind>(top.order >> kKindShift);
  e.core = static_cast<uint32_t>(top.order >> kCoreShift & Mask(kCoreBits));
  e.unit = static_cast<uint8_t>(top.order >> kUnitShift & Mask(kUnitBits));
  e.sequence = top.order & Mask(kSequenceBits);
  e.payload = top.payload;
  return e;
}

}  // namespace aicore::sim
