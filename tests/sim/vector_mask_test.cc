// Mask register arithmetic (ascendc-semantics.md 6.1) and the lane geometry of mask/repeat-form
// vector instructions (asc-api.md 4.1): which lanes are active, where they live, the span each
// operand touches.
#include "sim/pipe/vector_mask.h"

#include <gtest/gtest.h>

namespace aicore::sim {
namespace {

TEST(VectorMask, LengthsBecomeLowBitsThenHighBits) {
  VectorMask m = MaskForLength(5, 2, false);
  EXPECT_EQ(m.lo, 0x1Fu);
  EXPECT_EQ(m.hi, 0u);
  m = MaskForLength(64, 2, false);
  EXPECT_EQ(m.lo, ~uint64_t{0});
  EXPECT_EQ(m.hi, 0u);
  m = MaskForLength(70, 2, false);
  EXPECT_EQ(m.lo, ~uint64_t{0});
  EXPECT_EQ(m.hi, 0x3Fu);
}

TEST(VectorMask, AFullIterationIsAllOnesAndB32UsesTheLowWordOnly) {
  VectorMask m = MaskForLength(500, 2, false);
  EXPECT_EQ(m.lo, ~uint64_t{0});
  EXPECT_EQ(m.hi, ~uint64_t{0});
  m = MaskForLength(64, 4, false);
  EXPECT_EQ(m.lo, ~uint64_t{0});
  EXPECT_EQ(m.hi, 0u);
}

TEST(VectorMask, CounterModeHoldsTheCount) {
  VectorMask m = MaskForLength(300, 2, true);
  EXPECT_EQ(m.lo, 300u);
  EXPECT_EQ(m.hi, 0u);
}

VecGeometry Normal(uint32_t esize, uint64_t repeats, uint64_t lo, uint64_t hi) {
  VecGeometry g;
  g.esize = esize;
  g.repeats = repeats;
  g.mask_lo = lo;
  g.mask_hi = hi;
  return g;
}

TEST(VecGeometry, LanesLiveInBlocksAtTheirStrides) {
  VecGeometry g = Normal(2, 2, ~uint64_t{0}, ~uint64_t{0});
  g.blk[0] = 2;
  g.rep[0] = 20;
  // Lane 17 of iteration 1: block 1 (16 lanes per block) at 2 blocks per block, plus 20 blocks.
  EXPECT_EQ(g.Offset(0, 1, 17), (20 + 2) * 32 + 1 * 2u);
  EXPECT_EQ(g.Span(0), (20 + 7 * 2 + 1) * 32u);
  EXPECT_EQ(g.Span(1), 2 * 256u);
  EXPECT_TRUE(g.Active(1, 127));
  EXPECT_EQ(g.ActiveLanes(), 256u);
}

TEST(VecGeometry, APartialMaskSpansOnlyTheBlocksItTouches) {
  VecGeometry g = Normal(4, 1, 0xFFFF, 0);  // lanes 0..15: blocks 0 and 1
  EXPECT_EQ(g.Span(0), 64u);
  EXPECT_EQ(g.LastLane(0), 15);
  g = Normal(4, 3, 0, ~uint64_t{0});  // b32 ignores the high word: nothing is active
  EXPECT_EQ(g.LastLane(0), -1);
  EXPECT_EQ(g.Span(0), 0u);
  EXPECT_EQ(g.ActiveLanes(), 0u);
}

TEST(VecGeometry, CounterModeFillsIterationsInOrderAndThePartialOneEndsTheSpan) {
  VecGeometry g;
  g.esize = 2;
  g.counter = true;
  g.count = 300;  // 128 + 128 + 44
  g.repeats = 3;
  EXPECT_TRUE(g.Active(2, 43));
  EXPECT_FALSE(g.Active(2, 44));
  EXPECT_EQ(g.Span(0), 2 * 256 + 88u);  // 44 lanes of the last iteration, to its last byte
  EXPECT_EQ(g.ActiveLanes(), 300u);
  g.rep[0] = 0;  // every iteration over the same 256 bytes
  EXPECT_EQ(g.Span(0), 256u);
}

}  // namespace
}  // namespace aicore::sim
