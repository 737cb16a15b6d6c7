// Routing, counters, GM watches and clocks of cross-core synchronisation (see cross_core_sync.h).
#include "sim/sync/cross_core_sync.h"

#include <algorithm>

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

std::string TypeText(CoreType t) { return t == CoreType::kAic ? "cube core" : "vector core"; }

}  // namespace

CrossCoreSync::CrossCoreSync(std::vector<CorePlace> places, std::array<uint32_t, 2> blocks,
                             uint32_t ids, uint32_t max_count, bool track_clocks)
    : places_(std::move(places)),
      blocks_(blocks),
      ids_(ids),
      max_count_(max_count),
      hosts_(places_.size(), nullptr),
      pending_(places_.size() * ids),
      waited_(places_.size() * ids, 0),
      clocks_(track_clocks ? static_cast<uint32_t>(places_.size()) : 0) {
  for (auto& a : arrivals_) a.resize(places_.size() * ids);
  for (uint32_t c = 0; c < places_.size(); ++c) {
    const CorePlace& p = places_[c];
    if (p.group >= groups_.size()) groups_.resize(p.group + 1);
    groups_[p.group][static_cast<int>(p.type)].push_back(c);
    of_type_[static_cast<int>(p.type)].push_back(c);
  }
}

const std::vector<uint32_t>& CrossCoreSync::GroupMembers(uint32_t core, CoreType type) const {
  return groups_[places_[core].group][static_cast<int>(type)];
}

void CrossCoreSync::Fire(uint32_t core, uint32_t id, uint32_t mode, const Instr* setter,
                         std::vector<Delivery>* out, std::string* fault) {
  SIM_CHECK(core < places_.size() && id < ids_ && mode < kModes,
            "cross-core set of flag " + std::to_string(id) + " mode " + std::to_string(mode) +
                " on core " + std::to_string(core) + " outside the launch's flag file");
  CoreType type = places_[core].type;
  const std::vector<uint32_t>& aivs = GroupMembers(core, CoreType::kAiv);
  const std::vector<uint32_t>& aics = GroupMembers(core, CoreType::kAic);
  switch (mode) {
    case 0: {
      const std::vector<uint32_t>& all = LaunchMembers(type);
      Arrive(0, core, id, setter, all, all, out);
      return;
    }
    case 1:
      if (type != CoreType::kAiv) {
        *fault =
            "mode 1 synchronises the vector cores of one AI Core; a cube core cannot set it. "
            "Fix: use mode 2 between the cube core and its vector cores";
        return;
      }
      Arrive(1, core, id, setter, aivs, aivs, out);
      return;
    default:
      if (aics.empty() || aivs.empty()) {
        *fault =
            "mode 2 synchronises the cube core of an AI Core with its vector cores, and this "
            "kernel's groups have no " +
            std::string(aics.empty() ? "cube" : "vector") +
            " core. Fix: launch it as MIX_AIC_1_1 or MIX_AIC_1_2, or use mode 0";
        return;
      }
      if (type == CoreType::kAic) {
        ClockSnapshot clock = clocks_.Release(core);
        for (uint32_t v : aivs) out->push_back({v, id, 2, core, 0, setter, clock});
        return;
      }
      Arrive(2, core, id, setter, aivs, aics, out);
      return;
  }
}

void CrossCoreSync::Arrive(uint32_t mode, uint32_t core, uint32_t id, const Instr* setter,
                           const std::vector<uint32_t>& members,
                           const std::vector<uint32_t>& targets, std::vector<Delivery>* out) {
  std::vector<std::deque<Arrival>>& arrivals = arrivals_[mode];
  arrivals[Index(core, id)].push_back({setter, clocks_.Release(core)});
  // Mode 0 spans the launch: blocks beyond the cores (waves) never all arrive at once.
  if (mode == 0 && blocks_[static_cast<int>(places_[core].type)] > members.size()) return;
  for (uint32_t m : members) {
    if (arrivals[Index(m, id)].empty()) return;
  }
  ClockSnapshot clock;
  for (uint32_t m : members) {
    std::deque<Arrival>& a = arrivals[Index(m, id)];
    CoreClocks::Join(&clock, a.front().clock);
    a.pop_front();
  }
  for (uint32_t t : targets) out->push_back({t, id, mode, core, 0, setter, clock});
}

uint64_t CrossCoreSync::Park(Delivery d) {
  if (free_parked_.empty()) {
    parked_.push_back(std::move(d));
    return parked_.size() - 1;
  }
  uint64_t h = free_parked_.back();
  free_parked_.pop_back();
  parked_[h] = std::move(d);
  return h;
}

bool CrossCoreSync::Deliver(uint64_t parked, Delivery* landed, const Instr** oldest) {
  SIM_CHECK(parked < parked_.size(),
            "cross-core set " + std::to_string(parked) + " was never parked");
  *landed = std::move(parked_[parked]);
  free_parked_.push_back(parked);
  std::deque<Pending>& p = pending_[Index(landed->core, landed->id)];
  if (p.size() >= max_count_) {
    if (WrapsOnSibling(*landed)) {
      // The 4-bit counter wraps: the sixteenth set brings it back to 0 (docs/cross_core.md).
      p.clear();
      return true;
    }
    *oldest = p.front().setter;
    return false;
  }
  p.push_back({landed->setter, landed->mode, landed->from, landed->fired, landed->clock});
  return true;
}

