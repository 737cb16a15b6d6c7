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

// Diagnostic::Kind carries the proto's values.
static_assert(
    static_cast<int>(Diagnostic::Kind::kDeadlock) == rep::Diagnostic::DEADLOCK &&
    static_cast<int>(Diagnostic::Kind::kUnmatchedFlag) == rep::Diagnostic::UNMATCHED_FLAG &&
    static_cast<int>(Diagnostic::Kind::kRace) == rep::Diagnostic::RACE &&
    static_cast<int>(Diagnostic::Kind::kUninitializedRead) == rep::Diagnostic::UNINITIALIZED_READ &&
    static_cast<int>(Diagnostic::Kind::kUnallocatedBuffer) == rep::Diagnostic::UNALLOCATED_BUFFER &&
    static_cast<int>(Diagnostic::Kind::kTrap) == rep::Diagnostic::TRAP &&
    static_cast<int>(Diagnostic::Kind::kMemoryWatch) == rep::Diagnostic::MEMORY_WATCH &&
    static_cast<int>(Diagnostic::Kind::kTimingOnlyRead) == rep::Diagnostic::TIMING_ONLY_READ);
// DebugRecord::Kind carries the proto's values.
static_assert(static_cast<int>(DebugRecord::Kind::kPrintf) == rep::DebugOutput::PRINTF &&
              static_cast<int>(DebugRecord::Kind::kTruncated) == rep::DebugOutput::TRUNCATED);

rep::Diagnostic::Severity ToProtoSeverity(Diagnostic::Severity s) {
  switch (s) {
    case Diagnostic::Severity::kWarning:
      return rep::Diagnostic::WARNING;
    case Diagnostic::Severity::kError:
      return rep::Diagnostic::ERROR;
    case Diagnostic::Severity::kNote:
      return rep::Diagnostic::NOTE;
  }
  return rep::Diagnostic::SEVERITY_INVALID;
}

Diagnostic::Severity FromProtoSeverity(rep::Diagnostic::Severity s) {
  switch (s) {
    case rep::Diagnostic::ERROR:
      return Diagnostic::Severity::kError;
    case rep::Diagnostic::NOTE:
      return Diagnostic::Severity::kNote;
    default:
      return Diagnostic::Severity::kWarning;
  }
}

rep::CheckLevel ToProtoLevel(CheckLevel level) {
  return static_cast<rep::CheckLevel>(static_cast<int>(level) + 1);
}

CheckLevel FromProtoLevel(rep::CheckLevel level) {
  int v = static_cast<int>(level) - 1;
  return v >= 0 && v <= static_cast<int>(CheckLevel::kStrictAll) ? static_cast<CheckLevel>(v)
                                                                 : CheckLevel::kWarn;
}

void ToProto(const SourcePoint& p, rep::SourceLocation* out) {
  out->set_file(p.file);
  out->set_line(p.line);
  out->set_column(p.column);
}

