// The global event heap of a launch: every start, end, flag and scalar wake-up of every core goes
// through one min-heap so that simulated time only jumps from event to event and ties are broken
// the same way on every host (cycle, phase, core, unit, sequence).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/cycle.h"

namespace aicore::sim {

// What an event does. The numeric order is the phase order inside one cycle: results written at
// cycle N (kEnd) and flags that become visible at N are seen by instructions starting at N.
enum class EventKind : uint8_t {
  kEnd = 0,          // an instruction finishes: perform its writes
  kFlagVisible = 1,  // a set_flag becomes visible to its destination pipe
  kCrossFlag = 2,    // a cross-core set reaches this core's counter (payload: the parked set)
  kStart = 3,        // a pipe may be able to start its head instruction
  kScalar = 4,       // the scalar unit resumes walking the program
};

struct Event {
  Cycle cycle;
  EventKind kind = EventKind::kStart;
  uint32_t core = 0;
  uint8_t unit = 0;       // pipe index (PipeId) or 0 for the scalar unit
  uint64_t sequence = 0;  // assigned by the queue: insertion order breaks the last ties
  uint64_t payload = 0;   // kind-specific (in-flight slot, packed flag ...)
};

class EventQueue {
 public:
  void Push(Cycle cycle, EventKind kind, uint32_t core, uint8_t unit, uint64_t payload);
  // Precondition: !empty().
  Event Pop();
  bool empty() const { return heap_.empty(); }
  // True if an event pushed now with this key would be the next one popped: nothing queued
  // comes before it. A queued event with the same key is older, so it comes first.
  bool NextWouldBe(Cycle cycle, EventKind kind, uint32_t core, uint8_t unit) const {
    if (heap_.empty()) return true;
    const Entry& top = heap_.front();
    if (top.cycle != cycle.value()) return top.cycle > cycle.value();
    return top.order >> kUnitShift > PrefixOf(kind, core, unit) >> kUnitShift;
  }
  size_t size() const { return heap_.size(); }
  void Clear() { heap_.clear(); }

  // True if `a` must be processed before `b`.
  static bool Before(const Event& a, const Event& b);

  // The order's fields packed below the cycle, most significant first, so that one comparison
  // of (cycle, order) decides: kind, core, unit, then the insertion sequence.
  static constexpr int kSequenceBits = 40;
  static constexpr int kUnitBits = 4;
  static constexpr int kCoreBits = 17;
  static constexpr int kKindBits = 3;
  static constexpr int kUnitShift = kSequenceBits;
  static constexpr int kCoreShift = kUnitShift + kUnitBits;
  static constexpr int kKindShift = kCoreShift + kCoreBits;
  static_assert(kKindShift + kKindBits <= 64, "the order fields fit one word");

  // The order word of a key without its sequence.
  static constexpr uint64_t PrefixOf(EventKind kind, uint32_t core, uint8_t unit) {
    return static_cast<uint64_t>(kind) << kKindShift | uint64_t{core} << kCoreShift |
           uint64_t{unit} << kUnitShift;
  }

 private:
  struct Entry {
    uint64_t cycle;
    uint64_t order;  // kind | core | unit | sequence
    uint64_t payload;
    bool operator<(const Entry& o) const {
      return cycle != o.cycle ? cycle < o.cycle : order < o.order;
    }
  };
  std::vector<Entry> heap_;  // a binary min-heap
  uint64_t next_sequence_ = 0;
};

}  // namespace aicore::sim
