// UnknownBytes (see unknown_bytes.h): GM's shadow is a byte per byte, sparse like GM itself, so
// it costs host memory only where a launch marks bytes; a local memory's is its runs of states.
#include "sim/mem/unknown_bytes.h"

#include <algorithm>
#include <cstring>

#include "sim/core/invariant.h"
#include "sim/mem/global_memory.h"
#include "sim/mem/memory_map.h"

namespace aicore::sim {
namespace {

constexpr uint64_t kAllKnown = 0x0202020202020202ull;

bool AllAre(const uint8_t* p, uint64_t n, uint8_t state) {
  uint64_t i = 0;
  if (state == UnknownBytes::kKnown) {
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w != kAllKnown) return false;
    }
  }
  for (; i < n; ++i) {
    if (p[i] != state) return false;
  }
  return true;
}

}  // namespace

UnknownBytes::UnknownBytes(const GlobalMemory& gm)
    : gm_first_(GlobalMemory::first_address()), gm_bytes_(gm.mapped_bytes()) {
  if (gm_bytes_ > 0) {
    Status reserved = gm_shadow_.Reserve(gm_bytes_, gm_bytes_);
    SIM_CHECK(reserved.ok(), "the GM shadow of a timing-only launch: " + reserved.message());
  }
}

bool UnknownBytes::LocalStates::All(uint64_t lo, uint64_t hi, uint8_t state) const {
  bool all = true;
  runs.ForEach(lo, std::min(hi, size), [&](uint64_t, uint64_t, uint8_t s) { all &= s == state; });
  return all;
}

bool UnknownBytes::LocalStates::Any(uint64_t lo, uint64_t hi, uint8_t state) const {
  bool any = false;
  runs.ForEach(lo, std::min(hi, size), [&](uint64_t, uint64_t, uint8_t s) { any |= s == state; });
  return any;
}

void UnknownBytes::LocalStates::Assign(uint64_t lo, uint64_t hi, uint8_t state) {
  runs.Visit(lo, std::min(hi, size), [state](uint64_t, uint64_t, uint8_t& s) { s = state; });
}

void UnknownBytes::AddCore(uint32_t core, const MemoryMap& memories, uint64_t spr_bytes,
                           uint64_t cmp_mask_bytes) {
  if (cores_.size() <= core) cores_.resize(core + 1);
  auto& shadows = cores_[core];
  auto known = [](LocalStates& local, uint64_t size) {
    local.runs.Clear();
    local.size = size;
    local.Assign(0, size, kKnown);
  };
  for (int s = static_cast<int>(MemSpace::kUb); s <= static_cast<int>(MemSpace::kFb); ++s) {
    if (const LocalMemory* m = memories.Find(static_cast<MemSpace>(s))) {
      known(shadows[s], m->capacity());
    }
  }
  known(shadows[static_cast<int>(MemSpace::kSpr)], spr_bytes);
  known(shadows[static_cast<int>(MemSpace::kCmpMask)], cmp_mask_bytes);
}

UnknownBytes::LocalStates* UnknownBytes::LocalOf(uint32_t core, MemSpace space) {
  auto s = static_cast<int>(space);
  if (core >= cores_.size() || s <= 0 || s >= kSpaces) return nullptr;
  LocalStates& local = cores_[core][s];
  return local.size == 0 ? nullptr : &local;
}

template <typename F>
bool UnknownBytes::AnyGmChunk(const MemRange& r, F f) {
  if (gm_bytes_ == 0 || r.hi <= r.lo || r.lo < gm_first_) return false;
  uint8_t* shadow = gm_shadow_.data();
  uint64_t lo = r.lo - gm_first_, hi = std::min(r.hi - gm_first_, gm_bytes_);
  bool strided = r.chunk != 0 && r.pitch > r.chunk;
  uint64_t step = strided ? r.pitch : hi - lo;
  uint64_t chunk = strided ? r.chunk : hi - lo;
  for (uint64_t at = lo; at < hi; at += step) {
    if (f(shadow + at, std::min(chunk, hi - at))) return true;
  }
  return false;
}

template <typename F>
bool UnknownBytes::AnyLocalChunk(const LocalStates& local, const MemRange& r, F f) {
  if (r.hi <= r.lo) return false;
  uint64_t lo = r.lo, hi = std::min(r.hi, local.size);
  bool strided = r.chunk != 0 && r.pitch > r.chunk;
  uint64_t step = strided ? r.pitch : hi - lo;
  uint64_t chunk = strided ? r.chunk : hi - lo;
  for (uint64_t at = lo; at < hi; at += step) {
    if (f(at, at + std::min(chunk, hi - at))) return true;
  }
  return false;
}

bool UnknownBytes::AllKnown(uint32_t core, const MemRange& r) {
  if (r.space == MemSpace::kGm) {
    return !AnyGmChunk(r, [](uint8_t* p, uint64_t n) { return !AllAre(p, n, kKnown); });
  }
  const LocalStates* local = LocalOf(core, r.space);
  if (local == nullptr || local->All(r.lo, r.hi, kKnown)) return true;  // the hull: all chunks
  return !AnyLocalChunk(*local, r,
                        [&](uint64_t lo, uint64_t hi) { return !local->All(lo, hi, kKnown); });
}

bool UnknownBytes::AnyUnknown(uint32_t core, const MemRange& r) {
  if (r.space == MemSpace::kGm) {
    return AnyGmChunk(
        r, [](uint8_t* p, uint64_t n) { return std::memchr(p, kUnknown, n) != nullptr; });
  }
  const LocalStates* local = LocalOf(core, r.space);
  if (local == nullptr || !local->Any(r.lo, r.hi, kUnknown)) return false;  // not in the hull
  return AnyLocalChunk(*local, r,
                       [&](uint64_t lo, uint64_t hi) { return local->Any(lo, hi, kUnknown); });
}

void UnknownBytes::Mark(uint32_t core, const MemRange& r, State state) {
  if (r.space == MemSpace::kGm) {
    AnyGmChunk(r, [state](uint8_t* p, uint64_t n) {
      std::memset(p, state, n);
      return false;
    });
    return;
  }
  LocalStates* local = LocalOf(core, r.space);
  if (local == nullptr || local->All(r.lo, r.hi, state)) return;  // the hull is so already
  AnyLocalChunk(*local, r, [&](uint64_t lo, uint64_t hi) {
    local->Assign(lo, hi, state);
    return false;
  });
}

}  // namespace aicore::sim
