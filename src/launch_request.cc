// LaunchRequest -> the simulator's launch (see launch_request.h).
#include "src/launch_request.h"

#include <algorithm>
#include <string>

#include "report.pb.h"
#include "sim/core/check_level_wire.h"

namespace aicore::daemon {

namespace svc = aicore::service::v1;

sim::Status ToArgValues(const google::protobuf::RepeatedPtrField<svc::KernelArg>& wire,
                        std::vector<sim::ArgValue>* out) {
  out->clear();
  out->reserve(wire.size());
  for (int i = 0; i < wire.size(); ++i) {
    const svc::KernelArg& arg = wire.Get(i);
    switch (arg.value_case()) {
      case svc::KernelArg::kIntValue:
        out->push_back(sim::ArgValue::Int(arg.int_value()));
        break;
      case svc::KernelArg::kFloatValue:
        out->push_back(sim::ArgValue::Float(arg.float_value()));
        break;
      case svc::KernelArg::kAddress:
        out->push_back(sim::ArgValue::Address(arg.address()));
        break;
      default:
        return sim::InvalidArgument("args[" + std::to_string(i) +
                                    "] has no value: set int_value, float_value or address");
    }
  }
  return sim::Status::Ok();
}

sim::Status ToHostLaunch(const svc::LaunchOptions& requested, const LaunchDefaults& defaults,
                         sim::HostLaunch* launch) {
  const uint64_t asked = requested.max_cycles();
  if (asked == 0) {
    launch->max_cycles = defaults.max_cycles;
  } else {
    launch->max_cycles = defaults.max_cycles == 0 ? asked : std::min(defaults.max_cycles, asked);
  }
  launch->record_timeline = requested.record_timeline();
  launch->timing_only = requested.timing_only();
  // LaunchOptions.check, else the daemon's --check.
  static_assert(aicore::report::v1::CHECK_STRICT_ALL == sim::kMaxWireCheckLevel);
  const int level = static_cast<int>(requested.check());
  if (!sim::CheckLevelFromWire(level, defaults.check, &launch->check)) {
    return sim::InvalidArgument("LaunchOptions.check = " + std::to_string(level) +
                                " is not a CheckLevel value");
  }
  return sim::Status::Ok();
}

}  // namespace aicore::daemon
