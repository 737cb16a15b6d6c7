// The client runtime: set_platform, device memory, streams, kernel launch, synchronize. Two
// transports behind one interface: embedded (the simulator in this process, the default) and
// remote (gRPC to an aicore-simd daemon, chosen by AICORE_SIM_ADDRESS=HOST:PORT). gRPC never
// appears in this header.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aicore/status.h"

namespace aicore::runtime {

// The version of this runtime library, "X.Y.Z": the project's VERSION file when it was built.
// aicore/version.h's AICORE_SIM_VERSION is the version of the headers a program compiled with.
std::string Version();

// A runtime kernel argument, in the order of the kernel's params.
struct ArgValue {
  enum class Kind { kInt, kFloat, kAddress };
  Kind kind = Kind::kInt;
  int64_t int_value = 0;
  double float_value = 0;
  uint64_t address = 0;  // a device (GM) address from Malloc

  static ArgValue Int(int64_t v) { return {Kind::kInt, v, 0, 0}; }
  static ArgValue Float(double v) { return {Kind::kFloat, 0, v, 0}; }
  static ArgValue Address(uint64_t a) { return {Kind::kAddress, 0, 0, a}; }
};

// How much checking a launch asks for (docs/checkers.md). kDefault: AICORE_SIM_CHECK when it is
// set, else the transport's default (embedded: warn; remote: the daemon's --check). kOff runs no
// race, initialisation or sync-hygiene checks; kWarn reports what they find; kStrict and
// kStrictAll also mark the report failed (LaunchReport.check.failed) on any race or error, or on
// any finding at all.
enum class CheckLevel { kDefault, kOff, kWarn, kStrict, kStrictAll };

// "off", "warn", "strict", "strict-all" (AICORE_SIM_CHECK's values) -> the level; false otherwise.
bool ParseCheckLevel(const std::string& text, CheckLevel* out);

// Per-launch settings shared by both transports.
struct LaunchSettings {
  uint64_t max_cycles = 0;       // 0 = the transport's default
  bool record_timeline = false;  // fill LaunchReport.timeline (one record per pipe instruction)
  // When set, the launch also writes msprof-style trace files to <trace_dir>/OPPROF_<kernel>_<n>/
  // on this host (docs/traces.md), whichever transport runs the kernel. The timeline this needs is
  // recorded either way, but stays out of the returned report unless record_timeline is set.
  std::string trace_dir;
  CheckLevel check = CheckLevel::kDefault;
  // Skip the element math no scalar read needs: the cycles of a full run, but device memory
  // does not receive the kernel's results (docs/timing_only.md).
  bool timing_only = false;
};

class Runtime {
 public:
  virtual ~Runtime() = default;

  // Embedded unless AICORE_SIM_ADDRESS is set in the environment (then remote to that address).
  // CreateRemote's `address` is HOST:PORT, a comma-separated list of them, or dns:///NAME:PORT
  // (every address record of NAME a daemon): the session is pinned to one daemon, the next of a
  // process-wide round robin that answers (docs/daemon.md "Several daemons").
  // `config_overrides`: figures over the platform's for this runtime only, in the platform
  // file's text format (docs/timing-model.md "Config overrides"); empty for none.
  static StatusOr<std::unique_ptr<Runtime>> Create(const std::string& platform,
                                                   const std::string& config_overrides = "");
  static StatusOr<std::unique_ptr<Runtime>> CreateEmbedded(
      const std::string& platform, const std::string& config_overrides = "");
  static StatusOr<std::unique_ptr<Runtime>> CreateRemote(const std::string& platform,
                                                         const std::string& address,
                                                         const std::string& config_overrides = "");
  // Platform names this build simulates ("Ascend910B1", ...), sorted.
  static std::vector<std::string> ListPlatforms();

  virtual std::string transport() const = 0;  // "embedded" or "remote HOST:PORT"
  virtual const std::string& platform() const = 0;

  virtual StatusOr<uint64_t> Malloc(uint64_t bytes) = 0;
  virtual Status Free(uint64_t address) = 0;
  virtual Status MemcpyToDevice(uint64_t dst, const void* src, uint64_t bytes) = 0;
  virtual Status MemcpyToHost(void* dst, uint64_t src, uint64_t bytes) = 0;

  // Streams order launches; stream 0 is the default stream and always exists.
  virtual StatusOr<uint32_t> CreateStream() = 0;
  virtual Status DestroyStream(uint32_t stream) = 0;

  // `kernel_ir` is a serialized aicore.ir.v1.Kernel. Returns a serialized
  // aicore.report.v1.LaunchReport (with the resolved SoC config and its hash); a kernel fault is
  // reported inside it, not as an error.
  virtual StatusOr<std::string> Launch(const std::string& kernel_ir, uint32_t block_dim,
                                       const std::vector<ArgValue>& args, uint32_t stream,
                                       const LaunchSettings& settings) = 0;
  virtual Status Synchronize(uint32_t stream) = 0;
};

}  // namespace aicore::runtime
