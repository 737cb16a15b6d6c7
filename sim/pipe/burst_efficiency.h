// The timing mechanism "burst_efficiency": a route's engine rate as a function of the length of
// its bursts (docs/timing-model.md "Figure tables"). Short rows cost the engine more per byte
// than long ones on the chip (hardware-910b.md 6.2 and 7.2: Norm's 128 B rows against MDL's
// 512 B ones); the table "<route>.burst_efficiency" (columns burst_bytes, efficiency) scales the
// route row's core_bytes_per_cycle by the efficiency at a transfer's burst length. A route
// without the table keeps its row's rate.
#pragma once

#include "sim/pipe/transfer_cost.h"

namespace aicore::sim {

TransferMechanismSpec BurstEfficiencySpec();

}  // namespace aicore::sim
