// Program walking, scalar execution and instruction issue (see scalar_unit.h).
#include "sim/pipe/scalar_unit.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "sim/check/buffer_use.h"
#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_access.h"
#include "sim/pipe/scalar_unit_inline.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

uint32_t PipeMask(ScalarHost& host) {
  uint32_t mask = 1u << PipeIndex(PipeId::kS);
  for (int p = 0; p < kNumPipes; ++p) {
    if (host.pipe(static_cast<PipeId>(p)) != nullptr) mask |= 1u << p;
  }
  return mask;
}

}  // namespace

ScalarUnit::ScalarUnit(uint32_t core, LaunchContext& ctx, ScalarHost& host, const IssueEnv& env,
                       CoreRegisters& registers)
    : core_(core),
      ctx_(ctx),
      host_(host),
      env_(env),
      regs_(registers),
      alu_(ctx, host, registers, values_),
      tpipe_(ctx.program, ctx.config),
      order_(env.flags.ids_per_event() * kNumHardEvents),
      auto_sync_(host.core_type(), PipeMask(host), env.flags.ids_per_event(),
                 env.flags.ids_per_event() * kNumHardEvents, order_),
      track_(ctx.program.sync.auto_sync) {
  if (ctx.check != CheckLevel::kOff) {
    races_ = std::make_unique<RaceChecker>(host.core_type(), order_, ctx.diags);
    pairing_ = std::make_unique<FlagPairing>(env.flags.ids_per_event() * kNumHardEvents);
  }
  observe_ = track_ || races_ != nullptr;
  stats_.pipe = std::string(PipeName(PipeId::kS));
  env_.vector_mask = regs_.Has(kVectorMaskRegister) ? &regs_.vector_mask : nullptr;
  env_.store = regs_.Has(kStoreRegisters) ? &regs_.store : nullptr;
  env_.cube = regs_.Has(kCubeRegisters) ? &regs_.cube : nullptr;
  env_.spr = regs_.Has(kSpecialRegisters) ? regs_.spr : nullptr;
  env_.gather_mask_count = regs_.Has(kGatherCountRegister) ? &regs_.gather_mask_count : nullptr;
  env_.warn = ctx.check != CheckLevel::kOff;
}

void ScalarUnit::ResetStats() {
  stats_ = PipeStats();
  stats_.pipe = std::string(PipeName(PipeId::kS));
  queue_full_stall_cycles_ = 0;
  queue_full_by_pipe_.fill(0);
}

void ScalarUnit::StartBlock(uint32_t block, const std::vector<ScalarValue>& initial_values,
                            Cycle at) {
  block_ = block;
  values_ = initial_values;
  frames_.clear();
  frames_.push_back(Frame{});
  done_ = false;
  wait_ = Wait::kNone;
  pending_.clear();
  pending_head_ = 0;
  tpipe_.StartBlock();
  regs_.StartBlock();  // a kernel starts in normal mode, all lanes on, no pad value, atomics off
  order_.Reset();
  auto_sync_.Reset();
  if (races_ != nullptr) races_->StartBlock();
  time_ = MaxCycle(time_, at);
  ScheduleResume(time_);
}

const Instr* ScalarUnit::current_instr() const {
  if (done_ || frames_.empty()) return nullptr;
  const Frame& f = frames_.back();
  const Region& region = ctx_.program.regions[f.region];
  return f.pc < region.ops.size() ? &region.ops[f.pc] : f.owner;
}

void ScalarUnit::ScheduleResume(Cycle at) {
  if (at >= pending_resume_) return;
  pending_resume_ = at;
  ctx_.events.Push(at, EventKind::kScalar, core_, 0, 0);
}

bool ScalarUnit::CatchUp(Cycle& now) {
  if (time_ <= now) return true;
  if ((ctx_.max_cycles == 0 || time_.value() <= ctx_.max_cycles) &&
      ctx_.events.NextWouldBe(time_, EventKind::kScalar, core_, 0)) {
    // As if the resume had been queued and popped: no resume is pending after it.
    pending_resume_ = Cycle::Max();
    now = time_;
    ctx_.now = now;
    return true;
  }
  ScheduleResume(time_);
  return false;
}

void ScalarUnit::Resume(Cycle now) {
  if (pending_resume_ <= now) pending_resume_ = Cycle::Max();
  Run(now);
}

void ScalarUnit::Wake(Cycle now) {
  // Through the event queue rather than a direct call: the caller is in the middle of a pipe
  // or flag update, and the scalar unit must see it completed.
  ScheduleResume(now);
}

void ScalarUnit::OnQueueSpace(PipeId pipe, Cycle now) {
  if (wait_ == Wait::kQueueFull && stalled_pipe_ == pipe) Wake(now);
}

void ScalarUnit::OnFlagVisible(uint32_t flag, Cycle now) {
  if (wait_ == Wait::kFlag && wait_flag_ == flag) Wake(now);
}

