// A core group's cores and flag file (see core_group.h).
#include "sim/soc/core_group.h"

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

// Cross-core flags of C220: 16 ids per core, each counting up to 15 pending sets
// (hardware-910b.md 3.4). Config figures once the mixed-kernel issue uses them.
constexpr uint32_t kCrossCoreFlagIds = 16;
constexpr uint32_t kCrossCoreFlagMaxCount = 15;

// The group's order of core types: the cube core leads its vector cores.
constexpr CoreType kGroupOrder[] = {CoreType::kAic, CoreType::kAiv};

}  // namespace

CoreGroup::CoreGroup(const GroupShape& shape, uint32_t first_core, const CoreSpecs& specs,
                     LaunchContext& ctx, const std::vector<ScalarValue>& initial_values)
    : flags_(shape.cores(), kCrossCoreFlagIds, kCrossCoreFlagMaxCount) {
  uint32_t index = first_core;
  for (CoreType t : kGroupOrder) {
    uint32_t count = shape.PerGroup(t);
    const CoreSpec* spec = specs[static_cast<int>(t)];
    SIM_CHECK(count == 0 || spec != nullptr,
              "no core spec for the " + std::string(CoreTypeName(t)) + " cores of a group");
    for (uint32_t i = 0; i < count; ++i) {
      cores_.push_back(
          std::make_unique<AiCore>(index++, *spec, SubBlock{i, count}, ctx, initial_values));
    }
  }
}

void CoreGroup::AddBlock(uint32_t block) {
  for (auto& core : cores_) core->AddBlock(block);
}

}  // namespace aicore::sim
