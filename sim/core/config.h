// Plain C++ form of the SoC description (proto/soc_config.proto), resolved once per platform by
// sim/bridge/config_loader. Units are in the names; every figure comes from configs/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aicore::sim {

struct VectorCostRow {
  std::string op;     // "add", "exp", ...
  std::string dtype;  // "float16", "float32", ... or "*"
  double per_call_cycles = 0;
  double cycles_per_repeat = 0;
};

struct DmaCostConfig {
  double fixed_cycles = 0;
  double per_burst_cycles = 0;
  double core_bytes_per_cycle = 0;
};

struct SocConfig {
  std::string name;
  std::string arch;
  uint32_t cube_cores = 0;
  uint32_t vector_cores = 0;
  double clock_mhz = 0;

  uint64_t ub_bytes = 0, l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0;
  uint64_t bt_bytes = 0, fb_bytes = 0, l2_bytes = 0, hbm_bytes = 0;

  uint32_t queue_depth_vector = 0, queue_depth_cube = 0, queue_depth_mte1 = 0;
  uint32_t queue_depth_mte2 = 0, queue_depth_mte3 = 0, queue_depth_fixpipe = 0;

  uint32_t scalar_op_cycles = 0;
  uint32_t scalar_issue_cycles = 0;

  uint32_t vector_repeat_bytes = 0;
  std::vector<VectorCostRow> vector_costs;

  DmaCostConfig mte2, mte3, ub_copy;

  double hbm_bytes_per_cycle = 0;
  uint32_t gm_latency_cycles = 0;
  uint64_t gm_alloc_alignment_bytes = 0;
  uint64_t gm_alloc_slack_bytes = 0;

  uint32_t flag_ids_per_event = 0;
  uint32_t flag_latency_cycles = 0;
  uint32_t barrier_cycles = 0;
  uint64_t launch_overhead_cycles = 0;
};

}  // namespace aicore::sim
