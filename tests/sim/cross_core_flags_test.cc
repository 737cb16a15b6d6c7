// The cross-core flag file of a core group: per core and id a counter of pending sets, bounded
// by its capacity; a wait consumes one set or leaves everything as it was.
#include "sim/sync/cross_core_flags.h"

#include <gtest/gtest.h>

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

TEST(CrossCoreFlags, ASetIsCountedOnItsCoreAndIdOnly) {
  CrossCoreFlags flags(3, 16, 15);
  EXPECT_EQ(flags.cores(), 3u);
  EXPECT_EQ(flags.ids(), 16u);
  EXPECT_TRUE(flags.Set(1, 7));
  EXPECT_TRUE(flags.Set(1, 7));
  EXPECT_EQ(flags.Count(1, 7), 2u);
  EXPECT_EQ(flags.Count(0, 7), 0u);
  EXPECT_EQ(flags.Count(2, 7), 0u);
  EXPECT_EQ(flags.Count(1, 6), 0u);
}

TEST(CrossCoreFlags, AWaitConsumesOneSetAndBlocksWhileNoneIsPending) {
  CrossCoreFlags flags(2, 16, 15);
  EXPECT_FALSE(flags.TryWait(0, 3));
  EXPECT_EQ(flags.Count(0, 3), 0u);
  flags.Set(0, 3);
  flags.Set(0, 3);
  EXPECT_TRUE(flags.TryWait(0, 3));
  EXPECT_EQ(flags.Count(0, 3), 1u);
  EXPECT_TRUE(flags.TryWait(0, 3));
  EXPECT_FALSE(flags.TryWait(0, 3));
}

TEST(CrossCoreFlags, ACounterHoldsAtMostItsCapacity) {
  // hardware-910b.md 3.4: at most 15 sets may be outstanding per id.
  CrossCoreFlags flags(1, 16, 15);
  for (int i = 0; i < 15; ++i) EXPECT_TRUE(flags.Set(0, 15)) << i;
  EXPECT_FALSE(flags.Set(0, 15));
  EXPECT_EQ(flags.Count(0, 15), 15u);
  EXPECT_TRUE(flags.TryWait(0, 15));
  EXPECT_TRUE(flags.Set(0, 15));
}

TEST(CrossCoreFlags, ACoreOrIdOutsideTheGroupIsASimulatorBug) {
  CrossCoreFlags flags(2, 16, 15);
  EXPECT_THROW(flags.Set(2, 0), InvariantViolation);
  EXPECT_THROW(flags.TryWait(0, 16), InvariantViolation);
}

}  // namespace
}  // namespace aicore::sim
