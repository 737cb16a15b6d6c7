// L2 tag lookups (see l2_cache.h).
#include "sim/mem/l2_cache.h"

#include <algorithm>
#include <memory>

namespace aicore::sim {
namespace {

// Stores no L2 of this thread uses now. Thread-local, so that launches on several host threads
// never share one; a store moves back here when its L2 ends.
thread_local std::vector<std::unique_ptr<L2Cache::Store>> free_stores;

L2Cache::Store* AcquireStore(uint64_t sets, uint32_t ways) {
  const uint64_t slots = sets * ways;
  std::unique_ptr<L2Cache::Store> store;
  auto same_shape = std::find_if(free_stores.begin(), free_stores.end(), [&](const auto& s) {
    return s->tags.size() == slots && s->set_epoch.size() == sets;
  });
  if (same_shape != free_stores.end()) {
    store = std::move(*same_shape);
    free_stores.erase(same_shape);
  } else {
    store = std::make_unique<L2Cache::Store>();
    store->tags.assign(slots, 0);
    store->ages.assign(slots, 0);
    store->dirty.assign(slots, 0);
    store->set_epoch.assign(sets, 0);
  }
  ++store->epoch;  // every set is stale: cleared at its first touch
  return store.release();
}

}  // namespace

L2Cache::L2Cache(uint64_t capacity_bytes, uint32_t line_bytes, uint32_t ways)
    : sets_(capacity_bytes / (static_cast<uint64_t>(line_bytes) * ways)),
      line_bytes_(line_bytes),
      ways_(ways) {
  if (sets_ == 0) sets_ = 1;  // hand-built configs smaller than one set still work
}

L2Cache::~L2Cache() {
  if (store_ != nullptr) free_stores.emplace_back(store_);
}

void L2Cache::Touch(uint64_t addr, uint64_t bytes, bool write, Access* out) {
  if (bytes == 0) return;
  if (store_ == nullptr) store_ = AcquireStore(sets_, ways_);
  uint64_t first = addr / line_bytes_;
  uint64_t last = (addr + bytes - 1) / line_bytes_;
  // The lines of one run take consecutive sets (SetOf): hash once per run, then step.
  for (uint64_t line = first; line <= last;) {
    const uint64_t run_last = std::min(last, (line / kRunLines + 1) * kRunLines - 1);
    for (uint64_t set = SetOf(line); line <= run_last; ++line) {
      TouchLine(line, set, write, out);
      if (++set == sets_) set = 0;
    }
  }
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

void L2Cache::TouchLine(uint64_t line, uint64_t set, bool write, Access* out) {
  const uint64_t base = set * ways_;
  std::vector<uint64_t>& tags = store_->tags;
  std::vector<uint64_t>& ages = store_->ages;
  std::vector<uint8_t>& dirty = store_->dirty;
  if (store_->set_epoch[set] != store_->epoch) {  // the set as a cold L2 has it
    std::fill_n(tags.begin() + static_cast<int64_t>(base), ways_, 0);
    std::fill_n(ages.begin() + static_cast<int64_t>(base), ways_, 0);
    std::fill_n(dirty.begin() + static_cast<int64_t>(base), ways_, 0);
    store_->set_epoch[set] = store_->epoch;
  }
  uint64_t tag = line + 1;
  ++clock_;
  uint64_t victim = base;
  for (uint64_t w = base; w < base + ways_; ++w) {
    if (tags[w] == tag) {
      ages[w] = clock_;
      if (write) dirty[w] = 1;
      ++out->hits;
      return;
    }
    // Invalid ways have age 0, so they are filled before anything is evicted; ties go to the
    // lowest way, which keeps the choice deterministic.
    if (ages[w] < ages[victim]) victim = w;
  }
  if (tags[victim] != 0 && dirty[victim]) ++out->dirty_evictions;
  tags[victim] = tag;
  ages[victim] = clock_;
  dirty[victim] = write ? 1 : 0;
  ++out->misses;
}

}  // namespace aicore::sim
