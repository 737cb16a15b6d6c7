// The flag file and the HardEvent table (values, pipes, which core types accept each event).
#include "sim/sync/flags.h"

#include <gtest/gtest.h>

#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

TEST(FlagFile, SetWaitClearAndOverflow) {
  FlagFile flags(8, true);
  uint32_t f = flags.Index(4, 3);
  EXPECT_EQ(flags.EventOf(f), 4u);
  EXPECT_EQ(flags.IdOf(f), 3u);
  EXPECT_FALSE(flags.IsSet(f));
  EXPECT_TRUE(flags.Set(f));
  EXPECT_TRUE(flags.IsSet(f));
  EXPECT_FALSE(flags.Set(f));  // one bit: the second set is lost
  flags.Clear(f);
  EXPECT_FALSE(flags.IsSet(f));
  flags.Set(flags.Index(34, 7));
  flags.Set(flags.Index(0, 0));
  EXPECT_EQ(flags.SetFlags(), (std::vector<uint32_t>{0, flags.Index(34, 7)}));
}

TEST(HardEvent, TableMatchesTheReference) {
  EXPECT_EQ(HardEvent(4).name, "MTE2_V");
  EXPECT_EQ(HardEvent(4).src, PipeId::kMte2);
  EXPECT_EQ(HardEvent(4).dst, PipeId::kV);
  EXPECT_EQ(HardEvent(19).name, "MTE3_MTE2");
  EXPECT_EQ(HardEvent(22).name, "V_S");
  EXPECT_EQ(HardEvent(22).dst, PipeId::kS);
  EXPECT_EQ(HardEvent(34).name, "FIX_FIX");
  int aiv = 0, aic = 0;
  for (uint32_t e = 0; e < kNumHardEvents; ++e) {
    aiv += HardEvent(e).on_aiv;
    aic += HardEvent(e).on_aic;
  }
  EXPECT_EQ(aiv, 13);  // hardware-910b.md 3.3
  EXPECT_EQ(aic, 24);
}

}  // namespace
}  // namespace aicore::sim
