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

void UnknownBytes::AddCore(uint32_t core, const MemoryMap& memories, uint64_t spr_bytes,
                           uint64_t cmp_mask_bytes) {
  if (cores_.size() <= core) cores_.resize(core + 1);
  auto& shadows = cores_[core];
  for (int s = static_cast<int>(MemSpace::kUb); s <= static_cast<int>(MemSpace::kFb); ++s) {
    if (const LocalMemory* m = memories.Find(static_cast<MemSpace>(s))) {
      shadows[s].Reset(m->capacity(), kKnown);
    }
  }
  shadows[static_cast<int>(MemSpace::kSpr)].Reset(spr_bytes, kKnown);
  shadows[static_cast<int>(MemSpace::kCmpMask)].Reset(cmp_mask_bytes, kKnown);
}

StateRuns* UnknownBytes::RunsOf(uint32_t core, MemSpace space) {
  auto s = static_cast<int>(space);
  if (core >= cores_.size() || s <= 0 || s >= kSpaces) return nullptr;
  StateRuns& runs = cores_[core][s];
  return runs.size() == 0 ? nullptr : &runs;
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
bool UnknownBytes::AnyLocalChunk(const StateRuns& runs, const MemRange& r, F f) {
  if (r.hi <= r.lo) return false;
  uint64_t lo = r.lo, hi = std::min(r.hi, runs.size());
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
  const StateRuns* runs = RunsOf(core, r.space);
  if (runs == nullptr || runs->All(r.lo, r.hi, kKnown)) return true;  // the hull: all chunks
  return !AnyLocalChunk(*runs, r,
                        [&](uint64_t lo, uint64_t hi) { return !runs->All(lo, hi, kKnown); });
}

bool UnknownBytes::AnyUnknown(uint32_t core, const MemRange& r) {
  if (r.space == MemSpace::kGm) {
    return AnyGmChunk(
        r, [](uint8_t* p, uint64_t n) { return std::memchr(p, kUnknown, n) != nullptr; });
  }
  const StateRuns* runs = RunsOf(core, r.space);
  if (runs == nullptr || !runs->Any(r.lo, r.hi, kUnknown)) return false;  // not in the hull
  return AnyLocalChunk(*runs, r,
                       [&](uint64_t lo, uint64_t hi) { return runs->Any(lo, hi, kUnknown); });
}

void UnknownBytes::Mark(uint32_t core, const MemRange& r, State state) {
  if (r.space == MemSpace::kGm) {
    AnyGmChunk(r, [state](uint8_t* p, uint64_t n) {
      std::memset(p, state, n);
      return false;
    });
    return;
  }
  StateRuns* runs = RunsOf(core, r.space);
  if (runs == nullptr || runs->All(r.lo, r.hi, state)) return;  // the hull is so already
  AnyLocalChunk(*runs, r, [&](uint64_t lo, uint64_t hi) {
    runs->Assign(lo, hi, state);
    return false;
  });
}

}  // namespace aicore::sim
