// The intra-core flag file: one bit per (HardEvent, event id). set_flag sets a bit once its
// latency has passed; wait_flag consumes it. What a set does to a bit still set is the config's
// flag_set_waits_for_clear: it waits (holding its pipe) until a wait clears the bit, or it is lost
// (FLAG_OVERFLOW). In-flight counts say which sets have started and not landed yet.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/sync/hard_event.h"

namespace aicore::sim {

class FlagFile {
 public:
  // `set_waits_for_clear`: the config's flag_set_waits_for_clear.
  FlagFile(uint32_t ids_per_event, bool set_waits_for_clear)
      : ids_per_event_(ids_per_event),
        set_waits_for_clear_(set_waits_for_clear),
        bits_(kNumHardEvents * ids_per_event, 0),
        in_flight_(kNumHardEvents * ids_per_event, 0) {}

  uint32_t ids_per_event() const { return ids_per_event_; }
  uint32_t Index(uint32_t event, uint32_t id) const { return event * ids_per_event_ + id; }
  uint32_t EventOf(uint32_t flag) const { return flag / ids_per_event_; }
  uint32_t IdOf(uint32_t flag) const { return flag % ids_per_event_; }

  bool IsSet(uint32_t flag) const { return bits_[flag] != 0; }
  // Returns false if the flag was already set (the set is lost: FLAG_OVERFLOW).
  bool Set(uint32_t flag) {
    bool was_set = bits_[flag] != 0;
    bits_[flag] = 1;
    return !was_set;
  }
  void Clear(uint32_t flag) { bits_[flag] = 0; }
  // A set of `flag` has started (its pipe passed it) / has landed (Set follows).
  void Started(uint32_t flag) { ++in_flight_[flag]; }
  void Landed(uint32_t flag) { --in_flight_[flag]; }
  // Set, or a set of it on its way: a further set would reach a set bit.
  bool Occupied(uint32_t flag) const { return bits_[flag] != 0 || in_flight_[flag] != 0; }
  // Whether a set of `flag` must wait for a wait_flag to clear it before it may start.
  bool SetMustWait(uint32_t flag) const { return set_waits_for_clear_ && Occupied(flag); }
  bool set_waits_for_clear() const { return set_waits_for_clear_; }
  // Flags currently set, in index order.
  std::vector<uint32_t> SetFlags() const {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < bits_.size(); ++i) {
      if (bits_[i] != 0) out.push_back(i);
    }
    return out;
  }

 private:
  uint32_t ids_per_event_;
  bool set_waits_for_clear_;
  std::vector<uint8_t> bits_;
  std::vector<uint32_t> in_flight_;
};

}  // namespace aicore::sim
