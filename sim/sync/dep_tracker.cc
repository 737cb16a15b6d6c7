// auto_sync's unordered-access records (see dep_tracker.h).
#include "sim/sync/dep_tracker.h"

#include <algorithm>

namespace aicore::sim {
namespace {

constexpr int kS = PipeIndex(PipeId::kS);

bool Conflicts(const MemRange& a, const MemRange& b) {
  return (a.write || b.write) && a.space == b.space && a.lo < b.hi && b.lo < a.hi;
}

}  // namespace

DepTracker::DepTracker(uint32_t pipes, uint32_t max_records)
    : pipes_(pipes | 1u << kS), max_records_(std::max<uint32_t>(max_records, 2)) {}

void DepTracker::Reset() {
  for (auto& per_pipe : records_) {
    for (auto& d : per_pipe) d.clear();
  }
  count_.fill(0);
  newest_.fill(0);
}

uint32_t DepTracker::Unordered(const HappensBefore& order, PipeId pipe, const MemRange* ranges,
                               int n, Conflict* first) const {
  HappensBefore::Clock known = order.Known(pipe);
  uint32_t mask = 0;
  for (int q = 0; q < kNumPipes; ++q) {
    if (count_[q] == 0 || newest_[q] <= known[q]) continue;  // all of it already known
    for (int i = 0; i < n && (mask >> q & 1u) == 0; ++i) {
      // A pipe writes its special registers in instruction order, and orders an interlocked
      // range (MemRange::pipe_ordered) itself: no barrier needed.
      if (q == PipeIndex(pipe) && (ranges[i].space == MemSpace::kSpr || ranges[i].pipe_ordered)) {
        continue;
      }
      const auto& records = records_[q][static_cast<int>(ranges[i].space)];
      // Newest first: only accesses after what `pipe` already knows can be unordered.
      for (auto it = records.rbegin(); it != records.rend() && it->seq > known[q]; ++it) {
        if (!Conflicts(it->range, ranges[i])) continue;
        if (first != nullptr && mask == 0) {
          *first = Conflict{static_cast<PipeId>(q), it->range, ranges[i], it->instr};
        }
        mask |= 1u << q;
        break;
      }
    }
  }
  return mask;
}

void DepTracker::OnAccess(PipeId pipe, uint64_t seq, const MemRange* ranges, int n,
                          const Instr* instr) {
  int p = PipeIndex(pipe);
  for (int i = 0; i < n; ++i) {
    if (ranges[i].lo >= ranges[i].hi) continue;
    auto& records = records_[p][static_cast<int>(ranges[i].space)];
    records.push_back(Record{seq, ranges[i], instr});
    ++count_[p];
    newest_[p] = std::max(newest_[p], seq);
    if (records.size() > max_records_) {
      // Fold the oldest into the next: one range covering both, ordered only when the newer is
      // (prefix order), so nothing is ever missed.
      Record oldest = records.front();
      records.pop_front();
      --count_[p];
      Record& next = records.front();
      next.range.lo = std::min(next.range.lo, oldest.range.lo);
      next.range.hi = std::max(next.range.hi, oldest.range.hi);
      next.range.write = next.range.write || oldest.range.write;
    }
  }
}

void DepTracker::Prune(const HappensBefore& order) {
  for (int q = 0; q < kNumPipes; ++q) {
    if ((pipes_ >> q & 1u) == 0 || count_[q] == 0) continue;
    // Ordered before the next instruction of every pipe = ordered before anything to come.
    // The scalar unit issues no memory accesses yet, so only the pipes that do count (a scalar
    // GetValue/SetValue would add S here).
    uint64_t everywhere = UINT64_MAX;
    const HappensBefore::Clock& s = order.clock(PipeId::kS);
    for (int x = 0; x < kNumPipes; ++x) {
      if (x == kS || (pipes_ >> x & 1u) == 0) continue;
      everywhere = std::min(everywhere, std::max(order.clock(static_cast<PipeId>(x))[q], s[q]));
    }
    for (auto& records : records_[q]) {
      while (!records.empty() && records.front().seq <= everywhere) {
        records.pop_front();
        --count_[q];
      }
    }
  }
}

}  // namespace aicore::sim
