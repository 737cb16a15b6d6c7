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
    return s->ways.size() == slots && s->set_epoch.size() == sets;
  });
  if (same_shape != free_stores.end()) {
    store = std::move(*same_shape);
    free_stores.erase(same_shape);
  } else {
    store = std::make_unique<L2Cache::Store>();
    store->ways.assign(slots, L2Cache::Way{});
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
  TouchStrided(addr, bytes, bytes, 1, write, out);
}

void L2Cache::TouchStrided(uint64_t addr, uint64_t chunk, uint64_t pitch, uint64_t chunks,
                           bool write, Access* out) {
  if (chunk == 0 || chunks == 0) return;
  if (store_ == nullptr) store_ = AcquireStore(sets_, ways_);
  uint64_t run = UINT64_MAX, run_set = 0;
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint64_t lo = addr + c * pitch;
    const uint64_t last = (lo + chunk - 1) / line_bytes_;
    for (uint64_t line = lo / line_bytes_; line <= last; ++line) {
      TouchLine(line, SetIn(line, run, run_set), write, out);
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
  Way* const ways = store_->ways.data() + set * ways_;
  Way* const end = ways + ways_;
  if (store_->set_epoch[set] != store_->epoch) {  // the set as a cold L2 has it
    std::fill(ways, end, Way{});
    store_->set_epoch[set] = store_->epoch;
  }
  const uint64_t tag = line + 1;
  ++clock_;
  Way* victim = ways;
  for (Way* w = ways; w != end; ++w) {
    if ((w->tag & ~kDirty) == tag) {
      w->age = clock_;
      if (write) w->tag |= kDirty;
      ++out->hits;
      return;
    }
    // Invalid ways have age 0, so they are filled before anything is evicted; ties go to the
    // lowest way, which keeps the choice deterministic.
    if (w->age < victim->age) victim = w;
  }
  if ((victim->tag & kDirty) != 0) ++out->dirty_evictions;
  victim->tag = write ? tag | kDirty : tag;
  victim->age = clock_;
  ++out->misses;
}

}  // namespace aicore::sim
