// Naming the timeline once a launch has ended (see timeline.h).
#include "sim/pipe/timeline.h"

#include <string>

#include "sim/isa/opcode.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {

std::string InstrDetail(const Program& program, const TimelineEntry& e) {
  const Instr& instr = *e.instr;
  SyncRole role = SyncRoleOf(Info(instr.opcode).op_class);
  std::string s;
  if (role == SyncRole::kSetFlag || role == SyncRole::kWaitFlag) {
    s = std::string(HardEvent(e.event).name) + " id=" + std::to_string(e.event_id);
  } else if (role == SyncRole::kCrossCoreSet) {
    return "flag " + std::to_string(e.event_id) + " mode " + std::to_string(instr.event);
  } else if (instr.opcode == Opcode::kCrossCoreWaitFlag) {
    return "flag " + std::to_string(e.event_id);
  } else if (role == SyncRole::kBarrier) {
    s = "PIPE_" + std::string(PipeName(e.barrier_pipe));
  } else {
    return s;
  }
  switch (static_cast<SyncOrigin>(instr.kind)) {
    case SyncOrigin::kProgram:
      break;
    case SyncOrigin::kFramework: {
      const FwkInfo& f = program.fwk_ops[instr.aux];
      std::string owner = f.queue != 0  ? program.queues[f.queue - 1].label
                          : f.pool != 0 ? program.pools[f.pool - 1].label
                                        : std::string("TPipe");
      s += " (" + owner + "." + std::string(FwkKindName(f.kind)) + ")";
      break;
    }
    case SyncOrigin::kAutoSync:
      s += " inserted by auto_sync";
      break;
  }
  return s;
}

namespace {

std::string_view ProfMarkName(const Instr& in) {
  switch (static_cast<ProfMarkKind>(in.kind)) {
    case ProfMarkKind::kMetricsProfStart:
      return "metrics_prof_start";
    case ProfMarkKind::kMetricsProfStop:
      return "metrics_prof_stop";
    case ProfMarkKind::kTimeStamp:
      break;
  }
  return "print_time_stamp";
}

}  // namespace

std::vector<InstrRecord> NameTimeline(const Program& program,
                                      const std::vector<TimelineEntry>& entries) {
  std::vector<InstrRecord> out;
  out.reserve(entries.size());
  for (const TimelineEntry& e : entries) {
    const Instr& in = *e.instr;
    InstrRecord& r = out.emplace_back();
    r.core = e.core;
    r.block_idx = e.block_idx;
    r.pipe = std::string(PipeName(e.pipe));
    bool mark = e.kind == TimelineEntry::Kind::kProfMark;
    r.op = std::string(mark ? ProfMarkName(in) : Info(in.opcode).mnemonic);
    r.op_index = in.op_index;
    r.location.file = program.FileName(in);
    r.location.line = in.line;
    r.location.column = in.column;
    r.issue_cycle = e.issue_cycle;
    r.start_cycle = e.start_cycle;
    r.end_cycle = e.end_cycle;
    r.detail = mark ? "profiling mark" : InstrDetail(program, e);
    SyncRole role = SyncRoleOf(Info(in.opcode).op_class);
    if (!mark && (role == SyncRole::kSetFlag || role == SyncRole::kWaitFlag)) {
      r.flag_event = e.event;
      r.flag_id = e.event_id;
    }
    if (role == SyncRole::kCrossCoreSet || in.opcode == Opcode::kCrossCoreWaitFlag) {
      r.flag_id = e.event_id;
      r.released_by_core = e.released_by_core;
      r.released_by_cycle = e.released_by_cycle;
    }
  }
  return out;
}

}  // namespace aicore::sim
