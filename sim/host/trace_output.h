// Writes the trace a launch asked for (LaunchSettings.trace_dir, LaunchOptions.trace_dir), with
// one wording for every host: the embedded runtime and the daemon have the LaunchResult, the
// remote runtime only the LaunchReport the daemon returned, which sim::FromProto turns back into
// what the one trace writer (sim/trace) reads.
#pragma once

#include <string>

#include "report.pb.h"
#include "sim/core/launch_result.h"
#include "sim/core/status.h"

namespace aicore::sim {

// Writes <trace_dir>/OPPROF_<kernel>_<n>/ and returns that folder. A failure keeps its code and
// says the kernel did run, since device memory already holds its results; `writer` names who
// failed ("its trace was not written", "the daemon could not write its trace").
// `confine_root`, when given, is TraceRequest::confine_root.
StatusOr<std::string> WriteLaunchTrace(const LaunchResult& result, const std::string& trace_dir,
                                       const std::string& writer = "its trace was not written",
                                       const std::string& confine_root = "");
StatusOr<std::string> WriteLaunchTrace(const aicore::report::v1::LaunchReport& report,
                                       const std::string& trace_dir);

}  // namespace aicore::sim
