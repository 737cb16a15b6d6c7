// What a launch returns, as plain structs: status, cycles, per-core and per-pipe statistics,
// diagnostics and the optional instruction timeline. Every unit that records results includes
// this header only, not the device API (sim/bridge converts these to aicore.report.v1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
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
  // set_flag / wait_flag: the flag's HardEvent value and id (traces join a set with its wait by
  // them); -1 for every other instruction.
  int32_t flag_event = -1;
  uint32_t flag_id = 0;
  // A passed cross_core_wait_flag: the core whose cross_core_set_flag released it (-1: none)
  // and the cycle that set fired.
  int32_t released_by_core = -1;
  uint64_t released_by_cycle = 0;
};

// One piece of device output (printf, dump_tensor, print_time_stamp), as the host prints it.
// Mirrors aicore.report.v1.DebugOutput.
struct DebugRecord {
  enum class Kind : int { kPrintf = 1, kDumpTensor = 2, kTimeStamp = 3, kTruncated = 4 };
  uint32_t core = 0;
  uint32_t block_idx = 0;
  uint64_t cycle = 0;
  SourcePoint location;
  std::string text;
  Kind kind = Kind::kPrintf;
};

// A part of a diagnostic's message that merging rewrites: where it starts and how long it is;
// `pos` is npos when the message has no such part.
struct MessageSpan {
  size_t pos = std::string::npos;
  size_t len = 0;
};

// Mirrors aicore.report.v1.Diagnostic (sim/bridge converts).
struct Diagnostic {
  // kNote: a finding that changes no result (two cores writing identical bytes): counted and
  // reported, shown only on request, failed only by strict-all.
  enum class Severity { kWarning, kError, kNote };
  // Values are aicore.report.v1.Diagnostic.Kind's.
  enum class Kind : int {
    kDeadlock = 1,
    kOutOfBounds = 2,
    kGmOutOfBounds = 3,
    kGmOverrun = 4,  // past a tensor, in mapped memory (warning)
    kInvalidOperand = 5,
    kCycleLimit = 6,
    kFlagOverflow = 7,
    kUnmatchedFlag = 8,
    kRace = 9,                // conflicting accesses that no synchronisation orders (an error
                              // that does not stop the launch: the chip computes on)
    kGmSharedWrite = 10,      // two cores wrote identical bytes to one GM range (warning)
    kUninitializedRead = 11,  // bytes read before anything wrote them in this launch (warning)
    kUnallocatedBuffer = 12,  // access to a queue buffer no alloc_tensor handed out (warning)
    kTrap = 13,               // the kernel called trap() (error)
    kMemoryWatch = 14,        // an access check_local_memory_ia watches for (error)
    kTimingOnlyRead = 15      // a timing-only launch read bytes it did not compute (error)
  };
  Severity severity = Severity::kError;
  Kind kind = Kind::kDeadlock;
  std::string message;  // cause, place (core, pipe, op, address range, source line) and fix
  int32_t core = -1;
  std::string pipe;
  std::string op;
  SourcePoint location;
  uint64_t cycle = 0;
  // Every core that reported this finding: the findings of several cores at one place (same kind,
  // pipes, ops and lines) are merged into one whose message says "cores 0-7".
  std::vector<uint32_t> cores;
  // RACE and GM_SHARED_WRITE: "RAW", "WAR" or "WAW"; the other access; the memory and the range.
  std::string race;
  int32_t other_core = -1;
  std::vector<uint32_t> other_cores;  // of a merged finding: every other core, sorted
  std::string other_pipe;
  std::string other_op;
  SourcePoint other_location;
  std::string memory;  // "UB", "GM", ...
  uint64_t address_lo = 0, address_hi = 0;
  // The parts of `message` that name one core's view, so a merged finding can name all of them:
  // the site prefix ("core 3 (block 3) PIPE_V add at add.py:14, cycle 120"), the byte range
  // ("GM[0x100, 0x200)") and the other side's core ("core 1's" in "core 1's PIPE_MTE3 ...").
  MessageSpan site;
  MessageSpan range;
  MessageSpan other;
};

// "RACE", "DEADLOCK" ...: the proto enum's name of `kind`.
std::string_view DiagnosticKindName(Diagnostic::Kind kind);
// "WARNING", "ERROR", "NOTE": the proto enum's name of `severity`.
std::string_view SeverityName(Diagnostic::Severity severity);

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
  std::string bound_pipe;  // BoundPipe(pipes)
};

// The pipe (the scalar unit "S" included) with the most busy cycles, the first in `pipes` on a
// tie; "" when every one was idle. The report's bound_pipe (docs/frontend.md).
std::string BoundPipe(const std::vector<PipeStats>& pipes);

// How much the checkers do (AICORE_SIM_CHECK, LaunchOptions::check). kOff runs none of the race,
// initialisation and sync-hygiene checks (faults the chip would not survive are reported
// anyway); kWarn runs them and reports what they find. kStrict and kStrictAll run the same checks
// and tell the client to raise: on any race or error, or on any finding at all.
enum class CheckLevel : uint8_t { kOff = 0, kWarn = 1, kStrict = 2, kStrictAll = 3 };
// "off", "warn", "strict", "strict-all": AICORE_SIM_CHECK's and --check's values.
std::string_view CheckLevelName(CheckLevel level);
bool ParseCheckLevel(std::string_view text, CheckLevel* out);

// What the checkers found in one launch, by severity class.
struct CheckSummary {
  CheckLevel level = CheckLevel::kWarn;
  uint32_t races = 0;     // RACE diagnostics
  uint32_t errors = 0;    // other ERROR diagnostics
  uint32_t warnings = 0;  // WARNING diagnostics
  uint32_t notes = 0;     // NOTE diagnostics
  // "0 races, 0 errors, 2 warnings", then ", 1 note" when there are notes (so a summary without
  // notes reads as it always has).
  std::string Text() const;
  // True when the level makes these findings an exception in the client.
  bool Fails() const;
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
  // The bound pipe of the core that ran longest (the first such core on a tie): what bounds
  // the launch.
  std::string bound_pipe;
  std::vector<Diagnostic> diagnostics;
  uint64_t simulated_instructions = 0;
  std::vector<InstrRecord> timeline;  // empty unless LaunchOptions::record_timeline
  CheckSummary check;
  std::vector<DebugRecord> debug_output;  // by core, then cycle
  bool timing_only = false;  // LaunchOptions::timing_only: device memory lacks the results
};

}  // namespace aicore::sim
