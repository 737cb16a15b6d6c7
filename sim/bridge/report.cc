// LaunchResult -> aicore.report.v1.LaunchReport (field names there are API: CONVENTIONS "stats
// are API").
#include "sim/bridge/bridge.h"

namespace aicore::sim {
namespace {

namespace rep = aicore::report::v1;

rep::LaunchReport::Status ToProtoStatus(LaunchResult::Status s) {
  switch (s) {
    case LaunchResult::Status::kOk:
      return rep::LaunchReport::OK;
    case LaunchResult::Status::kKernelFault:
      return rep::LaunchReport::KERNEL_FAULT;
    case LaunchResult::Status::kDeadlock:
      return rep::LaunchReport::DEADLOCK;
    case LaunchResult::Status::kCycleLimitExceeded:
      return rep::LaunchReport::CYCLE_LIMIT_EXCEEDED;
  }
  return rep::LaunchReport::STATUS_INVALID;
}

rep::Diagnostic::Kind ToProtoKind(Diagnostic::Kind k) {
  switch (k) {
    case Diagnostic::Kind::kDeadlock:
      return rep::Diagnostic::DEADLOCK;
    case Diagnostic::Kind::kOutOfBounds:
      return rep::Diagnostic::OUT_OF_BOUNDS;
    case Diagnostic::Kind::kGmOutOfBounds:
      return rep::Diagnostic::GM_OUT_OF_BOUNDS;
    case Diagnostic::Kind::kGmSlackAccess:
      return rep::Diagnostic::GM_SLACK_ACCESS;
    case Diagnostic::Kind::kInvalidOperand:
      return rep::Diagnostic::INVALID_OPERAND;
    case Diagnostic::Kind::kCycleLimit:
      return rep::Diagnostic::CYCLE_LIMIT;
    case Diagnostic::Kind::kFlagOverflow:
      return rep::Diagnostic::FLAG_OVERFLOW;
    case Diagnostic::Kind::kUnmatchedFlag:
      return rep::Diagnostic::UNMATCHED_FLAG;
  }
  return rep::Diagnostic::KIND_INVALID;
}

}  // namespace

void ToProto(const LaunchResult& r, rep::LaunchReport* out) {
  out->Clear();
  out->set_status(ToProtoStatus(r.status));
  out->set_kernel_name(r.kernel_name);
  out->set_platform(r.platform);
  out->set_block_dim(r.block_dim);
  out->set_cycles(r.cycles);
  out->set_duration_us(r.duration_us);
  out->set_clock_mhz(r.clock_mhz);
  for (const CoreStats& c : r.cores) {
    rep::CoreStats* pc = out->add_cores();
    pc->set_core(c.core);
    pc->set_core_type(c.core_type);
    pc->set_block_idx(c.block_idx);
    pc->set_cycles(c.cycles);
    pc->set_queue_full_stall_cycles(c.queue_full_stall_cycles);
    for (const PipeStats& p : c.pipes) {
      rep::PipeStats* pp = pc->add_pipes();
      pp->set_pipe(p.pipe);
      pp->set_instructions(p.instructions);
      pp->set_busy_cycles(p.busy_cycles);
      pp->set_wait_flag_cycles(p.wait_flag_cycles);
      pp->set_bytes(p.bytes);
      pp->set_queue_full_stall_cycles(p.queue_full_stall_cycles);
      pp->set_bandwidth_stall_cycles(p.bandwidth_stall_cycles);
      pp->set_bank_conflict_cycles(p.bank_conflict_cycles);
      pp->set_l2_hit_bytes(p.l2_hit_bytes);
      pp->set_hbm_read_bytes(p.hbm_read_bytes);
      pp->set_hbm_write_bytes(p.hbm_write_bytes);
    }
  }
  for (const Diagnostic& d : r.diagnostics) {
    rep::Diagnostic* pd = out->add_diagnostics();
    pd->set_severity(d.severity == Diagnostic::Severity::kError ? rep::Diagnostic::ERROR
                                                                : rep::Diagnostic::WARNING);
    pd->set_kind(ToProtoKind(d.kind));
    pd->set_message(d.message);
    pd->set_core(d.core);
    pd->set_pipe(d.pipe);
    pd->set_op(d.op);
    pd->mutable_location()->set_file(d.location.file);
    pd->mutable_location()->set_line(d.location.line);
    pd->mutable_location()->set_column(d.location.column);
    pd->set_cycle(d.cycle);
  }
  out->set_simulated_instructions(r.simulated_instructions);
  out->mutable_timeline()->Reserve(static_cast<int>(r.timeline.size()));
  for (const InstrRecord& t : r.timeline) {
    rep::InstrRecord* pt = out->add_timeline();
    pt->set_core(t.core);
    pt->set_block_idx(t.block_idx);
    pt->set_pipe(t.pipe);
    pt->set_op(t.op);
    pt->set_op_index(t.op_index);
    pt->mutable_location()->set_file(t.location.file);
    pt->mutable_location()->set_line(t.location.line);
    pt->mutable_location()->set_column(t.location.column);
    pt->set_issue_cycle(t.issue_cycle);
    pt->set_start_cycle(t.start_cycle);
    pt->set_end_cycle(t.end_cycle);
    pt->set_detail(t.detail);
  }
}

}  // namespace aicore::sim
