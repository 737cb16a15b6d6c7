// check_local_memory_ia's watch registers (see memory_watch.h).
#include "sim/check/memory_watch.h"

#include "sim/check/diagnostics.h"

namespace aicore::sim {
namespace {

constexpr uint64_t kBlock = 32;  // start_addr / end_addr unit (bytes)

// Access kinds, in the word's bit order from bit 32.
enum Kind : uint32_t {
  kScalarRead = 0,
  kScalarWrite,
  kVectorRead,
  kVectorWrite,
  kMteRead,
  kMteWrite
};
constexpr const char* kKindNames[] = {"scalar read",  "scalar write", "vector read",
                                      "vector write", "MTE read",     "MTE write"};

// The unit that makes an access on `pipe`: the scalar unit, the vector unit or a DMA engine.
int KindOf(PipeId pipe, bool write) {
  int base = pipe == PipeId::kS ? kScalarRead : pipe == PipeId::kV ? kVectorRead : kMteRead;
  return base + (write ? 1 : 0);
}

// Whether any byte `r` accesses (each chunk of a strided range) lies in [lo, hi).
bool Touches(const MemRange& r, uint64_t lo, uint64_t hi) {
  if (r.lo >= hi || r.hi <= lo) return false;
  if (r.chunk == 0 || r.pitch <= r.chunk) return true;
  for (uint64_t at = r.lo; at < r.hi; at += r.pitch) {
    if (at < hi && at + r.chunk > lo) return true;
  }
  return false;
}

}  // namespace

void MemoryWatch::Apply(uint64_t word) {
  uint32_t index = (word >> 40) & 3;
  bool enable = ((word >> 42) & 1) != 0;
  uint64_t start = word & 0xFFFF, end = (word >> 16) & 0xFFFF;
  // (start, end] in blocks: the blocks after `start` up to and including `end`.
  registers_[index] = {(start + 1) * kBlock, (end + 1) * kBlock,
                       static_cast<uint32_t>((word >> 32) & 0x3F)};
  armed_ = enable ? armed_ | 1u << index : armed_ & ~(1u << index);
}

std::string MemoryWatch::Check(PipeId pipe, const MemRange* ranges, int num_ranges) const {
  for (int i = 0; i < num_ranges; ++i) {
    const MemRange& r = ranges[i];
    if (r.space != MemSpace::kUb || r.hull) continue;
    int kind = KindOf(pipe, r.write);
    for (uint32_t index = 0; index < registers_.size(); ++index) {
      const Register& w = registers_[index];
      if ((armed_ >> index & 1) == 0 || (w.kinds >> kind & 1) == 0) continue;
      if (!Touches(r, w.lo, w.hi)) continue;
      return std::string("a ") + kKindNames[kind] + " of UB[" + HexAddress(r.lo) + ", " +
             HexAddress(r.hi) + ") touches UB[" + HexAddress(w.lo) + ", " + HexAddress(w.hi) +
             "), which check_local_memory_ia watches for it (register " + std::to_string(index) +
             "): the chip raises a core exception";
    }
  }
  return {};
}

}  // namespace aicore::sim
