// The HardEvent table (hardware-910b.md 3.3): each value names a (source pipe, destination pipe)
// pair and which core types support it. set_flag runs on the source pipe, wait_flag on the
// destination pipe; everything else indexes this table.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/isa/core_type.h"
#include "sim/isa/pipe_id.h"

namespace aicore::sim {

inline constexpr uint32_t kNumHardEvents = 35;

struct HardEventInfo {
  std::string_view name;  // "MTE2_V"
  PipeId src;
  PipeId dst;
  bool on_aiv;  // valid on a vector core (13 pairs)
  bool on_aic;  // valid on a cube core (24 pairs)
};

// Precondition: event < kNumHardEvents.
const HardEventInfo& HardEvent(uint32_t event);

// True if `event` may be used on a `type` core.
inline bool ValidOn(const HardEventInfo& event, CoreType type) {
  return type == CoreType::kAiv ? event.on_aiv : event.on_aic;
}

// The HardEvent from `src` to `dst` valid on a `type` core, -1 when there is none.
int HardEventBetween(PipeId src, PipeId dst, CoreType type);

}  // namespace aicore::sim
