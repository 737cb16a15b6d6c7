// GM allocator (alignment, slack classification, free, capacity, host access) and local memory
// bounds (overflow-safe).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "sim/mem/global_memory.h"
#include "sim/mem/hbm.h"
#include "sim/mem/local_memory.h"

namespace aicore::sim {
namespace {

TEST(GlobalMemory, AllocationsAreAlignedNonZeroAndDisjoint) {
  GlobalMemory gm(1 << 20, 512, 512);
  auto a = gm.Malloc(100);
  auto b = gm.Malloc(100);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, 0u);
  EXPECT_EQ(*a % 512, 0u);
  EXPECT_EQ(*b % 512, 0u);
  EXPECT_GE(*b, *a + 100 + 512);  // slack of a is not b's memory
  EXPECT_EQ(gm.bytes_allocated(), 200u);
}

TEST(GlobalMemory, AccessClassification) {
  GlobalMemory gm(1 << 20, 512, 512);
  uint64_t a = *gm.Malloc(100);
  EXPECT_EQ(gm.Check(a, 100).kind, GmAccessKind::kInside);
  EXPECT_EQ(gm.Check(a + 99, 1).kind, GmAccessKind::kInside);
  EXPECT_EQ(gm.Check(a + 96, 8).kind, GmAccessKind::kSlack);
  EXPECT_EQ(gm.Check(a, 612).kind, GmAccessKind::kSlack);
  EXPECT_EQ(gm.Check(a, 613).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(a - 1, 2).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(0, 4).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(a, std::numeric_limits<uint64_t>::max()).kind, GmAccessKind::kOutOfBounds);
  GmAccess inside = gm.Check(a + 4, 4);
  ASSERT_NE(inside.host, nullptr);
  EXPECT_EQ(inside.allocation->base, a);
}

TEST(GlobalMemory, HostReadWriteAndFree) {
  GlobalMemory gm(1 << 20, 512, 512);
  uint64_t a = *gm.Malloc(16);
  uint32_t v = 0xdeadbeef, back = 0;
  ASSERT_TRUE(gm.Write(a + 4, &v, 4).ok());
  ASSERT_TRUE(gm.Read(a + 4, &back, 4).ok());
  EXPECT_EQ(back, v);
  EXPECT_EQ(gm.Write(a + 2000, &v, 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(gm.Free(a + 1).code(), StatusCode::kNotFound);
  EXPECT_TRUE(gm.Free(a).ok());
  EXPECT_EQ(gm.Free(a).code(), StatusCode::kNotFound);
  EXPECT_EQ(gm.Read(a, &back, 4).code(), StatusCode::kInvalidArgument);  // freed: unmapped
  EXPECT_EQ(gm.bytes_allocated(), 0u);
}

TEST(GlobalMemory, CapacityIsEnforced) {
  GlobalMemory gm(1000, 512, 512);
  EXPECT_TRUE(gm.Malloc(600).ok());
  auto r = gm.Malloc(600);
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(gm.Malloc(std::numeric_limits<uint64_t>::max()).status().code(),
            StatusCode::kResourceExhausted);
}

TEST(LocalMemory, BoundsAreOverflowSafe) {
  LocalMemory ub("UB", 196608);
  EXPECT_TRUE(ub.InBounds(0, 196608));
  EXPECT_TRUE(ub.InBounds(196608, 0));
  EXPECT_FALSE(ub.InBounds(196608 - 32, 64));
  EXPECT_FALSE(ub.InBounds(32, std::numeric_limits<uint64_t>::max()));
  EXPECT_FALSE(ub.InBounds(std::numeric_limits<uint64_t>::max(), 2));
  EXPECT_EQ(ub.capacity(), 196608u);
}

TEST(Hbm, GrantsAreFirstComeFirstServed) {
  HbmArbiter hbm(10.0);
  EXPECT_DOUBLE_EQ(hbm.Grant(0, 100), 10.0);
  EXPECT_DOUBLE_EQ(hbm.Grant(0, 100), 20.0);   // queued behind the first
  EXPECT_DOUBLE_EQ(hbm.Grant(50, 100), 60.0);  // idle gap: starts at its own time
}

}  // namespace
}  // namespace aicore::sim
