// One core group of a launch (see group_shape.h): its cores, built from their core type's spec and
// numbered from `first_core` in the group's order (cube cores, then vector cores), each knowing
// its sub-block (its place among the group's cores of its type). Every core of a group runs the
// group's blocks; the cross-core flags they share are the launch's (sim/sync/cross_core_sync.h).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/isa/scalar_ops.h"
#include "sim/soc/ai_core.h"
#include "sim/soc/core_spec.h"
#include "sim/soc/group_shape.h"

namespace aicore::sim {

struct LaunchContext;

// A spec per core type (indexed by CoreType); null for a type the launch does not use.
using CoreSpecs = std::array<const CoreSpec*, kNumCoreTypes>;

class CoreGroup {
 public:
  // `specs`, `ctx` and `initial_values` must outlive the group.
  CoreGroup(const GroupShape& shape, uint32_t first_core, const CoreSpecs& specs,
            LaunchContext& ctx, const std::vector<ScalarValue>& initial_values);

  const std::vector<std::unique_ptr<AiCore>>& cores() const { return cores_; }
  // Every core of the group runs `block` after the blocks added before it.
  void AddBlock(uint32_t block);
  // Where each core of a group `shape` sits, in the order the group builds them.
  static void AppendPlaces(const GroupShape& shape, uint32_t group, std::vector<CorePlace>* out);

 private:
  std::vector<std::unique_ptr<AiCore>> cores_;
};

}  // namespace aicore::sim
