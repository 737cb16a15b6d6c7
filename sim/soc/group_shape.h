// What a launch's core groups are made of, per kernel type, as rows: vector cores alone
// (AIV_ONLY), one cube core (AIC_ONLY), or one cube core with N vector cores (MIX_AIC_1_N). The
// launch engine builds its cores group by group from the program's row.
#pragma once

#include <cstdint>

#include "sim/core/config.h"
#include "sim/isa/core_type.h"
#include "sim/isa/program.h"

namespace aicore::sim {

struct GroupShape {
  KernelType type;
  const char* name;  // asc's KernelType name: "AIV_ONLY"
  uint32_t aic = 0;  // cube cores per group
  uint32_t aiv = 0;  // vector cores per group

  uint32_t PerGroup(CoreType t) const { return t == CoreType::kAic ? aic : aiv; }
  uint32_t cores() const { return aic + aiv; }
};

const GroupShape& GroupShapeOf(KernelType type);
inline const char* KernelTypeLabel(KernelType type) { return GroupShapeOf(type).name; }

inline constexpr int kNumCoreTypes = 2;  // CoreType values, for arrays indexed by them

// The platform's cores of type `t`.
uint32_t CoresOf(const SocConfig& config, CoreType t);

// Groups a launch of `block_dim` blocks uses: one per block, as many as the platform's cores
// compose (min(block_dim, vector_cores) for AIV_ONLY); more blocks run in waves.
uint32_t GroupCount(const GroupShape& shape, const SocConfig& config, uint32_t block_dim);

}  // namespace aicore::sim
