// A byte range one instruction reads or writes in one memory, as the issue stage computed it:
// the unit the dependency tracker (auto_sync), the race checker and the use-after-free check
// reason about. A strided copy is its hull [lo, hi) plus its geometry (chunks of `chunk` bytes
// every `pitch` bytes); auto_sync reasons about the hull, the race checker about the chunks.
#pragma once

#include <cstdint>

#include "sim/isa/program.h"

namespace aicore::sim {

struct MemRange {
  MemSpace space = MemSpace::kInvalid;
  uint64_t lo = 0, hi = 0;  // [lo, hi): UB offsets, or GM device addresses
  bool write = false;
  uint64_t chunk = 0, pitch = 0;  // strided: `chunk` bytes at lo, lo + pitch, ...; 0: contiguous
  // The instruction touches only some bytes of the range, which its data decides (gather
  // offsets, list addresses): checked for races as a whole, never as an uninitialised read.
  bool hull = false;
  // The pipe orders this access after its own earlier ones to the range without a barrier (an
  // Mmad of 10 or more fractals accumulating into L0C, ascendc-semantics.md 3.4).
  bool pipe_ordered = false;
};

}  // namespace aicore::sim