void ScalarUnit::OnFlagCleared(uint32_t flag, Cycle now) {
  if (wait_ == Wait::kFlagClear && wait_flag_ == flag) Wake(now);
}

void ScalarUnit::OnDrainProgress(Cycle now) {
  if (wait_ == Wait::kDrain && host_.AllPipesDrained()) Wake(now);
  if (wait_ == Wait::kDrainV && VectorDrained()) Wake(now);
}

bool ScalarUnit::VectorDrained() const {
  const Pipe* v = host_.pipe(PipeId::kV);
  return v == nullptr || v->Drained();
}

void ScalarUnit::OnWaitPassed(uint32_t flag, const Instr* instr, Cycle now) {
  if (track_) auto_sync_.OnWaitPassed(flag);
  if (instr != nullptr && instr->kind == static_cast<uint8_t>(SyncOrigin::kAutoSync)) {
    // An inserted pair holds its id until its wait has consumed the flag.
    tpipe_.events().ReleaseInserted(env_.flags.EventOf(flag), env_.flags.IdOf(flag));
    if (wait_ == Wait::kEventId) Wake(now);
  }
}

const Instr* ScalarUnit::SyncInstr(const Instr& at, Opcode op, SyncOrigin origin, uint32_t event,
                                   PipeId pipe) {
  uint64_t key = static_cast<uint64_t>(at.op_index) << 32 | static_cast<uint64_t>(origin) << 24 |
                 static_cast<uint64_t>(op) << 16 | static_cast<uint64_t>(event) << 8 |
                 static_cast<uint64_t>(pipe);
  auto it = synth_.find(key);
  if (it != synth_.end()) return it->second.get();
  auto instr = std::make_unique<Instr>();
  instr->opcode = op;
  instr->kind = static_cast<uint8_t>(origin);
  instr->event = static_cast<uint8_t>(event);
  instr->pipe = pipe;
  instr->op_index = at.op_index;
  instr->file = at.file;
  instr->line = at.line;
  instr->column = at.column;
  instr->aux = at.aux;  // framework origin: the FwkInfo, for the trace's detail
  const Instr* out = instr.get();
  synth_.emplace(key, std::move(instr));
  return out;
}

void ScalarUnit::QueueFlag(const Instr& at, bool set, SyncOrigin origin, uint32_t event,
                           uint32_t id) {
  const HardEventInfo& ev = HardEvent(event);
  PendingIssue p;
  p.pipe = set ? ev.src : ev.dst;
  p.issued.instr = SyncInstr(at, set ? Opcode::kSetFlag : Opcode::kWaitFlag, origin, event, p.pipe);
  p.issued.flag = env_.flags.Index(event, id);
  p.issued.event_id = id;
  pending_.push_back(p);
}

bool ScalarUnit::DrainPending(Cycle& now) {
  const SocConfig& config = ctx_.config;
  while (pending_head_ < pending_.size()) {
    if (!CatchUp(now)) return false;
    PendingIssue& p = pending_[pending_head_];
    if (p.drain_all) {
      if (!host_.AllPipesDrained()) {
        wait_ = Wait::kDrain;
        wait_instr_ = p.issued.instr;
        return false;
      }
      wait_ = Wait::kNone;
      NoteBarrierAll();
      Advance(config.barrier_cycles);
      ++pending_head_;
      continue;
    }
    if (p.pipe == PipeId::kS) {
      if (!RunOnScalar(p, now)) return false;
      ++pending_head_;
      continue;
    }
    Pipe* pipe = host_.pipe(p.pipe);
    if (pipe == nullptr) {
      // A mixed kernel's event valid on the other core type, reached on this one.
      return Fault(*p.issued.instr,
                   std::string(Info(p.issued.instr->opcode).mnemonic) + " on PIPE_" +
                       std::string(PipeName(p.pipe)) + ", which a " + host_.core_name() +
                       " does not have (pipes: " + host_.pipe_list() +
                       "). Fix: run it on the other core type, under asc.ascend_is_aic() or "
                       "asc.ascend_is_aiv().");
    }
    if (pipe->Full()) {
      if (wait_ != Wait::kQueueFull) wait_since_ = now;
      wait_ = Wait::kQueueFull;
      stalled_pipe_ = p.pipe;
      wait_instr_ = p.issued.instr;
      return false;
    }
    if (!PassesWatch(p.issued, p.pipe)) return false;
    p.issued.issue = now;
    p.issued.ready = now + Cycle(config.scalar_issue_cycles);
    if (observe_) NoteIssued(p.pipe, p.issued);
    if (pairing_ != nullptr) {
      SyncRole role = SyncRoleOf(Info(p.issued.instr->opcode).op_class);
      if (role == SyncRole::kSetFlag || role == SyncRole::kWaitFlag) {
        CheckPairing(*p.issued.instr, p.pipe, role == SyncRole::kSetFlag, p.issued.flag, now);
      }
    }
    pipe->Push(p.issued);
    if (wait_ == Wait::kQueueFull) {
      uint64_t stalled = (now - wait_since_).value();
      queue_full_stall_cycles_ += stalled;
      queue_full_by_pipe_[PipeIndex(stalled_pipe_)] += stalled;
    }
    wait_ = Wait::kNone;
    Advance(config.scalar_issue_cycles);
    ++pending_head_;
  }
  pending_.clear();
  pending_head_ = 0;
  return true;
}

