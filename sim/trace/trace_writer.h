// Writes a launch's timeline as msprof op simulator output (hardware-910b.md section 8), so the
// tools and scripts people already use on msprof results (Perfetto, chrome://tracing, MindStudio
// Insight's JSON import, the pyasc profiling scripts) work on simulated runs. See docs/traces.md.
#pragma once

#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/launch_result.h"
#include "sim/core/status.h"

namespace aicore::sim {

// One file of a rendered trace; `path` is relative to the launch folder and uses '/'.
struct TraceFile {
  std::string path;
  std::string contents;
};

struct TraceRequest {
  std::string dir;          // parent folder (created if missing); the launch folder goes inside
  std::string kernel_name;  // empty: result.kernel_name
  double clock_mhz = 0;     // 0: result.clock_mhz. Converts cycles to microseconds.
  // When set, `dir` must lie below it and every folder from here down is opened without
  // following a symlink (a daemon's --trace-root: no link inside it leads out).
  std::string confine_root;
};

// Renders every file of one launch folder from `result` (which should carry a timeline; without
// one only the summary CSVs have content). Pure and deterministic: the same result gives
// byte-identical files. Files, in this order:
//   OpBasicInfo.csv, PipeUtilization.csv                    on-board msprof summaries
//   simulator/trace.json                                    all cores merged
//   simulator/<core>/trace.json, <core>_instr_exe.csv, <core>_code_exe.csv   per core
// where <core> is core<i>.veccore<j> for AIV core 2i+j and core<i>.cubecore0 for AIC core i.
// InvalidArgument when the clock is not positive.
StatusOr<std::vector<TraceFile>> RenderTrace(const LaunchResult& result,
                                             const std::string& kernel_name, double clock_mhz);

// Renders the trace and writes it to <dir>/<kernel>_<n>/, n being the first index whose folder
// does not exist yet (claimed atomically, so concurrent writers never share a folder), with the
// same bytes as RenderTrace. One file at a time, the JSON streamed event by event, so a launch
// of millions of instructions needs little memory beyond its result. Returns the launch
// folder's path. FailedPrecondition naming the path when a folder or file cannot be
// written.
StatusOr<std::string> WriteTrace(const LaunchResult& result, const TraceRequest& request);

// The same with the clock of the platform the kernel ran on.
StatusOr<std::string> WriteTrace(const LaunchResult& result, const SocConfig& config,
                                 const std::string& dir);

}  // namespace aicore::sim
