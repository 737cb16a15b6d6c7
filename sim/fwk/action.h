// What a framework library call asks of the hardware: set_flag / wait_flag on the pipes of a
// HardEvent, or the PIPE_ALL drain of TPipe.destroy. The scalar unit turns each into a real
// pipe instruction, in order.
#pragma once

#include <cstdint>
#include <vector>

namespace aicore::sim {

struct FwkAction {
  enum class Kind : uint8_t {
    kSetFlag,     // on HardEvent(event).src
    kWaitFlag,    // on HardEvent(event).dst
    kBarrierAll,  // pipe_barrier(PIPE_ALL) on the scalar unit
  };
  Kind kind = Kind::kSetFlag;
  uint8_t event = 0;
  uint32_t id = 0;
};

using FwkActions = std::vector<FwkAction>;

}  // namespace aicore::sim