void ScalarUnit::NoteIssued(PipeId pipe, const IssuedInstr& issued) {
  switch (SyncRoleOf(Info(issued.instr->opcode).op_class)) {
    case SyncRole::kSetFlag:
      order_.OnSetFlag(pipe, issued.flag);
      if (track_) auto_sync_.OnSetFlag(issued.flag);
      break;
    case SyncRole::kWaitFlag:
      order_.OnWaitFlag(pipe, issued.flag);
      if (track_) auto_sync_.OnOrderChanged();
      break;
    case SyncRole::kBarrier:
      order_.OnBarrier(pipe);
      if (track_) auto_sync_.OnOrderChanged();
      break;
    case SyncRole::kCrossCoreSet:  // orders other cores (the GM checker's clocks), not pipes
      break;
    case SyncRole::kNone: {
      // A unit-flag wait orders the access after the flip it waits for (an Mmad's result before
      // the Fixpipe reading it, that read before the next Mmad's write).
      if (order_.OnUnitFlagWait(pipe, issued.unit) && track_) auto_sync_.OnOrderChanged();
      uint64_t seq = order_.OnAccess(pipe);
      if (track_) auto_sync_.OnAccess(pipe, seq, issued.ranges, issued.num_ranges, issued.instr);
      if (races_ != nullptr) {
        races_->OnAccess(SiteOf(issued.instr, pipe), seq, issued.ranges, issued.num_ranges);
      }
      order_.OnUnitFlagFlip(pipe, seq, issued.unit);
      break;
    }
  }
}

void ScalarUnit::NoteScalarSet(uint32_t flag) {
  if (!observe_) return;
  order_.OnSetFlag(PipeId::kS, flag);
  if (track_) auto_sync_.OnSetFlag(flag);
}

void ScalarUnit::NoteScalarWait(uint32_t flag) {
  if (!observe_) return;
  order_.OnWaitFlag(PipeId::kS, flag);
  if (!track_) return;
  auto_sync_.OnWaitPassed(flag);  // the scalar unit's wait consumes its flag at once
  auto_sync_.OnOrderChanged();
}

void ScalarUnit::NoteBarrierAll() {
  if (!observe_) return;
  order_.OnBarrierAll();
  if (track_) auto_sync_.OnOrderChanged();
}

bool ScalarUnit::PlanAutoSync(const Instr& in, PipeId consumer, const IssuedInstr& issued) {
  // A unit-flag wait orders this access after the flip it waits for: known before planning, so
  // an Mmad -> Fixpipe hand-over through L0C's ready bits, already ordered, gets no inserted
  // flag pair (NoteIssued learns the same order again, to no effect).
  order_.OnUnitFlagWait(consumer, issued.unit);
  AutoSync::Plan plan = auto_sync_.PlanFor(consumer, issued.ranges, issued.num_ranges);
  uint32_t ids[kNumPipes] = {};
  for (int k = 0; k < plan.num_events; ++k) {
    int id = tpipe_.events().AllocInserted(plan.events[k], auto_sync_.BusyIds(plan.events[k]));
    if (id < 0) {
      // Every id of the event is in flight: give back what this plan took, wait for one to come
      // back, then plan again.
      for (int j = 0; j < k; ++j) tpipe_.events().ReleaseInserted(plan.events[j], ids[j]);
      wait_ = Wait::kEventId;
      wait_instr_ = &in;
      return false;
    }
    ids[k] = static_cast<uint32_t>(id);
  }
  if (plan.drain_all) {
    PendingIssue p;
    p.drain_all = true;
    p.issued.instr = SyncInstr(in, Opcode::kPipeBarrier, SyncOrigin::kAutoSync, 0, PipeId::kAll);
    pending_.push_back(p);
  }
  for (int k = 0; k < plan.num_events; ++k) {
    QueueFlag(in, /*set=*/true, SyncOrigin::kAutoSync, plan.events[k], ids[k]);
    QueueFlag(in, /*set=*/false, SyncOrigin::kAutoSync, plan.events[k], ids[k]);
  }
  if (plan.barrier) {
    PendingIssue p;
    p.pipe = consumer;
    p.issued.instr = SyncInstr(in, Opcode::kPipeBarrier, SyncOrigin::kAutoSync, 0, consumer);
    p.issued.barrier_pipe = consumer;
    pending_.push_back(p);
  }
  return true;
}