bool CrossCoreSync::WrapsOnSibling(const Delivery& d) const {
  // A cube core's mode-2 notifications reach both vector cores of the group; the one that never
  // waits that id (the sibling of the Matmul client it answers) only counts them. Ascend C's
  // client drains them modulo 16 (ascendc-semantics.md 7.5): that counter wraps, not faults.
  const std::deque<Pending>& p = pending_[Index(d.core, d.id)];
  return d.mode == 2 && places_[d.core].type == CoreType::kAiv &&
         waited_[Index(d.core, d.id)] == 0 &&
         std::all_of(p.begin(), p.end(), [](const Pending& x) { return x.mode == 2; });
}

bool CrossCoreSync::TryWait(uint32_t core, uint32_t id, uint32_t* from, uint64_t* fired) {
  std::deque<Pending>& p = pending_[Index(core, id)];
  waited_[Index(core, id)] = 1;
  if (p.empty()) return false;
  if (from != nullptr) *from = p.front().from;
  if (fired != nullptr) *fired = p.front().fired;
  clocks_.Acquire(core, p.front().clock);
  p.pop_front();
  return true;
}

std::string CrossCoreSync::ArrivalText(uint32_t mode, uint32_t id,
                                       const std::vector<uint32_t>& members) const {
  std::vector<uint32_t> have, lack;
  for (uint32_t m : members) {
    (arrivals_[mode][Index(m, id)].empty() ? lack : have).push_back(m);
  }
  auto list = [](const std::vector<uint32_t>& cores) {
    std::string s;
    for (size_t i = 0; i < cores.size() && i < 8; ++i) {
      s += (i > 0 ? ", " : "") + std::to_string(cores[i]);
    }
    if (cores.size() > 8) s += " and " + std::to_string(cores.size() - 8) + " more";
    return s;
  };
  std::string s = "mode " + std::to_string(mode) + ": " + std::to_string(have.size()) + " of " +
                  std::to_string(members.size()) + " have set it";
  if (!have.empty()) s += " (cores " + list(have) + ")";
  if (!lack.empty())
    s += ", core" + std::string(lack.size() > 1 ? "s " : " ") + list(lack) +
         (lack.size() > 1 ? " have" : " has") + " not";
  return s;
}

std::string CrossCoreSync::WhyNotSet(uint32_t core, uint32_t id) const {
  CoreType type = places_[core].type;
  std::vector<std::string> rounds;
  auto any = [&](uint32_t mode, const std::vector<uint32_t>& members) {
    for (uint32_t m : members) {
      if (!arrivals_[mode][Index(m, id)].empty()) return true;
    }
    return false;
  };
  const std::vector<uint32_t>& all = LaunchMembers(type);
  if (any(0, all)) rounds.push_back(ArrivalText(0, id, all) + WavesText(type));
  const std::vector<uint32_t>& aivs = GroupMembers(core, CoreType::kAiv);
  if (type == CoreType::kAiv && any(1, aivs)) rounds.push_back(ArrivalText(1, id, aivs));
  if (type == CoreType::kAic && any(2, aivs)) {
    rounds.push_back(ArrivalText(2, id, aivs) +
                     " (mode 2 sets its cube core once every vector "
                     "core of the group has)");
  }
  if (rounds.empty()) {
    return "no core has set flag " + std::to_string(id) + " for this " + TypeText(type) + " (a " +
           TypeText(type == CoreType::kAic ? CoreType::kAiv : CoreType::kAic) +
           "'s mode-2 set, or a mode-0/1 round of its own type, would)";
  }
  std::string s = "the sets of flag " + std::to_string(id) + " are incomplete: ";
  for (size_t i = 0; i < rounds.size(); ++i) s += (i > 0 ? "; " : "") + rounds[i];
  return s;
}

std::string CrossCoreSync::WavesText(CoreType type) const {
  uint32_t cores = static_cast<uint32_t>(LaunchMembers(type).size());
  uint32_t blocks = blocks_[static_cast<int>(type)];
  if (cores == 0 || blocks <= cores) return "";
  uint32_t waves = (blocks + cores - 1) / cores;
  return "; the launch runs " + std::to_string(blocks) + " blocks on " + std::to_string(cores) +
         " " + TypeText(type) + "s in " + std::to_string(waves) +
         " waves, so a mode-0 round (sync_all) waits for blocks of later waves, which start only "
         "when a core of the first wave finishes";
}

std::vector<CrossCoreSync::Leftover> CrossCoreSync::Leftovers() const {
  std::vector<Leftover> out;
  for (uint32_t c = 0; c < places_.size(); ++c) {
    for (uint32_t id = 0; id < ids_; ++id) {
      const std::deque<Pending>& p = pending_[Index(c, id)];
      if (p.empty()) continue;
      bool by_design =
          places_[c].type == CoreType::kAiv && waited_[Index(c, id)] == 0 &&
          std::all_of(p.begin(), p.end(), [](const Pending& x) { return x.mode == 2; });
      if (by_design) continue;
      out.push_back({c, id, static_cast<uint32_t>(p.size()), p.front().setter});
    }
  }
  return out;
}

void CrossCoreSync::WatchGm(uint32_t core, uint64_t lo, uint64_t hi) {
  for (Watch& w : watches_) {
    if (w.core == core) {
      w.lo = lo;
      w.hi = hi;
      return;
    }
  }
  watches_.push_back({core, lo, hi});
}

void CrossCoreSync::OnGmWrite(uint64_t lo, uint64_t hi, Cycle now) {
  for (size_t i = 0; i < watches_.size();) {
    const Watch& w = watches_[i];
    if (w.lo < hi && lo < w.hi) {
      uint32_t core = w.core;
      watches_[i] = watches_.back();
      watches_.pop_back();
      if (hosts_[core] != nullptr) hosts_[core]->WakeScalar(now);
      continue;
    }
    ++i;
  }
}

}  // namespace aicore::sim
