// L2 tag lookups (see l2_cache.h).
#include "sim/mem/l2_cache.h"

namespace aicore::sim {

L2Cache::L2Cache(uint64_t capacity_bytes, uint32_t line_bytes, uint32_t ways)
    : sets_(capacity_bytes / (static_cast<uint64_t>(line_bytes) * ways)),
      line_bytes_(line_bytes),
      ways_(ways) {
  if (sets_ == 0) sets_ = 1;  // hand-built configs smaller than one set still work
}

void L2Cache::Touch(uint64_t addr, uint64_t bytes, bool write, Access* out) {
  if (bytes == 0) return;
  if (tags_.empty()) {
    tags_.assign(sets_ * ways_, 0);
    ages_.assign(sets_ * ways_, 0);
    dirty_.assign(sets_ * ways_, 0);
  }
  uint64_t first = addr / line_bytes_;
  uint64_t last = (addr + bytes - 1) / line_bytes_;
  for (uint64_t line = first; line <= last; ++line) TouchLine(line, write, out);
}

uint64_t L2Cache::SetOf(uint64_t line) const {
  // Runs of kRunLines lines take consecutive sets from a hashed start: a set still draws its
  // lines from a random number of runs, as if every line were hashed, but a streaming copy walks
  // the tag arrays in order instead of jumping through megabytes of them for every line.
  // SplitMix64's finaliser: every bit of the run index moves every bit of the start.
  uint64_t x = line / kRunLines;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return (x % sets_ + line % kRunLines) % sets_;
}

void L2Cache::TouchLine(uint64_t line, bool write, Access* out) {
  uint64_t base = SetOf(line) * ways_;
  uint64_t tag = line + 1;
  ++clock_;
  uint64_t victim = base;
  for (uint64_t w = base; w < base + ways_; ++w) {
    if (tags_[w] == tag) {
      ages_[w] = clock_;
      if (write) dirty_[w] = 1;
      ++out->hits;
      return;
    }
    // Invalid ways have age 0, so they are filled before anything is evicted; ties go to the
    // lowest way, which keeps the choice deterministic.
    if (ages_[w] < ages_[victim]) victim = w;
  }
  if (tags_[victim] != 0 && dirty_[victim]) ++out->dirty_evictions;
  tags_[victim] = tag;
  ages_[victim] = clock_;
  dirty_[victim] = write ? 1 : 0;
  ++out->misses;
}

}  // namespace aicore::sim