PipeId ScalarUnit::PipeFor(const Instr& in) {
  if (Info(in.opcode).pipe != PipeRule::kRouted) return in.pipe;
  const MemOpInfo& m = ctx_.program.mem_ops[in.aux];
  if (const Route* route = env_.routes.Find(m.src0.space, m.dst.space)) return route->pipe;
  Fault(in, std::string(Info(in.opcode).mnemonic) + " from " +
                std::string(MemSpaceName(m.src0.space)) + " to " +
                std::string(MemSpaceName(m.dst.space)) + " has no data path on a " +
                host_.core_name() + ".");
  return PipeId::kS;
}

bool ScalarUnit::ExecFramework(const Instr& in, Cycle now) {
  const Program& program = ctx_.program;
  const FwkInfo& f = program.fwk_ops[in.aux];
  int64_t operands[2] = {f.operands[0] != 0 ? Int(f.operands[0]) : 0,
                         f.operands[1] != 0 ? Int(f.operands[1]) : 0};
  FwkOutcome& out = fwk_out_;
  out.Clear();
  tpipe_.Execute(f, operands, &out);
  if (!out.fault.empty()) {
    Site site = SiteOf(&in, PipeId::kS);
    ctx_.diags.Error(ctx_.diags.Make(
        out.out_of_memory ? Diagnostic::Kind::kOutOfBounds : Diagnostic::Kind::kInvalidOperand,
        Diagnostic::Severity::kError, site, ctx_.diags.Prefix(site) + ": " + out.fault + "."));
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return false;
  }
  if (f.result != 0) values_[f.result] = WrapInteger(out.result, program.value_dtypes[f.result]);
  if (f.result2 != 0) {
    values_[f.result2] = WrapInteger(out.result2, program.value_dtypes[f.result2]);
  }
  for (const FwkAction& a : out.actions) {
    if (a.kind == FwkAction::Kind::kBarrierAll) {
      PendingIssue p;
      p.drain_all = true;
      p.issued.instr = &in;
      pending_.push_back(p);
    } else {
      QueueFlag(in, a.kind == FwkAction::Kind::kSetFlag, SyncOrigin::kFramework, a.event, a.id);
    }
  }
  ++frames_.back().pc;
  ++stats_.instructions;
  ++ctx_.instructions;
  Advance(ctx_.config.scalar_op_cycles);
  return true;
}

Site ScalarUnit::SiteOf(const Instr* in, PipeId pipe) const {
  return Site{core_, block_, pipe, in, time_};
}

bool ScalarUnit::Fault(const Instr& in, const std::string& why) {
  Site site = SiteOf(&in, PipeId::kS);
  ctx_.diags.Error(ctx_.diags.Make(Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError,
                                   site, ctx_.diags.Prefix(site) + ": " + why));
  ctx_.Stop(LaunchResult::Status::kKernelFault);
  return false;
}

int64_t ScalarUnit::Int(uint32_t slot) const {
  return AsInt64(values_[slot], ctx_.program.value_dtypes[slot]);
}

void ScalarUnit::Run(Cycle now) {
  if (done_ || ctx_.stopped) return;
  time_ = MaxCycle(time_, now);
  const Program& program = ctx_.program;
  uint32_t steps = 0;
  while (!ctx_.stopped) {
    // Scalar-only loops never return to the event loop: poll the host's cancel flag here too.
    if ((++steps & 0xffff) == 0) {
      if (ctx_.publish_progress) ctx_.publish_progress(time_);
      if (ctx_.CheckCancel()) return;
    }
    if (ctx_.max_cycles != 0 && time_.value() > ctx_.max_cycles) {
      // Scalar-only loops never reach the event queue; the limit is checked here too.
      ScheduleResume(time_);
      return;
    }
    if (pending_head_ < pending_.size()) {
      if (!DrainPending(now)) return;
      continue;
    }
    if (frames_.empty()) {
      done_ = true;
      host_.OnScalarDone(time_);
      return;
    }
    Frame& f = frames_.back();
    const Region& region = program.regions[f.region];
    if (f.pc >= region.ops.size()) {
      if (!EndRegion()) return;
      continue;
    }
    const Instr& in = region.ops[f.pc];
    switch (Info(in.opcode).unit) {
      case ExecUnit::kScalar: {
        // A scalar op changes values and time only (or stops the unit, returning false), so the
        // ops after it in this region run here, each still checked against the cycle limit; the
        // walk's other checks and the cancel poll wait for the next op of another kind.
        const Instr* op = &in;
        const Instr* const end = region.ops.data() + region.ops.size();
        for (;;) {
          // Index arithmetic is most of a kernel's scalar ops: to the ALU without the table.
          if (!(op->opcode == Opcode::kScalarBinary ? ExecScalarBinary(*op, now)
                                                    : ExecOnScalar(*op, now))) {
            return;
          }
          ++op;
          if (op == end || Info(op->opcode).unit != ExecUnit::kScalar) break;
          if (((steps + 1) & 0xffff) == 0) break;  // the top of the walk polls
          if (ctx_.max_cycles != 0 && time_.value() > ctx_.max_cycles) break;
          ++steps;
        }
        break;
      }
      case ExecUnit::kControl:
        ++stats_.instructions;
        ++ctx_.instructions;
        if (!EnterControl(in)) return;
        break;
      case ExecUnit::kPipe:
        // Pipes and flags are shared state: act on them only at the global time.
        if (!CatchUp(now) || !IssuePipeInstr(in, now)) return;
        break;
      case ExecUnit::kFramework:
      case ExecUnit::kDebug:
      case ExecUnit::kSync:
        // Framework calls touch pipes; debug output is stamped with, and dumps read memory at,
        // the global time.
        if (!CatchUp(now)) return;
        if (!(Info(in.opcode).unit != ExecUnit::kFramework ? ExecOnScalar(in, now)
                                                           : ExecFramework(in, now))) {
          return;
        }
        break;
      case ExecUnit::kScalarMem:
        // Memory is shared with the pipes: the access happens at the global time.
        if (!CatchUp(now) || !IssueScalarAccess(in, now)) return;
        break;
    }
  }
}

