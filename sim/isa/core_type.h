// The two kinds of AI Core on C220: vector cores (AIV) and cube cores (AIC). Which pipes,
// memories and data paths each has is its core spec (sim/soc/core_spec.h); which HardEvents are
// valid on it is in the HardEvent table (sim/sync/hard_event.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace aicore::sim {

enum class CoreType : uint8_t { kAiv = 0, kAic = 1 };

// "aiv" / "aic": the report's CoreStats.core_type.
inline constexpr std::string_view CoreTypeName(CoreType t) {
  return t == CoreType::kAiv ? "aiv" : "aic";
}

}  // namespace aicore::sim
