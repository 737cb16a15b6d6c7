// LaunchResult <-> aicore.report.v1.LaunchReport, both directions side by side so they stay
// complete (field names there are API: CONVENTIONS "stats are API").
#include "report.pb.h"
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

LaunchResult::Status FromProtoStatus(rep::LaunchReport::Status s) {
  switch (s) {
    case rep::LaunchReport::KERNEL_FAULT:
      return LaunchResult::Status::kKernelFault;
    case rep::LaunchReport::DEADLOCK:
      return LaunchResult::Status::kDeadlock;
    case rep::LaunchReport::CYCLE_LIMIT_EXCEEDED:
      return LaunchResult::Status::kCycleLimitExceeded;
    default:
      return LaunchResult::Status::kOk;
  }
}

Diagnostic::Kind FromProtoKind(rep::Diagnostic::Kind k) {
  switch (k) {
    case rep::Diagnostic::OUT_OF_BOUNDS:
      return Diagnostic::Kind::kOutOfBounds;
    case rep::Diagnostic::GM_OUT_OF_BOUNDS:
      return Diagnostic::Kind::kGmOutOfBounds;
    case rep::Diagnostic::GM_SLACK_ACCESS:
      return Diagnostic::Kind::kGmSlackAccess;
    case rep::Diagnostic::INVALID_OPERAND:
      return Diagnostic::Kind::kInvalidOperand;
    case rep::Diagnostic::CYCLE_LIMIT:
      return Diagnostic::Kind::kCycleLimit;
    case rep::Diagnostic::FLAG_OVERFLOW:
      return Diagnostic::Kind::kFlagOverflow;
    case rep::Diagnostic::UNMATCHED_FLAG:
      return Diagnostic::Kind::kUnmatchedFlag;
    default:
      return Diagnostic::Kind::kDeadlock;
  }
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

LaunchResult FromProto(const rep::LaunchReport& report) {
  LaunchResult r;
  r.status = FromProtoStatus(report.status());
  r.kernel_name = report.kernel_name();
  r.platform = report.platform();
  r.block_dim = report.block_dim();
  r.cycles = report.cycles();
  r.duration_us = report.duration_us();
  r.clock_mhz = report.clock_mhz();
  r.simulated_instructions = report.simulated_instructions();
  r.cores.reserve(report.cores_size());
  for (const rep::CoreStats& pc : report.cores()) {
    CoreStats& c = r.cores.emplace_back();
    c.core = pc.core();
    c.core_type = pc.core_type();
    c.block_idx = pc.block_idx();
    c.cycles = pc.cycles();
    c.queue_full_stall_cycles = pc.queue_full_stall_cycles();
    for (const rep::PipeStats& pp : pc.pipes()) {
      PipeStats& p = c.pipes.emplace_back();
      p.pipe = pp.pipe();
      p.instructions = pp.instructions();
      p.busy_cycles = pp.busy_cycles();
      p.wait_flag_cycles = pp.wait_flag_cycles();
      p.bytes = pp.bytes();
      p.queue_full_stall_cycles = pp.queue_full_stall_cycles();
      p.bandwidth_stall_cycles = pp.bandwidth_stall_cycles();
      p.bank_conflict_cycles = pp.bank_conflict_cycles();
      p.l2_hit_bytes = pp.l2_hit_bytes();
      p.hbm_read_bytes = pp.hbm_read_bytes();
      p.hbm_write_bytes = pp.hbm_write_bytes();
    }
  }
  for (const rep::Diagnostic& pd : report.diagnostics()) {
    Diagnostic& d = r.diagnostics.emplace_back();
    d.severity = pd.severity() == rep::Diagnostic::ERROR ? Diagnostic::Severity::kError
                                                         : Diagnostic::Severity::kWarning;
    d.kind = FromProtoKind(pd.kind());
    d.message = pd.message();
    d.core = pd.core();
    d.pipe = pd.pipe();
    d.op = pd.op();
    d.location = {pd.location().file(), pd.location().line(), pd.location().column()};
    d.cycle = pd.cycle();
  }
  r.timeline.reserve(report.timeline_size());
  for (const rep::InstrRecord& pt : report.timeline()) {
    InstrRecord& t = r.timeline.emplace_back();
    t.core = pt.core();
    t.block_idx = pt.block_idx();
    t.pipe = pt.pipe();
    t.op = pt.op();
    t.op_index = pt.op_index();
    t.location = {pt.location().file(), pt.location().line(), pt.location().column()};
    t.issue_cycle = pt.issue_cycle();
    t.start_cycle = pt.start_cycle();
    t.end_cycle = pt.end_cycle();
    t.detail = pt.detail();
  }
  return r;
}

}  // namespace aicore::sim