bool ScalarUnit::EnterControl(const Instr& in) {
  const Program& program = ctx_.program;
  if (in.opcode == Opcode::kFor) {
    const ForInfo& fi = program.fors[in.aux];
    int64_t lower = Int(fi.lower), upper = Int(fi.upper), step = Int(fi.step);
    const uint32_t* init = program.Slots(fi.init);
    const uint32_t* iter = program.Slots(fi.iter_args);
    tmp_.clear();
    for (uint32_t i = 0; i < fi.init.size; ++i) tmp_.push_back(values_[init[i]]);
    for (uint32_t i = 0; i < fi.iter_args.size; ++i) values_[iter[i]] = tmp_[i];
    ++frames_.back().pc;
    Advance(ctx_.config.scalar_op_cycles);
    if (lower < upper) {
      if (step <= 0) {
        return Fault(in, "for loop step is " + std::to_string(step) + " but the loop runs (lower " +
                             std::to_string(lower) + " < upper " + std::to_string(upper) +
                             "); it would never end. Fix: use a "
                             "positive step.");
      }
      values_[fi.induction] = CastScalar(IntValue(lower), DType::kInt64, in.dtype);
      frames_.push_back(Frame{fi.body, 0, &in, upper, step, false});
    } else {
      const uint32_t* results = program.Slots(fi.results);
      for (uint32_t i = 0; i < fi.results.size; ++i) values_[results[i]] = tmp_[i];
    }
    return true;
  }
  if (in.opcode == Opcode::kWhile) {
    const WhileInfo& wi = program.whiles[in.aux];
    const uint32_t* init = program.Slots(wi.init);
    const uint32_t* iter = program.Slots(wi.iter_args);
    tmp_.clear();
    for (uint32_t i = 0; i < wi.init.size; ++i) tmp_.push_back(values_[init[i]]);
    for (uint32_t i = 0; i < wi.iter_args.size; ++i) values_[iter[i]] = tmp_[i];
    ++frames_.back().pc;
    Advance(ctx_.config.scalar_op_cycles);
    frames_.push_back(Frame{wi.body, 0, &in, 0, 0, false});
    return true;
  }
  const IfInfo& ii = program.ifs[in.aux];
  bool cond = IsTrue(values_[ii.cond], DType::kBool);
  ++frames_.back().pc;
  Advance(ctx_.config.scalar_op_cycles);
  frames_.push_back(Frame{cond ? ii.then_region : ii.else_region, 0, &in, 0, 0, cond});
  return true;
}

