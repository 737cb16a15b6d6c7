// The kernel types' group shapes (see group_shape.h). Core counts per type follow the Ascend C
// kernel type table (KERNEL_TYPE_*: AIC:AIV 1:0, 1:1, 1:2); the hard-sync variants launch the
// cores of their _1_0 counterparts with hardware sync enabled.
#include "sim/soc/group_shape.h"

#include <algorithm>
#include <string>

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

using K = KernelType;

// {kernel type, name, AICs per group, AIVs per group}
constexpr GroupShape kGroupShapes[] = {
    {K::kAivOnly, "AIV_ONLY", 0, 1},                  // vector cores alone
    {K::kAicOnly, "AIC_ONLY", 1, 0},                  // cube cores alone
    {K::kMixAivHardSync, "MIX_AIV_HARD_SYNC", 0, 1},  // as MIX_AIV_1_0
    {K::kMixAicHardSync, "MIX_AIC_HARD_SYNC", 1, 0},  // as MIX_AIC_1_0
    {K::kMixAiv1_0, "MIX_AIV_1_0", 0, 1},             // vector cores, with hardware sync
    {K::kMixAic1_0, "MIX_AIC_1_0", 1, 0},             // cube cores, with hardware sync
    {K::kMixAic1_1, "MIX_AIC_1_1", 1, 1},             // a cube core and a vector core
    {K::kMixAic1_2, "MIX_AIC_1_2", 1, 2},             // a cube core and both its vector cores
};

constexpr CoreType kCoreTypes[] = {CoreType::kAiv, CoreType::kAic};

}  // namespace

const GroupShape& GroupShapeOf(KernelType type) {
  for (const GroupShape& shape : kGroupShapes) {
    if (shape.type == type) return shape;
  }
  SIM_CHECK(false, "kernel type " + std::to_string(static_cast<int>(type)) + " has no group row");
  return kGroupShapes[0];
}

uint32_t CoresOf(const SocConfig& config, CoreType t) {
  return t == CoreType::kAic ? config.cube_cores : config.vector_cores;
}

uint32_t GroupCount(const GroupShape& shape, const SocConfig& config, uint32_t block_dim) {
  uint32_t groups = block_dim;
  for (CoreType t : kCoreTypes) {
    if (shape.PerGroup(t) > 0) groups = std::min(groups, CoresOf(config, t) / shape.PerGroup(t));
  }
  SIM_CHECK(shape.cores() > 0 && groups > 0, "a launch of kernel type " +
                                                 std::to_string(static_cast<int>(shape.type)) +
                                                 " on " + config.name + " has no core group");
  return groups;
}

}  // namespace aicore::sim
