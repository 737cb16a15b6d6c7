// Plain C++ form of the resolved SoC description (aicore.config.v1.SocConfig): a preset with its
// platform's overrides, times converted to cycles at the clock by sim/bridge/config_loader. Units
// are in the names; every figure comes from configs/.
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

// The die's L2 (proto L2Cache); capacity is SocConfig::l2_bytes.
struct L2Config {
  uint32_t line_bytes = 0;
  uint32_t ways = 0;
  double bytes_per_cycle = 0;
  uint32_t hit_latency_cycles = 0;
  bool write_allocate = false;
};

// UB bank geometry for vector bank-conflict timing (proto UbBanks).
struct UbBankConfig {
  uint32_t block_bytes = 0;
  uint32_t groups = 0;
  uint64_t bank_bytes = 0;
};

// Device debug support (proto DebugUnit): the system counter and printf / dump_tensor bounds.
struct DebugConfig {
  double system_counter_mhz = 0;  // get_system_cycle's rate
  uint32_t printf_cycles = 0;
  uint32_t dump_fixed_cycles = 0;
  uint64_t output_bytes_per_core = 0;
  uint64_t output_bytes_per_launch = 0;
};

struct SocConfig {
  std::string name;
  std::string arch;
  uint32_t cube_cores = 0;
  uint32_t vector_cores = 0;
  double clock_mhz = 0;

  uint64_t ub_bytes = 0, l1_bytes = 0, l0a_bytes = 0, l0b_bytes = 0, l0c_bytes = 0;
  uint64_t bt_bytes = 0, fb_bytes = 0, l2_bytes = 0, hbm_bytes = 0;
  // Start-address alignment of instruction operands per local memory.
  uint32_t ub_alignment_bytes = 0, l1_alignment_bytes = 0, l0a_alignment_bytes = 0;
  uint32_t l0b_alignment_bytes = 0, l0c_alignment_bytes = 0, bt_alignment_bytes = 0;
  uint32_t fb_alignment_bytes = 0;

  uint32_t queue_depth_vector = 0, queue_depth_cube = 0, queue_depth_mte1 = 0;
  uint32_t queue_depth_mte2 = 0, queue_depth_mte3 = 0, queue_depth_fixpipe = 0;

  uint32_t scalar_op_cycles = 0;
  uint32_t scalar_issue_cycles = 0;
  uint32_t scalar_local_load_cycles = 0;  // get_value / set_value of one element
  uint32_t scalar_local_store_cycles = 0;
  uint32_t scalar_gm_load_cycles = 0;
  uint32_t scalar_gm_store_cycles = 0;

  uint32_t vector_repeat_bytes = 0;
  std::vector<VectorCostRow> vector_costs;

  DmaCostConfig mte2, mte3, ub_copy;

  double hbm_read_bytes_per_cycle = 0;
  double hbm_write_bytes_per_cycle = 0;
  double hbm_transfer_overhead_cycles = 0;
  uint32_t gm_request_bytes = 0;
  double gm_misaligned_efficiency = 0;
  uint32_t gm_latency_cycles = 0;
  uint64_t gm_alloc_alignment_bytes = 0;
  uint64_t gm_alloc_block_bytes = 0;

  uint32_t flag_ids_per_event = 0;
  uint32_t flag_latency_cycles = 0;
  uint32_t barrier_cycles = 0;
  uint64_t launch_overhead_cycles = 0;  // base
  uint64_t launch_overhead_per_core_cycles = 0;

  L2Config l2;
  UbBankConfig ub_banks;
  DebugConfig debug;

  // Kernel start-up before the first instruction of a launch that uses `cores` cores: the head
  // overhead grows with the core count (hardware-910b.md 7).
  uint64_t LaunchOverhead(uint32_t cores) const {
    return launch_overhead_cycles + launch_overhead_per_core_cycles * cores;
  }
};

}  // namespace aicore::sim
