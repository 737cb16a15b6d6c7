// Cross-core flag routing (modes 0, 1, 2), counters and their bound, waves, leftovers and the
// clocks the sets carry, on a launch's core places without running a kernel.
#include "sim/sync/cross_core_sync.h"

#include <gtest/gtest.h>

namespace aicore::sim {
namespace {

// Two MIX_AIC_1_2 groups: cores 0 (AIC), 1, 2 (AIVs) in group 0; 3 (AIC), 4, 5 in group 1.
std::vector<CorePlace> TwoMixGroups() {
  return {{CoreType::kAic, 0}, {CoreType::kAiv, 0}, {CoreType::kAiv, 0},
          {CoreType::kAic, 1}, {CoreType::kAiv, 1}, {CoreType::kAiv, 1}};
}

// Delivers every set `out` holds.
void DeliverAll(CrossCoreSync& sync, std::vector<CrossCoreSync::Delivery>* out) {
  for (CrossCoreSync::Delivery& d : *out) {
    CrossCoreSync::Delivery landed;
    const Instr* oldest = nullptr;
    ASSERT_TRUE(sync.Deliver(sync.Park(std::move(d)), &landed, &oldest));
  }
  out->clear();
}

TEST(CrossCoreSync, Mode2FromTheCubeCoreSetsBothVectorCoresOfItsGroupOnly) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(0, 3, 2, nullptr, &out, &fault);
  EXPECT_TRUE(fault.empty());
  ASSERT_EQ(out.size(), 2u);
  DeliverAll(sync, &out);
  EXPECT_EQ(sync.Count(1, 3), 1u);
  EXPECT_EQ(sync.Count(2, 3), 1u);
  EXPECT_EQ(sync.Count(4, 3), 0u);
  EXPECT_EQ(sync.Count(0, 3), 0u);
  EXPECT_TRUE(sync.TryWait(1, 3));
  EXPECT_FALSE(sync.TryWait(1, 3));
}

TEST(CrossCoreSync, Mode2FromVectorCoresSetsTheCubeCoreOnceBothHaveSet) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(1, 5, 2, nullptr, &out, &fault);
  sync.Fire(1, 5, 2, nullptr, &out, &fault);  // the same core twice is still one of two
  EXPECT_TRUE(out.empty());
  EXPECT_NE(sync.WhyNotSet(0, 5).find("1 of 2 have set it"), std::string::npos)
      << sync.WhyNotSet(0, 5);
  sync.Fire(2, 5, 2, nullptr, &out, &fault);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].core, 0u);
  DeliverAll(sync, &out);
  EXPECT_EQ(sync.Count(0, 5), 1u);
  // Core 1's second arrival waits for core 2's second.
  sync.Fire(2, 5, 2, nullptr, &out, &fault);
  EXPECT_EQ(out.size(), 1u);
}

TEST(CrossCoreSync, Mode0SetsEveryCoreOfTheTypeOnceAllHaveArrived) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(0, 11, 0, nullptr, &out, &fault);
  EXPECT_TRUE(out.empty());
  sync.Fire(3, 11, 0, nullptr, &out, &fault);
  ASSERT_EQ(out.size(), 2u);
  DeliverAll(sync, &out);
  EXPECT_EQ(sync.Count(0, 11), 1u);
  EXPECT_EQ(sync.Count(3, 11), 1u);
  EXPECT_EQ(sync.Count(1, 11), 0u);
}

TEST(CrossCoreSync, Mode0NeverCompletesWhenBlocksRunInWaves) {
  // 4 AIC blocks on 2 cube cores: the second wave never arrives while the first waits.
  CrossCoreSync sync(TwoMixGroups(), {8, 4}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(0, 11, 0, nullptr, &out, &fault);
  sync.Fire(3, 11, 0, nullptr, &out, &fault);
  EXPECT_TRUE(out.empty());
  EXPECT_NE(sync.WavesText(CoreType::kAic).find("4 blocks on 2 cube cores in 2 waves"),
            std::string::npos)
      << sync.WavesText(CoreType::kAic);
  EXPECT_NE(sync.WavesText(CoreType::kAiv).find("8 blocks on 4 vector cores"), std::string::npos);
  CrossCoreSync one_wave(TwoMixGroups(), {4, 2}, 16, 15, false);
  EXPECT_EQ(one_wave.WavesText(CoreType::kAic), "");
}

TEST(CrossCoreSync, Mode1PairsTheVectorCoresOfOneGroup) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(4, 2, 1, nullptr, &out, &fault);
  EXPECT_TRUE(out.empty());
  sync.Fire(5, 2, 1, nullptr, &out, &fault);
  ASSERT_EQ(out.size(), 2u);
  DeliverAll(sync, &out);
  EXPECT_EQ(sync.Count(4, 2), 1u);
  EXPECT_EQ(sync.Count(5, 2), 1u);
  EXPECT_EQ(sync.Count(1, 2), 0u);
  sync.Fire(0, 2, 1, nullptr, &out, &fault);
  EXPECT_NE(fault.find("cube core cannot set it"), std::string::npos) << fault;
}

