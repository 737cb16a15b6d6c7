// Mask arithmetic of ascendc-semantics.md 6.1 (see vector_mask.h).
#include "sim/pipe/vector_mask.h"

#include <algorithm>
#include <bit>

namespace aicore::sim {

VectorMask MaskForLength(uint64_t len, uint32_t esize, bool counter) {
  VectorMask m;
  if (counter) {
    m.hi = 0;
    m.lo = len;
    return m;
  }
  uint64_t lanes = kVectorRepeatBlocks * kVectorBlockBytes / esize;
  if (lanes > 128) lanes = 128;  // the register has 128 bits
  if (len >= lanes) {
    m.hi = lanes > 64 ? ~uint64_t{0} : 0;
    m.lo = ~uint64_t{0};
  } else if (len <= 64) {
    m.hi = 0;
    m.lo = len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
  } else {
    m.lo = ~uint64_t{0};
    m.hi = (uint64_t{1} << (len - 64)) - 1;
  }
  return m;
}

int64_t VecGeometry::LastLane(uint64_t r) const {
  if (wide_lanes != 0) return static_cast<int64_t>(wide_lanes) - 1;
  uint32_t lanes = lanes_per_repeat();
  if (counter) {
    uint64_t first = r * lanes;
    if (first >= count) return -1;
    return static_cast<int64_t>(std::min<uint64_t>(count - first, lanes)) - 1;
  }
  // Only the low word for b32 and wider: 64 lanes per iteration.
  uint64_t hi = lanes > 64 ? mask_hi : 0;
  uint64_t lo = lanes >= 64 ? mask_lo : mask_lo & ((uint64_t{1} << lanes) - 1);
  if (lanes > 64 && lanes < 128) hi &= (uint64_t{1} << (lanes - 64)) - 1;
  if (hi != 0) return 127 - std::countl_zero(hi);
  if (lo != 0) return 63 - std::countl_zero(lo);
  return -1;
}

uint64_t VecGeometry::Span(int k) const {
  uint64_t end = 0;
  if (k == 0 && dst_bits) return (ActiveLanes() + 7) / 8;
  if (k == 0 && dst_per_repeat) {
    for (uint64_t r = repeats; r-- > 0;) {
      int64_t last = LastLane(r);
      if (last >= 0) return Offset(0, r, static_cast<uint32_t>(last)) + dst_width * SizeOf(0);
    }
    return 0;
  }
  // Iterations differ only in counter mode (the last one partial): the last and the one before
  // it bound the span, strides being non-negative.
  uint64_t first = repeats >= 2 ? repeats - 2 : 0;
  for (uint64_t r = first; r < repeats; ++r) {
    int64_t last = LastLane(r);
    if (last < 0) continue;
    // Up to the last active lane's bytes: the rest of its block is not read (no lane uses it).
    end = std::max(end, Offset(k, r, static_cast<uint32_t>(last)) + SizeOf(k));
  }
  return end;
}

uint64_t VecGeometry::ActiveLanes() const {
  if (counter) return std::min<uint64_t>(count, repeats * lanes_per_repeat());
  if (wide_lanes != 0) return wide_lanes * repeats;
  uint64_t n = 0;
  for (uint32_t e = 0; e < lanes_per_repeat(); ++e) n += Active(0, e) ? 1 : 0;
  return n * repeats;
}

bool VecGeometry::Dense() const {
  for (int k = 0; k < 3; ++k) {
    if (blk[k] != 1 || rep[k] != kVectorRepeatBlocks) return false;
  }
  return true;
}

}  // namespace aicore::sim
