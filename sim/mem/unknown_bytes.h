// Timing-only launches (docs/timing_only.md): which bytes of a launch's memories hold values the
// simulation did not compute. Such a launch runs every instruction for its timing but skips the
// element math of those whose sources are not known: what they would have written is unknown.
// A scalar read of unknown bytes stops the launch, since what the kernel does next (and so its
// cycles) could depend on them; the element math no scalar reads is never needed for timing.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/interval_map.h"
#include "sim/mem/mem_range.h"
#include "sim/mem/sparse_store.h"

namespace aicore::sim {

class GlobalMemory;
class MemoryMap;

class UnknownBytes {
 public:
  // What a byte holds. GM starts as kHost: the host's bytes (or zeros) that a scalar read sees
  // as they are, but whose copies into a core are payload, skipped. Local memories start known.
  enum State : uint8_t { kHost = 0, kUnknown = 1, kKnown = 2 };

  // Shadows GM's mapped span as it is now (nothing allocates during a launch).
  explicit UnknownBytes(const GlobalMemory& gm);
  UnknownBytes(const UnknownBytes&) = delete;
  UnknownBytes& operator=(const UnknownBytes&) = delete;

  // Shadows `core`'s local memories and its special registers (MemSpace kSpr and kCmpMask, of
  // those sizes), all known.
  void AddCore(uint32_t core, const MemoryMap& memories, uint64_t spr_bytes,
               uint64_t cmp_mask_bytes);

  // True when every byte of `r` (its chunks, when strided) on `core` is known.
  bool AllKnown(uint32_t core, const MemRange& r);
  // True when some byte of `r` on `core` is unknown.
  bool AnyUnknown(uint32_t core, const MemRange& r);
  // Every byte of `r` on `core` becomes `state`.
  void Mark(uint32_t core, const MemRange& r, State state);

 private:
  // Calls `f(shadow, bytes)` on each chunk of GM range `r` inside GM's shadow; stops when f
  // returns true, and returns whether one did.
  template <typename F>
  bool AnyGmChunk(const MemRange& r, F f);
  // A local memory's (or register's) byte states as runs (sim/core/interval_map.h), covering
  // [0, size): whole tiles are marked at once, a few map operations instead of a byte each.
  struct LocalStates {
    IntervalMap<uint8_t> runs;
    uint64_t size = 0;  // 0: nothing shadows this memory
    // Whether every byte / some byte of [lo, hi) (clipped to the memory) is in `state`.
    bool All(uint64_t lo, uint64_t hi, uint8_t state) const;
    bool Any(uint64_t lo, uint64_t hi, uint8_t state) const;
    void Assign(uint64_t lo, uint64_t hi, uint8_t state);
  };
  // The states of `space` on `core`; nullptr when nothing shadows it.
  LocalStates* LocalOf(uint32_t core, MemSpace space);
  // Calls `f(lo, hi)` on each chunk of local range `r` (clipped to its memory); stops when f
  // returns true, and returns whether one did.
  template <typename F>
  static bool AnyLocalChunk(const LocalStates& local, const MemRange& r, F f);

  static constexpr int kSpaces = 11;  // MemSpace values
  // GM: a byte each, sparse like GM (its copies are strided rows, often a few hundred bytes).
  SparseStore gm_shadow_;
  uint64_t gm_first_ = 0, gm_bytes_ = 0;
  std::vector<std::array<LocalStates, kSpaces>> cores_;
};

}  // namespace aicore::sim
