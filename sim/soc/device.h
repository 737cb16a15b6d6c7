// The simulator's public API: one simulated Ascend device (its SoC config and its GM) on which
// decoded kernels are launched. The daemon (src/) and the embedded runtime (runtime/) are thin
// hosts around this class, so both give bit-identical results and cycle counts.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/launch_progress.h"
#include "sim/core/launch_result.h"
#include "sim/core/status.h"

namespace aicore::sim {

class Program;       // a decoded, validated kernel (sim/isa/program.h)
class GlobalMemory;  // the device's GM (sim/mem/global_memory.h)
struct CoreSpec;     // what a core is made of (sim/soc/core_spec.h)

// A runtime kernel argument, in the order of the kernel's params.
struct ArgValue {
  enum class Kind { kInt, kFloat, kAddress };
  Kind kind = Kind::kInt;
  int64_t int_value = 0;
  double float_value = 0;
  uint64_t address = 0;

  static ArgValue Int(int64_t v) { return {Kind::kInt, v, 0, 0}; }
  static ArgValue Float(double v) { return {Kind::kFloat, 0, v, 0}; }
  static ArgValue Address(uint64_t a) { return {Kind::kAddress, 0, 0, a}; }
};

struct LaunchOptions {
  uint64_t max_cycles = 0;  // 0 = no limit besides the config's default
  // Fill LaunchResult::timeline with one record per pipe instruction (for traces and timing
  // tests); off by default because it allocates per instruction.
  bool record_timeline = false;
  // Polled while the launch runs (every few thousand events or scalar ops); when it becomes true
  // the launch stops and Launch returns FailedPrecondition "cancelled". Lets a host enforce wall
  // time limits and client deadlines. Must outlive the call.
  const std::atomic<bool>* cancel = nullptr;
  // When set, receives a snapshot of the launch's progress every few thousand events and a last
  // one (stopped = true) when it ends, however it ends: a cancelled launch's last snapshot holds
  // the cycle it reached. Must outlive the call.
  LaunchProgress* progress = nullptr;
  // Which checks run (races, initialisation, sync hygiene); faults are reported at every level.
  CheckLevel check = CheckLevel::kWarn;
  // The composition of the vector cores (pipes, memories, data paths); nullptr: the platform's,
  // CoreSpecFor(CoreType::kAiv, config). Lets tests and what-if studies compose their own core.
  // Must outlive the call.
  const CoreSpec* vector_core = nullptr;
  // Skip the element math of every instruction whose sources the launch did not compute (the
  // host's tensors copied into a core are the first such), keeping every instruction's timing:
  // the cycles of the full run, without its results. A scalar read of such bytes stops the
  // launch with TIMING_ONLY_READ (docs/timing_only.md).
  bool timing_only = false;
};

class Device {
 public:
  explicit Device(SocConfig config);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const SocConfig& config() const { return config_; }

  // Device memory. Each allocation starts its own block of config().gm_alloc_block_bytes (see
  // sim/mem/global_memory.h); Free of an address that is no allocation's start and Read/Write
  // outside mapped memory fail with NotFound / InvalidArgument.
  StatusOr<uint64_t> Malloc(uint64_t bytes);
  Status Free(uint64_t address);
  // Host copies stay inside one allocation: the one holding `call_start` (a chunked call's first
  // address; by default the copy's own), within its requested size.
  Status Write(uint64_t address, const void* src, uint64_t bytes,
               uint64_t call_start = ~uint64_t{0});
  Status Read(uint64_t address, void* dst, uint64_t bytes,
              uint64_t call_start = ~uint64_t{0}) const;
  uint64_t bytes_allocated() const;

  // Runs `program` on `block_dim` cores to completion (or fault/deadlock/limit). A kernel fault is
  // not an error status: it comes back in LaunchResult::status and diagnostics. Errors (bad
  // arguments for this program) come back as a non-ok status.
  StatusOr<LaunchResult> Launch(const Program& program, uint32_t block_dim,
                                const std::vector<ArgValue>& args, const LaunchOptions& options);

 private:
  SocConfig config_;
  std::unique_ptr<GlobalMemory> gm_;
};

}  // namespace aicore::sim