bool ScalarUnit::EndRegion() {
  const Program& program = ctx_.program;
  Frame& f = frames_.back();
  if (f.owner == nullptr) {
    frames_.pop_back();
    return true;
  }
  if (f.owner->opcode == Opcode::kFor) {
    const ForInfo& fi = program.fors[f.owner->aux];
    const uint32_t* yields = program.Slots(fi.yields);
    const uint32_t* iter = program.Slots(fi.iter_args);
    // Read every yield before writing any iter_arg: a yield may name another iter_arg.
    tmp_.clear();
    for (uint32_t i = 0; i < fi.yields.size; ++i) tmp_.push_back(values_[yields[i]]);
    for (uint32_t i = 0; i < fi.iter_args.size; ++i) values_[iter[i]] = tmp_[i];
    Advance(ctx_.config.scalar_op_cycles);
    int64_t iv = Int(fi.induction);
    int64_t next = 0;
    bool overflow = __builtin_add_overflow(iv, f.step, &next);
    if (f.owner->dtype == DType::kInt32 && next > std::numeric_limits<int32_t>::max()) {
      overflow = true;
    }
    if (!overflow && next < f.upper) {
      values_[fi.induction] = CastScalar(IntValue(next), DType::kInt64, f.owner->dtype);
      f.pc = 0;
      return true;
    }
    const uint32_t* results = program.Slots(fi.results);
    for (uint32_t i = 0; i < fi.results.size; ++i) values_[results[i]] = tmp_[i];
    frames_.pop_back();
    return true;
  }
  if (f.owner->opcode == Opcode::kWhile) {
    const WhileInfo& wi = program.whiles[f.owner->aux];
    const uint32_t* yields = program.Slots(wi.yields);
    tmp_.clear();
    for (uint32_t i = 0; i < wi.yields.size; ++i) tmp_.push_back(values_[yields[i]]);
    Advance(ctx_.config.scalar_op_cycles);
    if (IsTrue(values_[wi.cond], DType::kBool)) {
      const uint32_t* iter = program.Slots(wi.iter_args);
      for (uint32_t i = 0; i < wi.iter_args.size; ++i) values_[iter[i]] = tmp_[i];
      f.pc = 0;
      return true;
    }
    const uint32_t* results = program.Slots(wi.results);
    for (uint32_t i = 0; i < wi.results.size; ++i) values_[results[i]] = tmp_[i];
    frames_.pop_back();
    return true;
  }
  const IfInfo& ii = program.ifs[f.owner->aux];
  SlotSpan ys = f.then_branch ? ii.then_yields : ii.else_yields;
  const uint32_t* yields = program.Slots(ys);
  const uint32_t* results = program.Slots(ii.results);
  tmp_.clear();
  for (uint32_t i = 0; i < ys.size; ++i) tmp_.push_back(values_[yields[i]]);
  for (uint32_t i = 0; i < ii.results.size; ++i) values_[results[i]] = tmp_[i];
  frames_.pop_back();
  return true;
}

bool ScalarUnit::IssuePipeInstr(const Instr& in, Cycle& now) {
  SyncRole role = SyncRoleOf(Info(in.opcode).op_class);
  const SocConfig& config = ctx_.config;
  if (ctx_.program.sync.erase_user_flags &&
      (role == SyncRole::kSetFlag || role == SyncRole::kWaitFlag)) {
    // insert_sync: the program's own flags are dropped; auto_sync places every sync.
    ++frames_.back().pc;
    return true;
  }
  // S-side sync runs on the scalar unit itself, in program order.
  if (role == SyncRole::kSetFlag && HardEvent(in.event).src == PipeId::kS) {
    uint32_t flag = 0;
    if (!ResolveFlag(in, values_, env_, SiteOf(&in, PipeId::kS), &flag)) {
      ctx_.Stop(LaunchResult::Status::kKernelFault);
      return false;
    }
    if (!ScalarSetFlag(in, flag, now)) return false;
    ++frames_.back().pc;
    return true;
  }
  if (role == SyncRole::kWaitFlag && HardEvent(in.event).dst == PipeId::kS) {
    uint32_t flag = 0;
    if (!ResolveFlag(in, values_, env_, SiteOf(&in, PipeId::kS), &flag)) {
      ctx_.Stop(LaunchResult::Status::kKernelFault);
      return false;
    }
    if (!ScalarWaitFlag(in, flag, now)) return false;
    ++frames_.back().pc;
    return true;
  }
  if (role == SyncRole::kBarrier &&
      (in.pipe == PipeId::kS || in.pipe == PipeId::kAll || host_.pipe(in.pipe) == nullptr)) {
    if (in.pipe == PipeId::kAll && !host_.AllPipesDrained()) {
      wait_ = Wait::kDrain;
      wait_instr_ = &in;
      return false;
    }
    if (in.pipe == PipeId::kAll) NoteBarrierAll();
    // PIPE_S is ordered by hardware; a barrier on a pipe this core lacks has nothing to order.
    wait_ = Wait::kNone;
    ++frames_.back().pc;
    ++stats_.instructions;
    ++ctx_.instructions;
    Advance(in.pipe == PipeId::kAll ? config.barrier_cycles : config.scalar_op_cycles);
    return true;
  }
  PipeId pipe_id = PipeFor(in);
  if (ctx_.stopped) return false;
  Pipe* pipe = host_.pipe(pipe_id);
  if (pipe == nullptr) {
    std::string type(CoreTypeName(host_.core_type()));
    for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return Fault(in, "PIPE_" + std::string(PipeName(pipe_id)) + " does not exist on a " +
                         host_.core_name() + " (" + type + " pipes: " + host_.pipe_list() + ").");
  }
  if (pipe->Full()) {
    if (wait_ != Wait::kQueueFull) wait_since_ = now;
    wait_ = Wait::kQueueFull;
    stalled_pipe_ = pipe_id;
    wait_instr_ = &in;
    return false;
  }
  // Built in place in the pending list: entering the pipe's queue is its one copy.
  PendingIssue& p = pending_.emplace_back();
  p.pipe = pipe_id;
  Site site = SiteOf(&in, pipe_id);
  if (!BuildIssued(in, values_, env_, site, &p.issued) ||
      !CheckBufferUse(tpipe_, p.issued.ranges, p.issued.num_ranges, site,
                      ctx_.check != CheckLevel::kOff, ctx_.diags)) {
    pending_.pop_back();
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return false;
  }
  if (track_ && !QueueAfterAutoSync(in, pipe_id)) return false;
  ++frames_.back().pc;
  return DrainPending(now);
}

