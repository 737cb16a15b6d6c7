// Launch traces for every host (see trace_output.h).
#include "sim/host/trace_output.h"

#include "sim/bridge/bridge.h"
#include "sim/trace/trace_writer.h"

namespace aicore::sim {

StatusOr<std::string> WriteLaunchTrace(const LaunchResult& result, const std::string& trace_dir,
                                       const std::string& writer, const std::string& confine_root) {
  TraceRequest request;
  request.dir = trace_dir;
  request.confine_root = confine_root;
  auto written = WriteTrace(result, request);
  if (written.ok()) return written;
  return Status(written.status().code(), "kernel " + result.kernel_name +
                                             " ran (device memory holds its results), but " +
                                             writer + ": " + written.status().message());
}

StatusOr<std::string> WriteLaunchTrace(const aicore::report::v1::LaunchReport& report,
                                       const std::string& trace_dir) {
  return WriteLaunchTrace(FromProto(report), trace_dir);
}

}  // namespace aicore::sim
