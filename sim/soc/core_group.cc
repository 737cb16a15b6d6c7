// A core group's cores (see core_group.h).
#include "sim/soc/core_group.h"

#include "sim/core/invariant.h"

namespace aicore::sim {
namespace {

// The group's order of core types: the cube core leads its vector cores.
constexpr CoreType kGroupOrder[] = {CoreType::kAic, CoreType::kAiv};

}  // namespace

CoreGroup::CoreGroup(const GroupShape& shape, uint32_t first_core, const CoreSpecs& specs,
                     LaunchContext& ctx, const std::vector<ScalarValue>& initial_values) {
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

void CoreGroup::AppendPlaces(const GroupShape& shape, uint32_t group, std::vector<CorePlace>* out) {
  for (CoreType t : kGroupOrder) {
    for (uint32_t i = 0; i < shape.PerGroup(t); ++i) out->push_back({t, group});
  }
}

void CoreGroup::AddBlock(uint32_t block) {
  for (auto& core : cores_) core->AddBlock(block);
}

}  // namespace aicore::sim
