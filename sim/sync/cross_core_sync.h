// Cross-core synchronisation of one launch (FFTS on C220; hardware-910b.md 3.4,
// ascendc-semantics.md 7.2, asc-api.md 10.7): every core has `ids` flag ids, each a counter of sets
// not yet waited for (at most max_count). A cross_core_set_flag that fires on core s routes by its
// mode:
//   mode 0: an arrival of s among all cores of its type in the launch; once every one of them
//           has arrived, each gets one set;
//   mode 1: an arrival among the vector cores of s's group; once all have arrived, each gets one;
//   mode 2: from the cube core, one set on each vector core of its group; from a vector core, an
//           arrival among the group's vector cores, and once all have arrived, one set on the cube
//           core.
// A wait takes one set from its own core's counter or blocks while it is zero. A launch whose
// blocks run in waves can never complete a mode-0 round: the later waves start only when cores of
// the first finish (the chip hangs the same way, hardware-910b.md 3.4).
//
// It also holds the GM waits (gm_wait) blocked on bytes other cores will write, and the cores'
// vector clocks (core_clocks.h) that the sets and waits carry for the GM checker.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sim/core/cycle.h"
#include "sim/isa/core_type.h"
#include "sim/isa/program.h"
#include "sim/sync/core_clocks.h"

namespace aicore::sim {

// Where a core sits in the launch.
struct CorePlace {
  CoreType type = CoreType::kAiv;
  uint32_t group = 0;
};

// What a cross-core sync needs from a core: to resume its scalar unit after a set arrived or a
// watched GM write landed.
class CrossCoreHost {
 public:
  virtual ~CrossCoreHost() = default;
  virtual void WakeScalar(Cycle now) = 0;
};

class CrossCoreSync {
 public:
  static constexpr uint32_t kModes = 3;

  // `blocks` per core type: how many blocks of the launch run on cores of that type (more than
  // the cores: waves). `track_clocks`: keep the vector clocks (checks on).
  CrossCoreSync(std::vector<CorePlace> places, std::array<uint32_t, 2> blocks, uint32_t ids,
                uint32_t max_count, bool track_clocks);

  uint32_t ids() const { return ids_; }
  uint32_t cores() const { return static_cast<uint32_t>(places_.size()); }
  const CorePlace& place(uint32_t core) const { return places_[core]; }
  void Attach(uint32_t core, CrossCoreHost* host) { hosts_[core] = host; }
  CrossCoreHost* host(uint32_t core) const { return hosts_[core]; }
  CoreClocks& clocks() { return clocks_; }

  // One set on `core` of `id` that becomes visible later (the flag latency).
  struct Delivery {
    uint32_t core = 0;
    uint32_t id = 0;
    uint32_t mode = 0;
    uint32_t from = 0;   // the core whose set completed it
    uint64_t fired = 0;  // the cycle that set fired
    const Instr* setter = nullptr;
    ClockSnapshot clock;
  };
  // The set of `id` by `core` with `mode` fires. Empty `fault`: the deliveries it completes (none
  // while a round waits for other arrivals) are appended to `out`; else why the chip cannot route
  // it (mode 2 without a cube core in the group ...).
  void Fire(uint32_t core, uint32_t id, uint32_t mode, const Instr* setter,
            std::vector<Delivery>* out, std::string* fault);
  // Holds a delivery until it lands; the handle goes into its kCrossFlag event.
  uint64_t Park(Delivery d);
  // The parked delivery lands (copied to `landed`): its core's counter rises. False when the
  // counter already holds max_count (the set is lost); `oldest` then names the oldest pending
  // set of that counter.
  bool Deliver(uint64_t parked, Delivery* landed, const Instr** oldest);
  // A wait on `core` for `id`: consumes one pending set (acquiring what it carried; `from` and
  // `fired` say whose set and when) and returns true, or returns false while none is pending.
  bool TryWait(uint32_t core, uint32_t id, uint32_t* from = nullptr, uint64_t* fired = nullptr);
  uint32_t Count(uint32_t core, uint32_t id) const {
    return static_cast<uint32_t>(pending_[Index(core, id)].size());
  }

  // Why `core`'s counter of `id` stays zero, for deadlock reports: the rounds that involve it
  // and who has arrived ("mode 2: vector core 2 has set flag 3, vector core 3 has not").
  std::string WhyNotSet(uint32_t core, uint32_t id) const;
  // The waves text when a mode-0 round cannot complete (empty otherwise).
  std::string WavesText(CoreType type) const;

  // Sets left pending at the end of the launch, each with its counter's first setter, except
  // mode-2 sets on a vector core that never waited for that id (a protocol where only one
  // vector core of the group answers its cube core leaves its sibling's sets by design).
  struct Leftover {
    uint32_t core = 0;
    uint32_t id = 0;
    uint32_t count = 0;
    const Instr* setter = nullptr;
  };
  std::vector<Leftover> Leftovers() const;

  // GM waits: `core` is blocked until a write touches [lo, hi).
  void WatchGm(uint32_t core, uint64_t lo, uint64_t hi);
  bool watching_gm() const { return !watches_.empty(); }
  // A GM write of [lo, hi) landed: wakes (and forgets) the watches it touches.
  void OnGmWrite(uint64_t lo, uint64_t hi, Cycle now);

 private:
  // A mode-2 set onto a vector core that never waits `id` and is full: its counter wraps.
  bool WrapsOnSibling(const Delivery& d) const;
  struct Pending {
    const Instr* setter = nullptr;
    uint32_t mode = 0;
    uint32_t from = 0;
    uint64_t fired = 0;
    ClockSnapshot clock;
  };
  struct Arrival {
    const Instr* setter = nullptr;
    ClockSnapshot clock;
  };
  struct Watch {
    uint32_t core;
    uint64_t lo, hi;
  };

  size_t Index(uint32_t core, uint32_t id) const { return static_cast<size_t>(core) * ids_ + id; }
  // Arrives `core` for (mode, id) among `members`; when each member has arrived, takes one
  // arrival of each and delivers to `targets`.
  void Arrive(uint32_t mode, uint32_t core, uint32_t id, const Instr* setter,
              const std::vector<uint32_t>& members, const std::vector<uint32_t>& targets,
              std::vector<Delivery>* out);
  // Members of `type` in `core`'s group, and in the launch.
  const std::vector<uint32_t>& GroupMembers(uint32_t core, CoreType type) const;
  const std::vector<uint32_t>& LaunchMembers(CoreType type) const {
    return of_type_[static_cast<int>(type)];
  }
  std::string ArrivalText(uint32_t mode, uint32_t id, const std::vector<uint32_t>& members) const;

  std::vector<CorePlace> places_;
  std::array<uint32_t, 2> blocks_;
  uint32_t ids_;
  uint32_t max_count_;
  std::vector<CrossCoreHost*> hosts_;
  std::array<std::vector<uint32_t>, 2> of_type_;                   // cores by type
  std::vector<std::array<std::vector<uint32_t>, 2>> groups_;       // [group][type] -> cores
  std::vector<std::deque<Pending>> pending_;                       // [core * ids + id]
  std::array<std::vector<std::deque<Arrival>>, kModes> arrivals_;  // [mode][core * ids + id]
  std::vector<uint8_t> waited_;                                    // [core * ids + id]
  std::vector<Watch> watches_;
  std::vector<Delivery> parked_;
  std::vector<uint64_t> free_parked_;
  CoreClocks clocks_;
};

}  // namespace aicore::sim
