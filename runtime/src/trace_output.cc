// LaunchReport -> sim::LaunchResult for the trace writer, and the shared error wording. Kept in
// runtime/ because sim/ only meets protobuf in sim/bridge, which converts the other way.
#include "runtime/src/trace_output.h"

#include "sim/trace/trace_writer.h"

namespace aicore::runtime {

namespace rpt = aicore::report::v1;

sim::LaunchResult TraceInputFromReport(const rpt::LaunchReport& report) {
  sim::LaunchResult result;
  switch (report.status()) {
    case rpt::LaunchReport::KERNEL_FAULT:
      result.status = sim::LaunchResult::Status::kKernelFault;
      break;
    case rpt::LaunchReport::DEADLOCK:
      result.status = sim::LaunchResult::Status::kDeadlock;
      break;
    case rpt::LaunchReport::CYCLE_LIMIT_EXCEEDED:
      result.status = sim::LaunchResult::Status::kCycleLimitExceeded;
      break;
    default:
      result.status = sim::LaunchResult::Status::kOk;
  }
  result.kernel_name = report.kernel_name();
  result.platform = report.platform();
  result.block_dim = report.block_dim();
  result.cycles = report.cycles();
  result.duration_us = report.duration_us();
  result.clock_mhz = report.clock_mhz();
  result.simulated_instructions = report.simulated_instructions();
  result.cores.reserve(report.cores_size());
  for (const rpt::CoreStats& in : report.cores()) {
    sim::CoreStats& c = result.cores.emplace_back();
    c.core = in.core();
    c.core_type = in.core_type();
    c.block_idx = in.block_idx();
    c.cycles = in.cycles();
    c.queue_full_stall_cycles = in.queue_full_stall_cycles();
    for (const rpt::PipeStats& p : in.pipes()) {
      c.pipes.push_back(
          {p.pipe(), p.instructions(), p.busy_cycles(), p.wait_flag_cycles(), p.bytes()});
    }
  }
  result.timeline.reserve(report.timeline_size());
  for (const rpt::InstrRecord& in : report.timeline()) {
    sim::InstrRecord& r = result.timeline.emplace_back();
    r.core = in.core();
    r.block_idx = in.block_idx();
    r.pipe = in.pipe();
    r.op = in.op();
    r.op_index = in.op_index();
    r.location.file = in.location().file();
    r.location.line = in.location().line();
    r.location.column = in.location().column();
    r.issue_cycle = in.issue_cycle();
    r.start_cycle = in.start_cycle();
    r.end_cycle = in.end_cycle();
    r.detail = in.detail();
  }
  return result;
}

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
  return WriteLaunchTrace(TraceInputFromReport(report), trace_dir);
}

}  // namespace aicore::runtime