TEST(CrossCoreSync, Mode2WithoutACubeCoreInTheGroupIsAFault) {
  CrossCoreSync sync({{CoreType::kAiv, 0}, {CoreType::kAiv, 1}}, {2, 0}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(0, 1, 2, nullptr, &out, &fault);
  EXPECT_NE(fault.find("no cube core"), std::string::npos) << fault;
  EXPECT_TRUE(out.empty());
}

TEST(CrossCoreSync, ACounterHoldsAtMostMaxCountSets) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 3, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  // Both vector cores wait for id 7 (nothing pending yet), so both count the sets.
  EXPECT_FALSE(sync.TryWait(1, 7));
  EXPECT_FALSE(sync.TryWait(2, 7));
  for (int i = 0; i < 4; ++i) sync.Fire(0, 7, 2, nullptr, &out, &fault);
  int lost = 0;
  for (CrossCoreSync::Delivery& d : out) {
    CrossCoreSync::Delivery landed;
    const Instr* oldest = nullptr;
    if (!sync.Deliver(sync.Park(std::move(d)), &landed, &oldest)) ++lost;
  }
  EXPECT_EQ(lost, 2);  // the fourth set on each vector core
  EXPECT_EQ(sync.Count(1, 7), 3u);
}

TEST(CrossCoreSync, ACounterOfAVectorCoreThatNeverWaitsWrapsInsteadOfOverflowing) {
  // The sibling of a Matmul client: the cube's mode-2 notifications for the other vector core
  // also count here (ascendc-semantics.md 7.5); its 4-bit counter wraps.
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 3, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  EXPECT_FALSE(sync.TryWait(1, 7));  // core 1 is the client; core 2 never waits for id 7
  for (int i = 0; i < 5; ++i) sync.Fire(0, 7, 2, nullptr, &out, &fault);
  int lost_on_client = 0;
  for (CrossCoreSync::Delivery& d : out) {
    CrossCoreSync::Delivery landed;
    const Instr* oldest = nullptr;
    if (!sync.Deliver(sync.Park(std::move(d)), &landed, &oldest)) {
      EXPECT_EQ(landed.core, 1u);
      ++lost_on_client;
    }
  }
  EXPECT_EQ(lost_on_client, 2);
  EXPECT_EQ(sync.Count(2, 7), 1u);  // 3 pending, the fourth wraps to 0, the fifth makes 1
}

TEST(CrossCoreSync, LeftoversSkipMode2SetsOnAVectorCoreThatNeverWaited) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 15, false);
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(0, 4, 2, nullptr, &out, &fault);
  sync.Fire(0, 4, 2, nullptr, &out, &fault);
  DeliverAll(sync, &out);
  EXPECT_TRUE(sync.TryWait(1, 4));  // core 1 answers; core 2 never waits for id 4
  std::vector<CrossCoreSync::Leftover> left = sync.Leftovers();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].core, 1u);
  EXPECT_EQ(left[0].count, 1u);
}

TEST(CrossCoreSync, AWaitAcquiresWhatTheSetterKnewWhenItSet) {
  CrossCoreSync sync(TwoMixGroups(), {4, 2}, 16, 15, true);
  CoreClocks& clocks = sync.clocks();
  uint32_t before = clocks.Epoch(0);
  EXPECT_FALSE(clocks.Knows(1, 0, before));
  std::vector<CrossCoreSync::Delivery> out;
  std::string fault;
  sync.Fire(0, 0, 2, nullptr, &out, &fault);
  DeliverAll(sync, &out);
  uint32_t after = clocks.Epoch(0);
  EXPECT_GT(after, before);
  ASSERT_TRUE(sync.TryWait(1, 0));
  EXPECT_TRUE(clocks.Knows(1, 0, before));   // core 0's accesses before the set
  EXPECT_FALSE(clocks.Knows(1, 0, after));   // ...but not those after it
  EXPECT_FALSE(clocks.Knows(2, 0, before));  // core 2 has not waited
}

}  // namespace
}  // namespace aicore::sim
