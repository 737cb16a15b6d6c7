// UnknownBytes (see unknown_bytes.h): one shadow byte per byte of memory. GM's shadow is a sparse
// mapping like GM itself, so it costs host memory only where a launch marks bytes.
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
      shadows[s].assign(m->capacity(), kKnown);
    }
  }
  shadows[static_cast<int>(MemSpace::kSpr)].assign(spr_bytes, kKnown);
  shadows[static_cast<int>(MemSpace::kCmpMask)].assign(cmp_mask_bytes, kKnown);
}

uint8_t* UnknownBytes::ShadowOf(uint32_t core, MemSpace space, uint64_t* size, uint64_t* origin) {
  if (space == MemSpace::kGm) {
    *size = gm_bytes_;
    *origin = gm_first_;
    return gm_bytes_ > 0 ? gm_shadow_.data() : nullptr;
  }
  auto s = static_cast<int>(space);
  if (core >= cores_.size() || s <= 0 || s >= kSpaces) return nullptr;
  std::vector<uint8_t>& shadow = cores_[core][s];
  *size = shadow.size();
  *origin = 0;
  return shadow.empty() ? nullptr : shadow.data();
}

template <typename F>
bool UnknownBytes::AnyChunk(uint32_t core, const MemRange& r, F f) {
  uint64_t size = 0, origin = 0;
  uint8_t* shadow = ShadowOf(core, r.space, &size, &origin);
  if (shadow == nullptr || r.hi <= r.lo || r.lo < origin) return false;
  uint64_t lo = r.lo - origin, hi = std::min(r.hi - origin, size);
  bool strided = r.chunk != 0 && r.pitch > r.chunk;
  uint64_t step = strided ? r.pitch : hi - lo;
  uint64_t chunk = strided ? r.chunk : hi - lo;
  for (uint64_t at = lo; at < hi; at += step) {
    if (f(shadow + at, std::min(chunk, hi - at))) return true;
  }
  return false;
}

bool UnknownBytes::AllKnown(uint32_t core, const MemRange& r) {
  return !AnyChunk(core, r, [](uint8_t* p, uint64_t n) { return !AllAre(p, n, kKnown); });
}

bool UnknownBytes::AnyUnknown(uint32_t core, const MemRange& r) {
  return AnyChunk(core, r,
                  [](uint8_t* p, uint64_t n) { return std::memchr(p, kUnknown, n) != nullptr; });
}

void UnknownBytes::Mark(uint32_t core, const MemRange& r, State state) {
  AnyChunk(core, r, [state](uint8_t* p, uint64_t n) {
    std::memset(p, state, n);
    return false;
  });
}

}  // namespace aicore::sim
