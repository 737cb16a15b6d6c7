// The per-instruction timeline as the model records it while a launch runs: ids and numbers
// only, no strings on the hot path. NameTimeline turns the entries into the report's
// InstrRecords (pipe and op names, file names, sync details) once the launch has ended.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/launch_result.h"
#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"

namespace aicore::sim {

struct TimelineEntry {
  enum class Kind : uint8_t {
    kInstr,     // a pipe instruction (or an S-side one the pipe table times)
    kProfMark,  // metrics_prof_start / stop, print_time_stamp on the scalar unit
  };
  const Instr* instr = nullptr;
  uint32_t core = 0;
  uint32_t block_idx = 0;
  uint64_t issue_cycle = 0, start_cycle = 0, end_cycle = 0;
  PipeId pipe = PipeId::kS;
  Kind kind = Kind::kInstr;
  // Sync items: the flag's HardEvent and id (set_flag, wait_flag) or the barrier's pipe.
  uint8_t event = 0;
  uint32_t event_id = 0;
  PipeId barrier_pipe = PipeId::kS;
  // A passed cross_core_wait_flag: the core and cycle of the set that released it (-1: none).
  int32_t released_by_core = -1;
  uint64_t released_by_cycle = 0;
};

// The trace detail of a pipe instruction: flag event and id, the framework call that issued
// it, or "inserted by auto_sync"; empty for plain instructions.
std::string InstrDetail(const Program& program, const TimelineEntry& e);

// The report's records of `entries`, in order.
std::vector<InstrRecord> NameTimeline(const Program& program,
                                      const std::vector<TimelineEntry>& entries);

}  // namespace aicore::sim
