// A simulated device as the hosts use it: the embedded runtime and each daemon session hold one.
// It owns the sim::Device and the resolved config (as a message, with its hash, computed once)
// and runs the one launch path both hosts share: decode through the program cache, launch, write
// the trace, and fill the LaunchReport with the results and the config they were computed on.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "kernel.pb.h"
#include "report.pb.h"
#include "sim/core/status.h"
#include "sim/host/program_cache.h"
#include "sim/soc/device.h"
#include "soc_config.pb.h"

namespace aicore::sim {

// One launch as a host asks for it.
struct HostLaunch {
  uint32_t block_dim = 0;
  std::vector<ArgValue> args;
  uint64_t max_cycles = 0;       // 0 = none
  bool record_timeline = false;  // keep the timeline in the returned report
  std::string trace_dir;         // on this host, already checked by the caller; "" = no trace
  std::string trace_root;        // if set, trace_dir lies below it: see TraceRequest::confine_root
  // Completes "kernel K ran (device memory holds its results), but ...: why" when the trace
  // cannot be written.
  std::string trace_failure = "its trace was not written";
  const std::atomic<bool>* cancel = nullptr;  // see LaunchOptions::cancel
  LaunchProgress* progress = nullptr;         // see LaunchOptions::progress
  CheckLevel check = CheckLevel::kWarn;
  bool timing_only = false;  // see LaunchOptions::timing_only
};

class DeviceHost {
 public:
  explicit DeviceHost(SocConfig config);

  Device& device() { return device_; }
  const SocConfig& config() const { return device_.config(); }
  const aicore::config::v1::SocConfig& config_proto() const { return config_proto_; }
  const std::string& config_hash() const { return config_hash_; }

  // Runs `serialized` (an aicore.ir.v1.Kernel; `parsed` may point at the same kernel already
  // parsed) and fills `report`. A kernel fault is a report status, not an error; errors are bad
  // IR or arguments (InvalidArgument), a cancel (FailedPrecondition "cancelled"), a trace that
  // could not be written after the kernel ran, and simulator bugs (Internal). `trace_folder`,
  // when given, receives the folder written.
  Status Launch(ProgramCache& programs, const std::string& serialized,
                const aicore::ir::v1::Kernel* parsed, const HostLaunch& launch,
                aicore::report::v1::LaunchReport* report, std::string* trace_folder = nullptr);

 private:
  Device device_;
  aicore::config::v1::SocConfig config_proto_;
  std::string config_hash_;
};

}  // namespace aicore::sim
