// Writes the trace LaunchSettings.trace_dir asks for, on the client's host, for both transports:
// the embedded one has the simulator's LaunchResult, the remote one only the LaunchReport the
// daemon returned, which is turned back into what the one trace writer (sim/trace) reads.
#pragma once

#include <string>

#include "report.pb.h"
#include "sim/core/status.h"
#include "sim/soc/device.h"

namespace aicore::runtime {

// Writes <trace_dir>/<kernel>_<n>/. A failure keeps its code and says the kernel did run, since
// device memory already holds its results.
sim::Status WriteLaunchTrace(const sim::LaunchResult& result, const std::string& trace_dir);
sim::Status WriteLaunchTrace(const aicore::report::v1::LaunchReport& report,
                             const std::string& trace_dir);

}  // namespace aicore::runtime