SourcePoint FromProto(const rep::SourceLocation& p) { return {p.file(), p.line(), p.column()}; }

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
  out->set_bound_pipe(r.bound_pipe);
  for (const CoreStats& c : r.cores) {
    rep::CoreStats* pc = out->add_cores();
    pc->set_core(c.core);
    pc->set_core_type(c.core_type);
    pc->set_block_idx(c.block_idx);
    pc->set_cycles(c.cycles);
    pc->set_queue_full_stall_cycles(c.queue_full_stall_cycles);
    pc->set_bound_pipe(c.bound_pipe);
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
    pd->set_severity(ToProtoSeverity(d.severity));
    pd->set_kind(static_cast<rep::Diagnostic::Kind>(d.kind));
    pd->set_message(d.message);
    pd->set_core(d.core);
    pd->set_pipe(d.pipe);
    pd->set_op(d.op);
    ToProto(d.location, pd->mutable_location());
    pd->set_cycle(d.cycle);
    for (uint32_t c : d.cores) pd->add_cores(c);
    pd->set_race(d.race);
    pd->set_other_core(d.other_core);
    pd->set_other_pipe(d.other_pipe);
    pd->set_other_op(d.other_op);
    ToProto(d.other_location, pd->mutable_other_location());
    pd->set_memory(d.memory);
    pd->set_address_lo(d.address_lo);
    pd->set_address_hi(d.address_hi);
    for (uint32_t c : d.other_cores) pd->add_other_cores(c);
  }
  rep::CheckSummary* check = out->mutable_check();
  check->set_level(ToProtoLevel(r.check.level));
  check->set_races(r.check.races);
  check->set_errors(r.check.errors);
  check->set_warnings(r.check.warnings);
  check->set_notes(r.check.notes);
  check->set_summary(r.check.Text());
  check->set_failed(r.check.Fails());
  out->set_simulated_instructions(r.simulated_instructions);
  out->set_timing_only(r.timing_only);
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
    if (t.flag_event >= 0) pt->set_flag_event(static_cast<uint32_t>(t.flag_event));
    pt->set_flag_id(t.flag_id);
    if (t.released_by_core >= 0) {
      pt->set_released_by_core(static_cast<uint32_t>(t.released_by_core));
      pt->set_released_by_cycle(t.released_by_cycle);
    }
  }
  for (const DebugRecord& d : r.debug_output) {
    rep::DebugOutput* pd = out->add_debug_output();
    pd->set_core(d.core);
    pd->set_block_idx(d.block_idx);
    pd->set_cycle(d.cycle);
    ToProto(d.location, pd->mutable_location());
    pd->set_text(d.text);
    pd->set_kind(static_cast<rep::DebugOutput::Kind>(d.kind));
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
  r.bound_pipe = report.bound_pipe();
  r.simulated_instructions = report.simulated_instructions();
  r.timing_only = report.timing_only();
  r.cores.reserve(report.cores_size());
  for (const rep::CoreStats& pc : report.cores()) {
    CoreStats& c = r.cores.emplace_back();
    c.core = pc.core();
    c.core_type = pc.core_type();
    c.block_idx = pc.block_idx();
    c.cycles = pc.cycles();
    c.queue_full_stall_cycles = pc.queue_full_stall_cycles();
    c.bound_pipe = pc.bound_pipe();
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
    d.severity = FromProtoSeverity(pd.severity());
    d.kind = pd.kind() == rep::Diagnostic::KIND_INVALID ? Diagnostic::Kind::kDeadlock
                                                        : static_cast<Diagnostic::Kind>(pd.kind());
    d.message = pd.message();
    d.core = pd.core();
    d.pipe = pd.pipe();
    d.op = pd.op();
    d.location = FromProto(pd.location());
    d.cycle = pd.cycle();
    d.cores.assign(pd.cores().begin(), pd.cores().end());
    d.race = pd.race();
    d.other_core = pd.other_core();
    d.other_pipe = pd.other_pipe();
    d.other_op = pd.other_op();
    d.other_location = FromProto(pd.other_location());
    d.memory = pd.memory();
    d.address_lo = pd.address_lo();
    d.address_hi = pd.address_hi();
    d.other_cores.assign(pd.other_cores().begin(), pd.other_cores().end());
  }
  r.check.level = FromProtoLevel(report.check().level());
  r.check.races = report.check().races();
  r.check.errors = report.check().errors();
  r.check.warnings = report.check().warnings();
  r.check.notes = report.check().notes();
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
    if (pt.has_flag_event()) t.flag_event = static_cast<int32_t>(pt.flag_event());
    t.flag_id = pt.flag_id();
    if (pt.has_released_by_core()) {
      t.released_by_core = static_cast<int32_t>(pt.released_by_core());
      t.released_by_cycle = pt.released_by_cycle();
    }
  }
  for (const rep::DebugOutput& pd : report.debug_output()) {
    DebugRecord& d = r.debug_output.emplace_back();
    d.core = pd.core();
    d.block_idx = pd.block_idx();
    d.cycle = pd.cycle();
    d.location = FromProto(pd.location());
    d.text = pd.text();
    d.kind = pd.kind() == rep::DebugOutput::KIND_INVALID
                 ? DebugRecord::Kind::kPrintf
                 : static_cast<DebugRecord::Kind>(pd.kind());
  }
  return r;
}

}  // namespace aicore::sim
