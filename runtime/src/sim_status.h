// The embedded transport's bridge between the simulator's types and the runtime's public ones
// (aicore/runtime.h keeps sim/ out of its headers): statuses keep code and message, arguments
// keep kind and value.
#pragma once

#include <vector>

#include "aicore/runtime.h"
#include "sim/core/check_level_wire.h"
#include "sim/core/status.h"
#include "sim/soc/device.h"

namespace aicore::runtime {

inline Status FromSim(const sim::Status& status) {
  return Status(static_cast<StatusCode>(status.code()), status.message());
}

inline std::vector<sim::ArgValue> ToSim(const std::vector<ArgValue>& args) {
  std::vector<sim::ArgValue> out;
  out.reserve(args.size());
  for (const ArgValue& a : args) {
    out.push_back(
        {static_cast<sim::ArgValue::Kind>(a.kind), a.int_value, a.float_value, a.address});
  }
  return out;
}

// kDefault on the embedded transport is warn, the daemon's default too.
inline sim::CheckLevel ToSim(CheckLevel level) {
  sim::CheckLevel out = sim::CheckLevel::kWarn;
  sim::CheckLevelFromWire(static_cast<int>(level), sim::CheckLevel::kWarn, &out);
  return out;
}
static_assert(static_cast<int>(CheckLevel::kStrictAll) == sim::kMaxWireCheckLevel);

// The two enums name the same codes in the same order.
static_assert(static_cast<int>(StatusCode::kInternal) ==
              static_cast<int>(sim::StatusCode::kInternal));
static_assert(static_cast<int>(ArgValue::Kind::kAddress) ==
              static_cast<int>(sim::ArgValue::Kind::kAddress));

}  // namespace aicore::runtime
