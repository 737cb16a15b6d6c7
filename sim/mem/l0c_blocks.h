// The 512-byte blocks of L0C an Mmad writes or a Fixpipe reads, as the unit flag sees them
// (ascendc-semantics.md 3.5: one ready bit per block): the rows of each 16-column block of the
// NZ matrix the instruction touches. The issue stage fills one per instruction; the core's ready
// bits (sim/pipe/l0c_ready.h) and the happens-before clocks (sim/sync/happens_before.h) walk it.
#pragma once

#include <cstdint>

namespace aicore::sim {

inline constexpr uint64_t kL0cBlockBytes = 512;

struct UnitFlagUse {
  uint8_t mode = 0;     // 0: no unit flag; 2: wait; 3: wait, then flip the bits when done
  bool writer = false;  // an Mmad (waits for 0, sets 1) rather than a Fixpipe (waits for 1, clears)
  // L0C byte offsets: `chunks` column blocks of `chunk` bytes, `pitch` apart, from `lo`.
  uint64_t lo = 0, chunk = 0, pitch = 0, chunks = 0;
};

// Calls fn(block index) once for each block `use` touches, in increasing order (column blocks
// never overlap: pitch >= chunk).
template <typename Fn>
void ForEachL0cBlock(const UnitFlagUse& use, Fn&& fn) {
  uint64_t next = 0;  // the first block not yet visited
  for (uint64_t c = 0; c < use.chunks; ++c) {
    uint64_t from = use.lo + c * use.pitch;
    if (use.chunk == 0) break;
    uint64_t first = from / kL0cBlockBytes, last = (from + use.chunk - 1) / kL0cBlockBytes;
    for (uint64_t b = first > next ? first : next; b <= last; ++b) fn(b);
    if (last + 1 > next) next = last + 1;
  }
}

}  // namespace aicore::sim