bool ScalarUnit::QueueAfterAutoSync(const Instr& in, PipeId pipe) {
  size_t at = pending_.size() - 1;
  if (!PlanAutoSync(in, pipe, pending_[at].issued)) {
    pending_.pop_back();  // a failed plan queued nothing: the instruction is issued again later
    return false;
  }
  // The syncs the plan queued go before the instruction.
  std::rotate(pending_.begin() + static_cast<std::ptrdiff_t>(at),
              pending_.begin() + static_cast<std::ptrdiff_t>(at) + 1, pending_.end());
  return true;
}

bool ScalarUnit::IssueScalarAccess(const Instr& in, Cycle& now) {
  PendingIssue& p = pending_.emplace_back();
  p.pipe = PipeId::kS;
  Site site = SiteOf(&in, PipeId::kS);
  if (!BuildScalarAccess(in, values_, env_, site, &p.issued) ||
      !CheckBufferUse(tpipe_, p.issued.ranges, p.issued.num_ranges, site,
                      ctx_.check != CheckLevel::kOff, ctx_.diags)) {
    pending_.pop_back();
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return false;
  }
  if (track_ && !QueueAfterAutoSync(in, PipeId::kS)) return false;
  ++frames_.back().pc;
  return DrainPending(now);
}

bool ScalarUnit::RunOnScalar(const PendingIssue& p, Cycle now) {
  const Instr& in = *p.issued.instr;
  uint32_t flag = p.issued.flag;
  switch (SyncRoleOf(Info(in.opcode).op_class)) {
    case SyncRole::kSetFlag:
      return ScalarSetFlag(in, flag, now);
    case SyncRole::kWaitFlag:
      if (!ScalarWaitFlag(in, flag, now)) return false;
      if (in.kind == static_cast<uint8_t>(SyncOrigin::kAutoSync)) {
        // As a pipe's wait does (OnWaitPassed): the inserted pair's id is free again.
        tpipe_.events().ReleaseInserted(env_.flags.EventOf(flag), env_.flags.IdOf(flag));
      }
      return true;
    case SyncRole::kBarrier:  // the scalar unit has no barrier or cross-core set items
    case SyncRole::kCrossCoreSet:
    case SyncRole::kNone:
      break;
  }
  if (!PassesWatch(p.issued, PipeId::kS)) return false;
  bool load = in.opcode != Opcode::kScalarStore;
  if (load && ctx_.unknown != nullptr && !ReadsKnown(in, p.issued.ranges[0])) return false;
  ExecScalarAccess(p.issued);
  ++stats_.instructions;
  ++ctx_.instructions;
  return true;
}

bool ScalarUnit::ScalarSetFlag(const Instr& in, uint32_t flag, Cycle now) {
  if (env_.flags.SetMustWait(flag)) {
    // As a pipe's set does: it waits until a wait clears the flag (OnFlagCleared).
    if (wait_ != Wait::kFlagClear) wait_since_ = now;
    wait_ = Wait::kFlagClear;
    wait_flag_ = flag;
    wait_instr_ = &in;
    return false;
  }
  if (wait_ == Wait::kFlagClear) stats_.wait_flag_cycles += (now - wait_since_).value();
  wait_ = Wait::kNone;
  env_.flags.Started(flag);
  if (pairing_ != nullptr) CheckPairing(in, PipeId::kS, true, flag, now);
  NoteScalarSet(flag);
  host_.OnSetFlag(flag, &in, now);
  ++stats_.instructions;
  ++ctx_.instructions;
  Advance(ctx_.config.scalar_op_cycles);
  return true;
}

void ScalarUnit::CheckPairing(const Instr& in, PipeId pipe, bool set, uint32_t flag, Cycle now) {
  if (!set) {
    pairing_->OnWait(flag);
    return;
  }
  const Instr* earlier = pairing_->OnSet(flag, &in);
  if (earlier == nullptr) return;
  const HardEventInfo& ev = HardEvent(env_.flags.EventOf(flag));
  std::string pair = std::string(ev.name) + ", " + std::to_string(env_.flags.IdOf(flag));
  Site site = SiteOf(&in, pipe);
  site.cycle = now;
  ctx_.diags.Warn(
      ctx_.diags.Make(
          Diagnostic::Kind::kFlagOverflow, Diagnostic::Severity::kWarning, site,
          ctx_.diags.Prefix(site) + ": set_flag(" + pair + ") follows the set_flag(" + pair +
              ") at " + ctx_.program.Where(*earlier) +
              " with no wait_flag issued between: two sets of one id in a row are undefined on "
              "the chip (its SetFlag page: a later pipe_barrier(PIPE_ALL) hangs). " +
              (env_.flags.set_waits_for_clear()
                   ? "Here this set holds PIPE_" + std::string(PipeName(ev.src)) +
                         " until a wait_flag clears the flag"
                   : std::string("Here this set is lost if the flag is still set when it lands")) +
              " (flag_set_waits_for_clear, docs/timing-model.md 3a). Fix: issue the wait_flag(" +
              pair + ") on PIPE_" + std::string(PipeName(ev.dst)) +
              " between the two sets, or use another id."),
      earlier);
}

