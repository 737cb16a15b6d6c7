// Check levels as clients send them (report.proto's CheckLevel, aicore::runtime::CheckLevel):
// 0 asks for the host's default, 1..4 are the model's levels off..strict-all plus one. The one
// mapping both hosts (the daemon and the embedded runtime) use.
#pragma once

#include "sim/core/launch_result.h"

namespace aicore::sim {

inline constexpr int kMaxWireCheckLevel = static_cast<int>(CheckLevel::kStrictAll) + 1;

// The model's level for `wire`, `host_default` for 0; false when `wire` is no level.
inline bool CheckLevelFromWire(int wire, CheckLevel host_default, CheckLevel* out) {
  if (wire < 0 || wire > kMaxWireCheckLevel) return false;
  *out = wire == 0 ? host_default : static_cast<CheckLevel>(wire - 1);
  return true;
}

}  // namespace aicore::sim
