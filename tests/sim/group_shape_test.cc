// Core groups per kernel type: vector cores alone for AIV_ONLY, one cube core for AIC_ONLY and
// the 1:0 types, one cube core with N vector cores for MIX_AIC_1_N; the launch uses as many
// groups as blocks, up to what the platform's cores compose.
#include "sim/soc/group_shape.h"

#include <gtest/gtest.h>

namespace aicore::sim {
namespace {

SocConfig Cores(uint32_t cube, uint32_t vector) {
  SocConfig c;
  c.name = "t";
  c.cube_cores = cube;
  c.vector_cores = vector;
  return c;
}

TEST(GroupShape, EachKernelTypeHasItsCoresPerGroup) {
  struct Case {
    KernelType type;
    uint32_t aic, aiv;
  };
  for (const Case& k :
       {Case{KernelType::kAivOnly, 0, 1}, Case{KernelType::kAicOnly, 1, 0},
        Case{KernelType::kMixAivHardSync, 0, 1}, Case{KernelType::kMixAicHardSync, 1, 0},
        Case{KernelType::kMixAiv1_0, 0, 1}, Case{KernelType::kMixAic1_0, 1, 0},
        Case{KernelType::kMixAic1_1, 1, 1}, Case{KernelType::kMixAic1_2, 1, 2}}) {
    const GroupShape& shape = GroupShapeOf(k.type);
    EXPECT_EQ(shape.type, k.type);
    EXPECT_EQ(shape.PerGroup(CoreType::kAic), k.aic) << static_cast<int>(k.type);
    EXPECT_EQ(shape.PerGroup(CoreType::kAiv), k.aiv) << static_cast<int>(k.type);
  }
}

TEST(GroupShape, ALaunchUsesAGroupPerBlockUpToWhatThePlatformComposes) {
  SocConfig b1 = Cores(24, 48);  // Ascend910B1
  const GroupShape& aiv = GroupShapeOf(KernelType::kAivOnly);
  EXPECT_EQ(GroupCount(aiv, b1, 8), 8u);
  EXPECT_EQ(GroupCount(aiv, b1, 48), 48u);
  EXPECT_EQ(GroupCount(aiv, b1, 100), 48u);  // min(block_dim, vector cores)
  const GroupShape& mix = GroupShapeOf(KernelType::kMixAic1_2);
  EXPECT_EQ(mix.cores(), 3u);
  EXPECT_EQ(GroupCount(mix, b1, 10), 10u);
  EXPECT_EQ(GroupCount(mix, b1, 30), 24u);             // 24 AIC + 48 AIV
  EXPECT_EQ(GroupCount(mix, Cores(24, 40), 30), 20u);  // the vector cores run out first
  EXPECT_EQ(GroupCount(GroupShapeOf(KernelType::kAicOnly), b1, 30), 24u);
}

}  // namespace
}  // namespace aicore::sim
