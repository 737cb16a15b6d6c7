// The vector mask register of a core and the lane geometry of a mask/repeat-form vector
// instruction (asc-api.md 4.1, ascendc-semantics.md 6). The scalar unit writes the register in
// program order (set_vector_mask, set_mask_count/norm, reset_mask, and every instruction that
// loads its own mask); each vector instruction captures what it needs at issue.
#pragma once

#include <cstdint>

namespace aicore::sim {

inline constexpr uint64_t kVectorBlockBytes = 32;   // a DataBlock: the unit of vector strides
inline constexpr uint64_t kVectorRepeatBlocks = 8;  // blocks per iteration (256 bytes)
inline constexpr uint64_t kMaxRepeatTimes = 255;
inline constexpr uint64_t kCmpMaskBytes = 16;  // the CMPMASK register: 128 bits

struct VectorMask {
  uint64_t hi = ~uint64_t{0};  // elements 64..127 of an iteration
  uint64_t lo = ~uint64_t{0};  // elements 0..63; in counter mode the element count
  bool counter = false;        // CTRL[56]: counter mode
};

// What SetVectorMask(len) loads for elements of `esize` bytes: in normal mode the words of the
// first `len` elements (all ones from a full iteration on; b32 and wider: low word only), in
// counter mode the count itself.
VectorMask MaskForLength(uint64_t len, uint32_t esize, bool counter);

// Where the lanes of one mask/repeat-form instruction live. Operand k is 0 dst, 1 src0, 2 src1;
// strides are in 32-byte blocks.
struct VecGeometry {
  uint32_t esize = 0;            // element bytes of the lanes (a cast's wider type)
  uint32_t size[3] = {0, 0, 0};  // element bytes per operand where they differ (cast); 0: esize
  uint64_t repeats = 0;          // iterations that run
  bool counter = false;          // counter mode: `count` lanes in total, iterations filled in order
  uint64_t count = 0;            // counter mode
  uint64_t wide_lanes = 0;       // a counter-mode copy: lanes per iteration, beyond one repeat
  uint64_t mask_hi = 0;          // normal mode: the lanes of every iteration
  uint64_t mask_lo = 0;
  // Reductions: dst receives one result per `dst_group` lanes (0: per iteration), each
  // `dst_width` elements, dense within an iteration; rep[0] counts one iteration's results.
  bool dst_per_repeat = false;
  uint32_t dst_group = 0;
  uint32_t dst_width = 1;
  // Compares: dst is a bit mask, bit r * lanes + e for lane e of iteration r, packed densely.
  bool dst_bits = false;
  // cast_deq: each dst block receives 16 results in one half, 1 the low, 2 the high 16 bytes.
  uint8_t dst_half_block = 0;
  uint64_t blk[3] = {1, 1, 1};
  uint64_t rep[3] = {8, 8, 8};

  uint32_t SizeOf(int k) const { return size[k] != 0 ? size[k] : esize; }
  uint32_t lanes_per_block(int k = 0) const {
    if (k == 0 && dst_half_block != 0) return static_cast<uint32_t>(kVectorBlockBytes / 2);
    return static_cast<uint32_t>(kVectorBlockBytes / SizeOf(k));
  }
  uint32_t lanes_per_repeat() const {
    return static_cast<uint32_t>(kVectorRepeatBlocks * kVectorBlockBytes / esize);
  }
  // Reductions: lanes per result.
  uint32_t group() const { return dst_group != 0 ? dst_group : lanes_per_repeat(); }
  // Lane `e` of iteration `r` is active.
  bool Active(uint64_t r, uint32_t e) const {
    if (counter) return r * lanes_per_repeat() + e < count;
    if (wide_lanes != 0) return e < wide_lanes;
    if (e >= 128) return false;  // the register has 128 bits
    return e < 64 ? ((mask_lo >> e) & 1u) != 0 : ((mask_hi >> (e - 64)) & 1u) != 0;
  }
  // Byte offset of lane `e` of iteration `r` of operand `k` from the operand's base.
  uint64_t Offset(int k, uint64_t r, uint32_t e) const {
    if (k == 0 && dst_per_repeat) {
      uint64_t results = lanes_per_repeat() / group();
      return (r * rep[0] * results + e / group()) * dst_width * SizeOf(0);
    }
    uint64_t half = k == 0 && dst_half_block == 2 ? kVectorBlockBytes / 2 : 0;
    return (r * rep[k] + e / lanes_per_block(k) * blk[k]) * kVectorBlockBytes + half +
           e % lanes_per_block(k) * SizeOf(k);
  }
  // The highest active lane of iteration `r`, or -1 when none is.
  int64_t LastLane(uint64_t r) const;
  // Bytes from operand k's base to the end of the last block any active lane touches; 0 when
  // no lane is active.
  uint64_t Span(int k) const;
  // Active lanes in all iterations.
  uint64_t ActiveLanes() const;
  // True when every operand is dense (block stride 1, repeat stride 8).
  bool Dense() const;
};

}  // namespace aicore::sim
