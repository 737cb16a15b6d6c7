// Plain C++ form of the resolved SoC description (aicore.config.v1.SocConfig): a preset with its
// platform's overrides, times converted to cycles at the clock by sim/bridge/config_loader. Units
// are in the names; every figure comes from configs/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/figure_table.h"

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
  double read_window_bytes = 0;  // 0: reads in flight are not limited
  double latency_exposed = 0;    // 0: a read's latency overlaps the next copy; 1: it does not
};

// The cube's Mmad timing (proto CubeUnit): cycles per fractal step by input type.
struct CubeCostConfig {
  double fixed_cycles = 0;
  double f16_fractal_cycles = 0;
  double bf16_fractal_cycles = 0;
  double f32_fractal_cycles = 0;
  double hf32_fractal_cycles = 0;
  double s8_fractal_cycles = 0;
  double s4_fractal_cycles = 0;
  uint32_t interlock_fractals = 0;   // from this many C fractals on, Mmads order themselves
  uint32_t dst_alignment_bytes = 0;  // an Mmad's C in L0C starts on this boundary
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
  // The scalar figures, one per row of soc_figures.def (which also reads and checks them).
#define AICORE_SOC_FIGURE(type, member, path, check, from) type member{};
#define AICORE_SOC_PART(member, path, check, from)
#define AICORE_SOC_RULE(rule)
#include "sim/core/soc_figures.def"

  // Parts: their scalar members are rows of soc_figures.def too.
  std::vector<VectorCostRow> vector_costs;
  DmaCostConfig mte2, mte3, ub_copy, mte1, fixpipe;
  DmaCostConfig cube_mte2;  // the cube core's MTE2: its own route row (PipeSpec::dma_cost)
  CubeCostConfig cube;
  L2Config l2;
  UbBankConfig ub_banks;
  DebugConfig debug;
  // Table-valued figures (FigureTable), sorted by name; each read by a timing mechanism.
  std::vector<FigureTable> tables;

  // The table `table_name`, or nullptr.
  const FigureTable* Table(const std::string& table_name) const {
    for (const FigureTable& t : tables) {
      if (t.name == table_name) return &t;
    }
    return nullptr;
  }

  // Kernel start-up before the first instruction of a launch that uses `cores` cores: the head
  // overhead grows with the core count (hardware-910b.md 7).
  uint64_t LaunchOverhead(uint32_t cores) const {
    return launch_overhead_cycles + launch_overhead_per_core_cycles * cores;
  }
};

}  // namespace aicore::sim
