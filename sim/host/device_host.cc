// The launch path shared by the embedded runtime and the daemon (see device_host.h).
#include "sim/host/device_host.h"

#include "aicore/version.h"
#include "sim/bridge/bridge.h"
#include "sim/host/trace_output.h"

namespace aicore::sim {

DeviceHost::DeviceHost(SocConfig config) : device_(std::move(config)) {
  ToProto(device_.config(), &config_proto_);
  config_hash_ = ConfigHash(device_.config());
}

Status DeviceHost::Launch(ProgramCache& programs, const std::string& serialized,
                          const aicore::ir::v1::Kernel* parsed, const HostLaunch& launch,
                          aicore::report::v1::LaunchReport* report, std::string* trace_folder) {
  auto program = programs.Get(serialized, parsed);
  if (!program.ok()) return program.status();
  LaunchOptions options;
  options.max_cycles = launch.max_cycles;
  // A trace needs the timeline even when the caller does not want it in the report.
  options.record_timeline = launch.record_timeline || !launch.trace_dir.empty();
  options.cancel = launch.cancel;
  options.progress = launch.progress;
  options.check = launch.check;
  options.timing_only = launch.timing_only;
  StatusOr<LaunchResult> result = device_.Launch(**program, launch.block_dim, launch.args, options);
  if (!result.ok()) return result.status();
  if (!launch.trace_dir.empty()) {
    StatusOr<std::string> folder =
        WriteLaunchTrace(*result, launch.trace_dir, launch.trace_failure, launch.trace_root);
    if (!folder.ok()) return folder.status();
    if (trace_folder != nullptr) *trace_folder = *folder;
    if (!launch.record_timeline) result->timeline.clear();
  }
  ToProto(*result, report);
  *report->mutable_config() = config_proto_;
  report->set_config_hash(config_hash_);
  report->set_simulator_version(AICORE_SIM_VERSION);
  return Status::Ok();
}

}  // namespace aicore::sim
