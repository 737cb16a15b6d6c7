// Writes a launch's trace on the client's host for both transports, with the shared error
// wording; a remote report is turned back into a LaunchResult by sim::FromProto.
#include "runtime/src/trace_output.h"

#include "sim/bridge/bridge.h"
#include "sim/trace/trace_writer.h"

namespace aicore::runtime {

namespace rpt = aicore::report::v1;

sim::Status WriteLaunchTrace(const sim::LaunchResult& result, const std::string& trace_dir) {
  sim::TraceRequest request;
  request.dir = trace_dir;
  auto written = sim::WriteTrace(result, request);
  if (written.ok()) return sim::Status::Ok();
  return sim::Status(written.status().code(),
                     "kernel " + result.kernel_name +
                         " ran (device memory holds its results), but its trace was not "
                         "written: " +
                         written.status().message());
}

sim::Status WriteLaunchTrace(const rpt::LaunchReport& report, const std::string& trace_dir) {
  return WriteLaunchTrace(sim::FromProto(report), trace_dir);
}

}  // namespace aicore::runtime
