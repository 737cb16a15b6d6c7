// StateRuns (see state_runs.h).
#include "sim/mem/state_runs.h"

#include <algorithm>
#include <iterator>

namespace aicore::sim {

void StateRuns::Reset(uint64_t size, uint8_t state) {
  size_ = size;
  runs_.clear();
  if (size > 0) runs_.emplace(0, Run{size, state});
}

StateRuns::Map::const_iterator StateRuns::Holding(uint64_t at) const {
  return std::prev(runs_.upper_bound(at));  // runs cover [0, size_): one starts at or before
}

void StateRuns::Assign(uint64_t lo, uint64_t hi, uint8_t state) {
  hi = std::min(hi, size_);
  if (lo >= hi) return;
  auto first = std::prev(runs_.upper_bound(lo));
  if (first->second.hi >= hi && first->second.state == state) return;  // already so
  // Split the run holding lo at lo, and the run holding hi - 1 at hi.
  if (first->first < lo) {
    Run tail = first->second;
    first->second.hi = lo;
    first = runs_.emplace_hint(std::next(first), lo, tail);
  }
  auto last = std::prev(runs_.upper_bound(hi - 1));
  if (last->second.hi > hi) {
    runs_.emplace_hint(std::next(last), hi, last->second);
    last->second.hi = hi;
  }
  // Replace the runs inside [lo, hi) by one, then merge it with equal neighbours.
  auto after = runs_.erase(first, runs_.upper_bound(hi - 1));
  auto run = runs_.emplace_hint(after, lo, Run{hi, state});
  if (after != runs_.end() && after->second.state == state) {
    run->second.hi = after->second.hi;
    runs_.erase(after);
  }
  if (run != runs_.begin()) {
    auto before = std::prev(run);
    if (before->second.state == state) {
      before->second.hi = run->second.hi;
      runs_.erase(run);
    }
  }
}

bool StateRuns::All(uint64_t lo, uint64_t hi, uint8_t state) const {
  hi = std::min(hi, size_);
  for (auto it = lo < hi ? Holding(lo) : runs_.end(); it != runs_.end() && it->first < hi; ++it) {
    if (it->second.state != state) return false;
  }
  return true;
}

bool StateRuns::Any(uint64_t lo, uint64_t hi, uint8_t state) const {
  hi = std::min(hi, size_);
  for (auto it = lo < hi ? Holding(lo) : runs_.end(); it != runs_.end() && it->first < hi; ++it) {
    if (it->second.state == state) return true;
  }
  return false;
}

}  // namespace aicore::sim
