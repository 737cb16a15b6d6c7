// Vector-clock happens-before and unordered-access bookkeeping (see dep_tracker.h).
#include "sim/sync/dep_tracker.h"

#include <algorithm>

namespace aicore::sim {
namespace {

constexpr int kS = PipeIndex(PipeId::kS);

bool Conflicts(const MemRange& a, const MemRange& b) {
  return (a.write || b.write) && a.space == b.space && a.lo < b.hi && b.lo < a.hi;
}

}  // namespace

DepTracker::DepTracker(uint32_t pipes, uint32_t num_flags, uint32_t max_records)
    : pipes_(pipes | 1u << kS),
      max_records_(std::max<uint32_t>(max_records, 2)),
      flag_clock_(num_flags),
      flag_valid_(num_flags, 0),
      waits_ahead_(num_flags, 0) {}

void DepTracker::Reset() {
  count_.fill(0);
  for (Clock& c : clock_) c.fill(0);
  std::fill(flag_valid_.begin(), flag_valid_.end(), 0);
  std::fill(waits_ahead_.begin(), waits_ahead_.end(), 0);
  for (auto& per_pipe : records_) {
    for (auto& d : per_pipe) d.clear();
  }
}

DepTracker::Clock DepTracker::Known(PipeId p) const {
  Clock k = clock_[PipeIndex(p)];
  const Clock& s = clock_[kS];
  for (int q = 0; q < kNumPipes; ++q) k[q] = std::max(k[q], s[q]);
  return k;
}

uint32_t DepTracker::Unordered(PipeId pipe, const MemRange* ranges, int n, Conflict* first) const {
  Clock known = Known(pipe);
  uint32_t mask = 0;
  for (int q = 0; q < kNumPipes; ++q) {
    for (int i = 0; i < n && (mask >> q & 1u) == 0; ++i) {
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

void DepTracker::OnAccess(PipeId pipe, const MemRange* ranges, int n, const Instr* instr) {
  int p = PipeIndex(pipe);
  uint64_t seq = ++count_[p];
  for (int i = 0; i < n; ++i) {
    if (ranges[i].lo >= ranges[i].hi) continue;
    auto& records = records_[p][static_cast<int>(ranges[i].space)];
    records.push_back(Record{seq, ranges[i], instr});
    if (records.size() > max_records_) {
      // Fold the oldest into the next: one range covering both, ordered only when the newer is
      // (prefix order), so nothing is ever missed.
      Record oldest = records.front();
      records.pop_front();
      Record& next = records.front();
      next.range.lo = std::min(next.range.lo, oldest.range.lo);
      next.range.hi = std::max(next.range.hi, oldest.range.hi);
      next.range.write = next.range.write || oldest.range.write;
    }
  }
}

void DepTracker::OnSetFlag(PipeId src, uint32_t flag) {
  int p = PipeIndex(src);
  // It fires once every earlier instruction of `src` has ended, carrying what they knew.
  if (flag < flag_valid_.size() && waits_ahead_[flag] > 0) {
    --waits_ahead_[flag];  // consumed by a wait issued earlier, which learned nothing from it
  } else if (flag < flag_valid_.size() && !flag_valid_[flag]) {
    Clock k = Known(src);
    k[p] = count_[p];
    flag_clock_[flag] = k;
    flag_valid_[flag] = 1;
  }
  ++count_[p];
}

void DepTracker::OnWaitFlag(PipeId dst, uint32_t flag) {
  int p = PipeIndex(dst);
  if (flag < flag_valid_.size() && flag_valid_[flag]) {
    Clock& c = clock_[p];
    const Clock& k = flag_clock_[flag];
    for (int q = 0; q < kNumPipes; ++q) c[q] = std::max(c[q], k[q]);
    flag_valid_[flag] = 0;
  } else if (flag < flag_valid_.size()) {
    ++waits_ahead_[flag];
  }
  ++count_[p];
  Prune();
}

void DepTracker::OnBarrier(PipeId pipe) {
  int p = PipeIndex(pipe);
  clock_[p][p] = std::max(clock_[p][p], count_[p]);
  ++count_[p];
  Prune();
}

void DepTracker::OnBarrierAll() {
  for (int q = 0; q < kNumPipes; ++q) clock_[kS][q] = count_[q];
  ++count_[kS];
  Prune();
}

void DepTracker::Prune() {
  for (int q = 0; q < kNumPipes; ++q) {
    if ((pipes_ >> q & 1u) == 0) continue;
    // Ordered before the next instruction of every pipe = ordered before anything to come.
    // The scalar unit issues no memory accesses yet, so only the pipes that do count (a scalar
    // GetValue/SetValue would add S here).
    uint64_t everywhere = UINT64_MAX;
    for (int x = 0; x < kNumPipes; ++x) {
      if (x == kS || (pipes_ >> x & 1u) == 0) continue;
      everywhere = std::min(everywhere, std::max(clock_[x][q], clock_[kS][q]));
    }
    for (auto& records : records_[q]) {
      while (!records.empty() && records.front().seq <= everywhere) records.pop_front();
    }
  }
}

}  // namespace aicore::sim
