// Shadow state over a byte-addressed memory: disjoint segments [lo, hi) each holding a value,
// split where an access begins or ends and merged back when neighbours become equal, so a
// memory touched by a few large buffers stays a few segments. The checkers keep one per memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

namespace aicore::sim {

template <typename V>
class IntervalMap {
 public:
  // Calls fn(lo, hi, value&) for each piece of [lo, hi) in address order; bytes no access touched
  // yet come as default-constructed values (and exist from then on). Neighbours left equal are
  // merged afterwards.
  template <typename Fn>
  void Visit(uint64_t lo, uint64_t hi, Fn&& fn) {
    if (lo >= hi) return;
    // One search finds the first segment at or after lo (a segment spanning lo is split there);
    // the walk splits the last one at hi and fills gaps.
    auto it = segments_.upper_bound(lo);
    if (it != segments_.begin()) {
      auto prev = std::prev(it);
      if (prev->first == lo) {
        it = prev;
      } else if (prev->second.hi > lo) {
        it = segments_.emplace_hint(it, lo, Segment{prev->second.hi, prev->second.value});
        prev->second.hi = lo;
      }
    }
    uint64_t at = lo;
    while (at < hi) {
      if (it == segments_.end() || it->first > at) {
        uint64_t end = it == segments_.end() ? hi : std::min(hi, it->first);
        it = segments_.emplace_hint(it, at, Segment{end, V{}});
      } else if (it->second.hi > hi) {
        segments_.emplace_hint(std::next(it), hi, Segment{it->second.hi, it->second.value});
        it->second.hi = hi;
      }
      fn(it->first, it->second.hi, it->second.value);
      at = it->second.hi;
      ++it;
    }
    Coalesce(lo, hi);
  }

  // Calls fn(lo, hi, const value&) for each existing piece overlapping [lo, hi), without
  // creating or splitting any.
  template <typename Fn>
  void ForEach(uint64_t lo, uint64_t hi, Fn&& fn) const {
    auto it = segments_.upper_bound(lo);
    if (it != segments_.begin()) --it;
    for (; it != segments_.end() && it->first < hi; ++it) {
      if (it->second.hi <= lo) continue;
      fn(std::max(lo, it->first), std::min(hi, it->second.hi), it->second.value);
    }
  }

  // Calls fn(value&) on every segment (a block boundary forgets per-block state), then merges.
  template <typename Fn>
  void UpdateAll(Fn&& fn) {
    for (auto& [lo, seg] : segments_) fn(seg.value);
    if (!segments_.empty()) Coalesce(segments_.begin()->first, UINT64_MAX);
  }

  void Clear() { segments_.clear(); }
  size_t size() const { return segments_.size(); }

 private:
  struct Segment {
    uint64_t hi;
    V value;
  };

  // Merges equal, touching neighbours from the segment before `lo` to the one after `hi`.
  void Coalesce(uint64_t lo, uint64_t hi) {
    auto it = segments_.lower_bound(lo);
    if (it != segments_.begin()) --it;
    while (it != segments_.end() && it->first <= hi) {
      auto next = std::next(it);
      if (next == segments_.end()) break;
      if (it->second.hi == next->first && it->second.value == next->second.value) {
        it->second.hi = next->second.hi;
        segments_.erase(next);
      } else {
        it = next;
      }
    }
  }

  std::map<uint64_t, Segment> segments_;
};

}  // namespace aicore::sim
