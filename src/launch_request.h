// A LaunchRequest's arguments and options in the simulator's terms: the conversion the session
// Launch handlers and the one-shot Run share with the service fuzz target (tests/fuzz), which is
// why it needs neither gRPC nor a running service, only sim/ and the generated messages.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/status.h"
#include "sim/host/device_host.h"
#include "simulator.pb.h"

namespace aicore::daemon {

// KernelArg -> sim::ArgValue, in order; InvalidArgument naming the first argument with no value.
sim::Status ToArgValues(
    const google::protobuf::RepeatedPtrField<aicore::service::v1::KernelArg>& wire,
    std::vector<sim::ArgValue>* out);

// What the daemon's flags supply when LaunchOptions leaves a field unset.
struct LaunchDefaults {
  uint64_t max_cycles = 0;                         // --max-cycles; 0 = none
  sim::CheckLevel check = sim::CheckLevel::kWarn;  // --check
};

// LaunchOptions -> sim::HostLaunch: the cycle cap (the smaller of the client's and the daemon's),
// timeline, timing-only and check level. Leaves trace_dir, cancel and progress to the caller;
// InvalidArgument for a check level outside the CheckLevel enum.
sim::Status ToHostLaunch(const aicore::service::v1::LaunchOptions& requested,
                         const LaunchDefaults& defaults, sim::HostLaunch* launch);

}  // namespace aicore::daemon
