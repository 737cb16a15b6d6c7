// Vector clocks of a launch's cores: what each core knows of every other core's progress through
// cross-core synchronisation. A core's epoch advances when it releases (a cross-core set fires);
// a core acquires what a release carried when its wait consumes that set, or what a GM writer
// knew when a GM wait passes on its bytes. The GM checker orders two accesses of different cores
// by these clocks: an access of core w at epoch e happens before everything core c does once c
// knows w's epoch e. Kept only while checks run (empty otherwise: every call is a no-op).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace aicore::sim {

using ClockSnapshot = std::vector<uint32_t>;

class CoreClocks {
 public:
  // `cores` = 0: disabled.
  explicit CoreClocks(uint32_t cores) : n_(cores), vc_(static_cast<size_t>(cores) * cores, 0) {
    for (uint32_t c = 0; c < n_; ++c) vc_[Index(c, c)] = 1;
  }

  bool enabled() const { return n_ != 0; }
  uint32_t Epoch(uint32_t core) const { return enabled() ? vc_[Index(core, core)] : 0; }
  // Whether `self` knows `other` reached `epoch` (its accesses up to there happen before).
  bool Knows(uint32_t self, uint32_t other, uint32_t epoch) const {
    return enabled() && vc_[Index(self, other)] >= epoch;
  }
  // What `core` knows now, carried by a set; its later accesses are a new epoch.
  ClockSnapshot Release(uint32_t core) {
    if (!enabled()) return {};
    ClockSnapshot s(vc_.begin() + Index(core, 0), vc_.begin() + Index(core, 0) + n_);
    ++vc_[Index(core, core)];
    return s;
  }
  void Acquire(uint32_t core, const ClockSnapshot& s) {
    if (!enabled() || s.empty()) return;
    for (uint32_t o = 0; o < n_; ++o) vc_[Index(core, o)] = std::max(vc_[Index(core, o)], s[o]);
  }
  // `core` learns what `from` knows now (a GM wait on bytes `from` wrote).
  void AcquireCurrent(uint32_t core, uint32_t from) {
    if (!enabled() || core == from) return;
    for (uint32_t o = 0; o < n_; ++o) {
      vc_[Index(core, o)] = std::max(vc_[Index(core, o)], vc_[Index(from, o)]);
    }
  }
  static void Join(ClockSnapshot* into, const ClockSnapshot& s) {
    if (into->empty()) {
      *into = s;
      return;
    }
    for (size_t o = 0; o < s.size(); ++o) (*into)[o] = std::max((*into)[o], s[o]);
  }

 private:
  size_t Index(uint32_t self, uint32_t other) const {
    return static_cast<size_t>(self) * n_ + other;
  }

  uint32_t n_;
  std::vector<uint32_t> vc_;  // [self * n + other]
};

}  // namespace aicore::sim
