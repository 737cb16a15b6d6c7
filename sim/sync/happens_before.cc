// Vector-clock happens-before of one core's pipes (see happens_before.h).
#include "sim/sync/happens_before.h"

#include <algorithm>

namespace aicore::sim {
namespace {

constexpr int kS = PipeIndex(PipeId::kS);

}  // namespace

HappensBefore::HappensBefore(uint32_t num_flags)
    : flag_clock_(num_flags), flag_valid_(num_flags, 0), waits_ahead_(num_flags, 0) {}

void HappensBefore::Reset() {
  count_.fill(0);
  for (Clock& c : clock_) c.fill(0);
  std::fill(flag_valid_.begin(), flag_valid_.end(), 0);
  std::fill(waits_ahead_.begin(), waits_ahead_.end(), 0);
  unit_blocks_.clear();
}

HappensBefore::Clock HappensBefore::Known(PipeId p) const {
  Clock k = clock_[PipeIndex(p)];
  const Clock& s = clock_[kS];
  for (int q = 0; q < kNumPipes; ++q) k[q] = std::max(k[q], s[q]);
  return k;
}

uint64_t HappensBefore::OnAccess(PipeId pipe) { return ++count_[PipeIndex(pipe)]; }

void HappensBefore::OnSetFlag(PipeId src, uint32_t flag) {
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

void HappensBefore::OnWaitFlag(PipeId dst, uint32_t flag) {
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
}

void HappensBefore::OnBarrier(PipeId pipe) {
  int p = PipeIndex(pipe);
  clock_[p][p] = std::max(clock_[p][p], count_[p]);
  ++count_[p];
}

void HappensBefore::OnDrain(PipeId pipe) {
  clock_[kS][PipeIndex(pipe)] = count_[PipeIndex(pipe)];
  ++count_[kS];
}

void HappensBefore::OnBarrierAll() {
  for (int q = 0; q < kNumPipes; ++q) clock_[kS][q] = count_[q];
  ++count_[kS];
}

bool HappensBefore::OnUnitFlagWait(PipeId pipe, const UnitFlagUse& use) {
  if (use.mode == 0) return false;
  Clock& c = clock_[PipeIndex(pipe)];
  bool learnt = false;
  ForEachL0cBlock(use, [&](uint64_t b) {
    // A bit holding the other value waits for a flip the program has not issued yet: nothing
    // is known to come before it (at run time it may never come: a deadlock).
    if (b >= unit_blocks_.size() || unit_blocks_[b].set == use.writer) return;
    for (int q = 0; q < kNumPipes; ++q) {
      if (unit_blocks_[b].clock[q] > c[q]) {
        c[q] = unit_blocks_[b].clock[q];
        learnt = true;
      }
    }
  });
  return learnt;
}

void HappensBefore::OnUnitFlagFlip(PipeId pipe, uint64_t seq, const UnitFlagUse& use) {
  if (use.mode != 3) return;
  // It flips the bits when it ends, after every earlier instruction of its pipe.
  Clock k = Known(pipe);
  k[PipeIndex(pipe)] = seq;
  ForEachL0cBlock(use, [&](uint64_t b) {
    if (b >= unit_blocks_.size()) unit_blocks_.resize(b + 1);
    unit_blocks_[b] = UnitBlock{use.writer, k};
  });
}

}  // namespace aicore::sim