bool ScalarUnit::ScalarWaitFlag(const Instr& in, uint32_t flag, Cycle now) {
  if (!env_.flags.IsSet(flag)) {
    if (wait_ != Wait::kFlag) wait_since_ = now;
    wait_ = Wait::kFlag;
    wait_flag_ = flag;
    wait_instr_ = &in;
    return false;
  }
  env_.flags.Clear(flag);
  host_.OnFlagCleared(flag, now);
  if (pairing_ != nullptr) CheckPairing(in, PipeId::kS, false, flag, now);
  NoteScalarWait(flag);
  if (wait_ == Wait::kFlag) stats_.wait_flag_cycles += (now - wait_since_).value();
  wait_ = Wait::kNone;
  ++stats_.instructions;
  ++ctx_.instructions;
  Advance(ctx_.config.scalar_op_cycles);
  return true;
}

bool ScalarUnit::PassesWatch(const IssuedInstr& issued, PipeId pipe) {
  if (!regs_.watch.armed()) return true;
  std::string hit = regs_.watch.Check(pipe, issued.ranges, issued.num_ranges);
  if (hit.empty()) return true;
  Site site = SiteOf(issued.instr, pipe);
  ctx_.diags.Error(ctx_.diags.Make(
      Diagnostic::Kind::kMemoryWatch, Diagnostic::Severity::kError, site,
      ctx_.diags.Prefix(site) + ": " + hit +
          ". Fix: keep this access out of the watched range, or clear the watch first "
          "(check_local_memory_ia with is_enable=False)."));
  ctx_.Stop(LaunchResult::Status::kKernelFault);
  return false;
}

bool ScalarUnit::ReadsKnown(const Instr& in, const MemRange& r) {
  if (!ctx_.unknown->AnyUnknown(core_, r)) return true;
  Site site = SiteOf(&in, PipeId::kS);
  ctx_.diags.Error(ctx_.diags.Make(
      Diagnostic::Kind::kTimingOnlyRead, Diagnostic::Severity::kError, site,
      ctx_.diags.Prefix(site) + ": it reads " + RangeText(MemSpaceName(r.space), r.lo, r.hi) +
          ", which this timing-only launch did not compute: what the kernel does next may "
          "depend on the value, so its cycles would not be the full run's. The bytes come from "
          "the host's tensors copied into a core or from what was computed from them. Fix: "
          "launch this kernel without timing_only (docs/timing_only.md)."));
  ctx_.Stop(LaunchResult::Status::kKernelFault);
  return false;
}

void ScalarUnit::ExecScalarAccess(const IssuedInstr& issued) {
  const Instr& in = *issued.instr;
  const SocConfig& config = ctx_.config;
  if (observe_) NoteIssued(PipeId::kS, issued);
  const MemRange& r = issued.ranges[0];
  bool gm = r.space == MemSpace::kGm;
  Site site = SiteOf(&in, PipeId::kS);
  GmSpan span{r.lo, issued.bytes, issued.bytes, 1};
  if (in.opcode == Opcode::kScalarStore) {
    uint8_t data[sizeof(uint64_t)];
    std::memcpy(data, &issued.scalar_bits, issued.bytes);  // little-endian, as the chip
    if (gm && ctx_.gm_check != nullptr) ctx_.gm_check->OnWrite(site, span, data);
    std::memcpy(issued.dst.base, data, issued.bytes);
    if (ctx_.unknown != nullptr) ctx_.unknown->Mark(core_, r, UnknownBytes::kKnown);
    // A GM wait of another core may poll these bytes (set_value into a GM flag word).
    if (gm && ctx_.cross != nullptr && ctx_.cross->watching_gm()) {
      ctx_.cross->OnGmWrite(r.lo, r.lo + issued.bytes, time_);
    }
    Advance(gm ? config.scalar_gm_store_cycles : config.scalar_local_store_cycles);
    return;
  }
  if (gm && ctx_.gm_check != nullptr) ctx_.gm_check->OnRead(site, span);
  uint64_t bits = 0;
  std::memcpy(&bits, issued.src0.base, issued.bytes);
  values_[in.result] = FromElementBits(bits, in.dtype);
  Advance(gm ? config.scalar_gm_load_cycles : config.scalar_local_load_cycles);
}

}  // namespace aicore::sim
