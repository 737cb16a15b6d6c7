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
    VisitFrom(Seek(segments_.end(), lo), lo, hi, fn);
  }

  // Visit of `count` pieces of `chunk` bytes, `pitch` bytes apart from `lo`, in turn (a strided
  // copy's rows), each cut at `limit`: the same calls and the same map as one Visit per piece,
  // but each piece is found by stepping on from the last one instead of a search from the root.
  template <typename Fn>
  void VisitStrided(uint64_t lo, uint64_t chunk, uint64_t pitch, uint64_t count, uint64_t limit,
                    Fn&& fn) {
    Strided<true>(lo, chunk, pitch, count, limit, fn);
  }
  // VisitStrided for an fn that changes (almost) every piece it sees, as the race checker's
  // stamps do: the pieces are split first and fn runs on them in place, without the copy and
  // comparison that spare a split where nothing changes. The same calls and the same map.
  template <typename Fn>
  void UpdateStrided(uint64_t lo, uint64_t chunk, uint64_t pitch, uint64_t count, uint64_t limit,
                     Fn&& fn) {
    Strided<false>(lo, chunk, pitch, count, limit, fn);
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

  using Iter = typename std::map<uint64_t, Segment>::iterator;
  static constexpr int kMaxSteps = 8;  // beyond this many segments, a search is cheaper

  // The segment holding `lo`, or the first after it. `hint` (end(): none) is a segment at or
  // before `lo` to step on from.
  Iter Seek(Iter hint, uint64_t lo) {
    if (hint != segments_.end() && hint->first <= lo) {
      for (int step = 0; step < kMaxSteps; ++step) {
        if (hint->second.hi > lo) return hint;
        ++hint;
        if (hint == segments_.end() || hint->first > lo) return hint;
      }
    }
    auto it = segments_.upper_bound(lo);
    if (it != segments_.begin() && std::prev(it)->second.hi > lo) --it;
    return it;
  }

  // kCopyFirst: VisitFrom's copy and comparison (else fn runs in place on the split piece).
  template <bool kCopyFirst, typename Fn>
  void Strided(uint64_t lo, uint64_t chunk, uint64_t pitch, uint64_t count, uint64_t limit,
               Fn& fn) {
    auto hint = segments_.end();
    for (uint64_t c = 0; c < count; ++c) {
      uint64_t a = lo + c * pitch;
      uint64_t b = std::min(limit, a + chunk);
      if (a >= b) continue;
      hint = VisitFrom<kCopyFirst>(Seek(hint, a), a, b, fn);
    }
  }

  // Splits `it` (which holds `at`) so that a segment is exactly [at, min(end, its hi)); returns it.
  Iter SplitAt(Iter it, uint64_t at, uint64_t end) {
    if (it->first < at) {  // split off the part before the piece
      auto piece = segments_.emplace_hint(std::next(it), at, it->second);
      it->second.hi = at;
      it = piece;
    }
    if (it->second.hi > end) {  // and the part after it
      segments_.emplace_hint(std::next(it), end, Segment{it->second.hi, it->second.value});
      it->second.hi = end;
    }
    return it;
  }

  // Visit's walk from `it` (Seek(lo)). With kCopyFirst, fn works on a copy of each existing
  // piece, and a segment is split only where the copy came back different: re-reading bytes in a
  // loop leaves the map as it was, without a split and a merge per access. Returns a segment at
  // or before hi that still exists, to seek the next piece from.
  template <bool kCopyFirst = true, typename Fn>
  Iter VisitFrom(Iter it, uint64_t lo, uint64_t hi, Fn& fn) {
    bool changed = false;
    uint64_t at = lo;
    Iter first = segments_.end();  // the segment the walk began in (it survives the walk)
    Iter last = it;
    while (at < hi) {
      if (it == segments_.end() || it->first > at) {
        uint64_t end = it == segments_.end() ? hi : std::min(hi, it->first);
        V value{};
        fn(at, end, value);
        // Bytes read or written for the first time right after the last ones (a stream of
        // tiles) usually just extend the segment before: no node to make and merge away.
        Iter prev = it == segments_.begin() ? segments_.end() : std::prev(it);
        if (prev != segments_.end() && prev->second.hi == at && prev->second.value == value) {
          prev->second.hi = end;
          it = prev;
        } else {
          it = segments_.emplace_hint(it, at, Segment{end, std::move(value)});
        }
        if (first == segments_.end()) first = it;
        changed = true;
      } else {
        if (first == segments_.end()) first = it;
        uint64_t end = std::min(hi, it->second.hi);
        if constexpr (kCopyFirst) {
          V value = it->second.value;
          fn(at, end, value);
          if (!(value == it->second.value)) {
            it = SplitAt(it, at, end);
            it->second.value = std::move(value);
            changed = true;
          }
        } else {
          it = SplitAt(it, at, end);
          fn(at, end, it->second.value);
          changed = true;
        }
      }
      at = it->second.hi < hi ? it->second.hi : hi;
      last = it;
      ++it;
    }
    if (!changed) return last;
    // Merging starts where Coalesce(lo, hi) would, found from the walk instead of a search.
    if (first->first >= lo && first != segments_.begin()) --first;
    return CoalesceFrom(first, hi);
  }

  // Merges equal, touching neighbours from the segment before `lo` to the one after `hi`.
  // Returns the last segment it looked at (it exists, and starts at or before the one after hi).
  Iter Coalesce(uint64_t lo, uint64_t hi) {
    auto it = segments_.lower_bound(lo);
    if (it != segments_.begin()) --it;
    return CoalesceFrom(it, hi);
  }
  Iter CoalesceFrom(Iter it, uint64_t hi) {
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
    return it;
  }

  std::map<uint64_t, Segment> segments_;
};

}  // namespace aicore::sim
