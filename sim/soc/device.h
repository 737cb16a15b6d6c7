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
#include "sim/core/status.h"

namespace aicore::sim {

class Program;       // a decoded, validated kernel (sim/isa/program.h)
class GlobalMemory;  // the device's GM (sim/mem/global_memory.h)

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
};

struct SourcePoint {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
};

// When one pipe instruction was issued, started and ended (LaunchOptions::record_timeline).
// Cycles count from the first instruction of the launch (launch overhead excluded).
struct InstrRecord {
  uint32_t core = 0;
  uint32_t block_idx = 0;
  std::string pipe;       // "V", "MTE2", ...
  std::string op;         // mnemonic: "add", "data_copy", "wait_flag" ...
  uint32_t op_index = 0;  // pre-order index of the op in the kernel IR
  SourcePoint location;
  uint64_t issue_cycle = 0;  // the scalar unit pushed it into the pipe's queue
  uint64_t start_cycle = 0;  // it began executing (sources read)
  uint64_t end_cycle = 0;    // its destination was written / its flag fired
  std::string detail;        // e.g. "MTE2_V id=0"; "inserted by auto_sync" for inserted syncs
};

// Mirrors aicore.report.v1.Diagnostic (sim/bridge converts).
struct Diagnostic {
  enum class Severity { kWarning, kError };
  enum class Kind {
    kDeadlock,
    kOutOfBounds,
    kGmOutOfBounds,
    kGmSlackAccess,
    kInvalidOperand,
    kCycleLimit,
    kFlagOverflow,
    kUnmatchedFlag,
  };
  Severity severity = Severity::kError;
  Kind kind = Kind::kDeadlock;
  std::string message;  // cause, place (core, pipe, op, address range, source line) and fix
  int32_t core = -1;
  std::string pipe;
  std::string op;
  SourcePoint location;
  uint64_t cycle = 0;
};

struct PipeStats {
  std::string pipe;  // "S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"
  uint64_t instructions = 0;
  uint64_t busy_cycles = 0;
  uint64_t wait_flag_cycles = 0;
  uint64_t bytes = 0;
  // Stall causes besides wait_flag_cycles (docs/timing-model.md "Statistics").
  uint64_t queue_full_stall_cycles = 0;  // the scalar unit waited for space in this queue
  uint64_t bandwidth_stall_cycles = 0;   // DMA time beyond the engine's own streaming time
  uint64_t bank_conflict_cycles = 0;     // V: extra cycles from UB bank-group conflicts
  uint64_t l2_hit_bytes = 0;             // GM bytes served by L2
  uint64_t hbm_read_bytes = 0;           // HBM traffic this pipe caused (fills, bypass)
  uint64_t hbm_write_bytes = 0;          // (bypass writes, dirty evictions)
};

struct CoreStats {
  uint32_t core = 0;
  std::string core_type;  // "aiv" / "aic"
  uint32_t block_idx = 0;
  uint64_t cycles = 0;
  uint64_t queue_full_stall_cycles = 0;
  std::vector<PipeStats> pipes;
};

struct LaunchResult {
  enum class Status { kOk, kKernelFault, kDeadlock, kCycleLimitExceeded };
  Status status = Status::kOk;
  std::string kernel_name;
  std::string platform;
  uint32_t block_dim = 0;
  uint64_t cycles = 0;
  double duration_us = 0;
  double clock_mhz = 0;
  std::vector<CoreStats> cores;
  std::vector<Diagnostic> diagnostics;
  uint64_t simulated_instructions = 0;
  std::vector<InstrRecord> timeline;  // empty unless LaunchOptions::record_timeline
};

class Device {
 public:
  explicit Device(SocConfig config);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const SocConfig& config() const { return config_; }

  // Device memory. Addresses are aligned and padded as config().gm says; Free and Read/Write of
  // an address outside every allocation fail with NotFound / InvalidArgument.
  StatusOr<uint64_t> Malloc(uint64_t bytes);
  Status Free(uint64_t address);
  Status Write(uint64_t address, const void* src, uint64_t bytes);
  Status Read(uint64_t address, void* dst, uint64_t bytes) const;
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
