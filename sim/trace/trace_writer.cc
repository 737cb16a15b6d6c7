// The msprof op simulator folder of one launch (hardware-910b.md section 8): which file holds
// which format and where, and writing them under a freshly claimed OPPROF_<kernel>_<n> folder.
// Each format renders in its own unit (chrome_json, msprof_csv) from one shared trace_layout.
#include "sim/trace/trace_writer.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <ostream>
#include <sstream>
#include <utility>
#include <vector>

#include "sim/trace/chrome_json.h"
#include "sim/trace/confined_dir.h"
#include "sim/trace/msprof_csv.h"
#include "sim/trace/trace_layout.h"

namespace aicore::sim {
namespace {

namespace fs = std::filesystem;

// A folder name from a kernel name: Python identifiers pass unchanged; path separators and
// other bytes become '_', and a leading dot is escaped so the folder is never hidden or "..".
std::string FolderName(const std::string& kernel_name) {
  std::string out;
  for (char c : kernel_name) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    out.push_back(keep ? c : '_');
  }
  if (out.empty()) return "kernel";
  if (out[0] == '.') out[0] = '_';
  return out;
}

Status CheckClock(const std::string& kernel_name, double clock_mhz) {
  if (clock_mhz > 0 && std::isfinite(clock_mhz)) return Status::Ok();
  return InvalidArgument("trace of " + kernel_name +
                         ": the clock must be a positive MHz value, "
                         "got " +
                         trace::FormatDouble(clock_mhz) +
                         " (set SocConfig.clock_mhz or TraceRequest.clock_mhz)");
}

// One file of the launch folder and how to produce it. Files are produced one at a time and
// the trace JSON streams, so writing a launch of millions of instructions holds no file whole.
struct PlannedFile {
  std::string path;
  std::function<void(std::ostream&)> write;
};

// The files of RenderTrace, in its order. `result` and `layout` must outlive the plan.
std::vector<PlannedFile> PlanFiles(const LaunchResult& result, const trace::Layout& layout,
                                   const std::string& kernel_name, double clock_mhz) {
  std::vector<PlannedFile> files;
  files.push_back({"OpBasicInfo.csv", [&result, kernel_name, clock_mhz](std::ostream& out) {
                     out << trace::OpBasicInfoCsv(result, kernel_name, clock_mhz);
                   }});
  files.push_back({"PipeUtilization.csv", [&result, clock_mhz](std::ostream& out) {
                     out << trace::PipeUtilizationCsv(result, clock_mhz);
                   }});
  files.push_back({"simulator/trace.json",
                   [&layout](std::ostream& out) { trace::WriteMergedTraceJson(layout, out); }});
  for (size_t c = 0; c < layout.cores.size(); ++c) {
    const std::string name = layout.cores[c].Name();
    const std::string folder = "simulator/" + name + "/";
    files.push_back({folder + "trace.json", [&layout, c](std::ostream& out) {
                       trace::WriteCoreTraceJson(layout, c, out);
                     }});
    files.push_back({folder + name + "_instr_exe.csv",
                     [&layout, c](std::ostream& out) { out << trace::InstrExeCsv(layout, c); }});
    files.push_back({folder + name + "_code_exe.csv",
                     [&layout, c](std::ostream& out) { out << trace::CodeExeCsv(layout, c); }});
  }
  return files;
}

}  // namespace

StatusOr<std::vector<TraceFile>> RenderTrace(const LaunchResult& result,
                                             const std::string& kernel_name, double clock_mhz) {
  if (Status clock = CheckClock(kernel_name, clock_mhz); !clock.ok()) return clock;
  const trace::Layout layout = trace::BuildLayout(result, clock_mhz);
  std::vector<TraceFile> files;
  for (const PlannedFile& planned : PlanFiles(result, layout, kernel_name, clock_mhz)) {
    std::ostringstream text;
    planned.write(text);
    files.push_back({planned.path, std::move(text).str()});
  }
  return files;
}

StatusOr<std::string> WriteTrace(const LaunchResult& result, const TraceRequest& request) {
  const std::string kernel_name =
      !request.kernel_name.empty() ? request.kernel_name
                                   : (!result.kernel_name.empty() ? result.kernel_name : "kernel");
  const double mhz = request.clock_mhz > 0 ? request.clock_mhz : result.clock_mhz;
  if (Status clock = CheckClock(kernel_name, mhz); !clock.ok()) return clock;
  if (request.dir.empty()) return InvalidArgument("trace of " + kernel_name + ": empty trace_dir");

  // Folders and files by descriptor, never through a symlink below the parent folder (and with
  // confine_root, none below the root either).
  StatusOr<ConfinedDir> parent = InvalidArgument("");
  if (request.confine_root.empty()) {
    parent = ConfinedDir::Open(request.dir);
  } else {
    const fs::path inside = fs::path(request.dir).lexically_relative(request.confine_root);
    if (inside.empty() || *inside.begin() == "..") {
      return InvalidArgument("trace folder " + request.dir + " is not below " +
                             request.confine_root);
    }
    parent = ConfinedDir::OpenBelow(request.confine_root, inside.string());
  }
  if (!parent.ok()) return parent.status();
  // A folder that mkdir creates is this writer's alone, which makes claiming an index atomic
  // between processes tracing into the same folder.
  const std::string base = FolderName(kernel_name);
  StatusOr<ConfinedDir> launch_dir = InvalidArgument("");
  for (uint64_t n = 0;; ++n) {
    bool created = false;
    launch_dir = parent->Sub("OPPROF_" + base + "_" + std::to_string(n), &created);
    if (!launch_dir.ok() || created) break;
  }
  if (!launch_dir.ok()) return launch_dir.status();
  const trace::Layout layout = trace::BuildLayout(result, mhz);
  for (const PlannedFile& file : PlanFiles(result, layout, kernel_name, mhz)) {
    // "simulator/<core>/trace.json": the folders, then the file.
    const fs::path path(file.path);
    std::vector<std::string> parts;
    for (const auto& part : path) parts.push_back(part.string());
    const ConfinedDir* into = &*launch_dir;
    std::vector<ConfinedDir> opened;
    opened.reserve(parts.size());
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      StatusOr<ConfinedDir> sub = into->Sub(parts[i]);
      if (!sub.ok()) return sub.status();
      opened.push_back(std::move(*sub));
      into = &opened.back();
    }
    if (Status s = into->WriteFile(parts.back(), file.write); !s.ok()) return s;
  }
  return launch_dir->path();
}

StatusOr<std::string> WriteTrace(const LaunchResult& result, const SocConfig& config,
                                 const std::string& dir) {
  TraceRequest request;
  request.dir = dir;
  request.clock_mhz = config.clock_mhz;
  return WriteTrace(result, request);
}

}  // namespace aicore::sim
