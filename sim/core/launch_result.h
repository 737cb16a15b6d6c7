// What a launch returns, as plain structs: status, cycles, per-core and per-pipe statistics,
// diagnostics and the optional instruction timeline. Every unit that records results includes
// this header only, not the device API (sim/bridge converts these to aicore.report.v1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aicore::sim {

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

}  // namespace aicore::sim
