// Runs one kernel launch: binds arguments, builds the core groups of the kernel type
// (sim/soc/group_shape.h), places blocks on groups (block b on group b % group_count, later
// blocks in waves), drives the global event queue until every core has finished, a fault stops
// it, the cycle limit passes or nothing can happen any more (deadlock), and assembles the
// LaunchResult.
#pragma once

#include <vector>

#include "sim/core/config.h"
#include "sim/core/status.h"
#include "sim/isa/cost_table.h"
#include "sim/isa/program.h"
#include "sim/mem/global_memory.h"
#include "sim/soc/device.h"

namespace aicore::sim {

class LaunchEngine {
 public:
  LaunchEngine(const SocConfig& config, const CostTable& costs, GlobalMemory& gm)
      : config_(config), costs_(costs), gm_(gm) {}

  StatusOr<LaunchResult> Run(const Program& program, uint32_t block_dim,
                             const std::vector<ArgValue>& args, const LaunchOptions& options);

 private:
  const SocConfig& config_;
  const CostTable& costs_;
  GlobalMemory& gm_;
};

}  // namespace aicore::sim
