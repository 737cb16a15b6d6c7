// Program walking, scalar execution and instruction issue (see scalar_unit.h).
#include "sim/pipe/scalar_unit.h"

#include <limits>

#include "sim/soc/launch_context.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {

ScalarUnit::ScalarUnit(uint32_t core, LaunchContext& ctx, ScalarHost& host, const IssueEnv& env)
    : core_(core), ctx_(ctx), host_(host), env_(env) {
  stats_.pipe = std::string(PipeName(PipeId::kS));
}

void ScalarUnit::ResetStats() {
  stats_ = PipeStats();
  stats_.pipe = std::string(PipeName(PipeId::kS));
  queue_full_stall_cycles_ = 0;
}

void ScalarUnit::StartBlock(uint32_t block, const std::vector<ScalarValue>& initial_values,
                            Cycle at) {
  block_ = block;
  values_ = initial_values;
  frames_.clear();
  frames_.push_back(Frame{});
  done_ = false;
  wait_ = Wait::kNone;
  time_ = MaxCycle(time_, at);
  ScheduleResume(time_);
}

void ScalarUnit::ScheduleResume(Cycle at) {
  if (at >= pending_resume_) return;
  pending_resume_ = at;
  ctx_.events.Push(at, EventKind::kScalar, core_, 0, 0);
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

void ScalarUnit::OnDrainProgress(Cycle now) {
  if (wait_ == Wait::kDrain && host_.AllPipesDrained()) Wake(now);
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

void ScalarUnit::Advance(uint32_t cycles) {
  time_ += Cycle(cycles);
  stats_.busy_cycles += cycles;
}

void ScalarUnit::Run(Cycle now) {
  if (done_ || ctx_.stopped) return;
  time_ = MaxCycle(time_, now);
  const Program& program = ctx_.program;
  uint32_t steps = 0;
  while (!ctx_.stopped) {
    // Scalar-only loops never return to the event loop: poll the host's cancel flag here too.
    if ((++steps & 0xffff) == 0 && ctx_.CheckCancel()) return;
    if (ctx_.max_cycles != 0 && time_.value() > ctx_.max_cycles) {
      // Scalar-only loops never reach the event queue; the limit is checked here too.
      ScheduleResume(time_);
      return;
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
      case ExecUnit::kScalar:
        if (!ExecScalar(in)) return;
        ++frames_.back().pc;
        ++stats_.instructions;
        ++ctx_.instructions;
        Advance(ctx_.config.scalar_op_cycles);
        break;
      case ExecUnit::kControl:
        ++stats_.instructions;
        ++ctx_.instructions;
        if (!EnterControl(in)) return;
        break;
      case ExecUnit::kPipe:
        // Pipes and flags are shared state: act on them only at the global time.
        if (time_ > now) {
          ScheduleResume(time_);
          return;
        }
        if (!IssuePipeInstr(in, now)) return;
        break;
    }
  }
}

bool ScalarUnit::ExecScalar(const Instr& in) {
  ScalarValue& out = values_[in.result];
  switch (Info(in.opcode).op_class) {
    case OpClass::kConst:
      if (IsFloat(in.dtype)) {
        out.f = in.imm.f;
      } else {
        out.i = in.imm.i;
      }
      return true;
    case OpClass::kScalarBinary: {
      ScalarValue r;
      ScalarFault fault = EvalScalarBinary(static_cast<ScalarBinaryKind>(in.kind), in.src_dtype,
                                           values_[in.a], values_[in.b], &r);
      if (fault == ScalarFault::kDivisionByZero) {
        return Fault(in, "integer division or modulo by zero (" +
                             std::string(DTypeProtoName(in.src_dtype)) +
                             "). Fix: guard the divisor.");
      }
      values_[in.result] = r;
      return true;
    }
    case OpClass::kScalarUnary:
      out = EvalScalarUnary(static_cast<ScalarUnaryKind>(in.kind), in.dtype, in.src_dtype,
                            values_[in.a]);
      return true;
    case OpClass::kSysValue: {
      int64_t v = 0;
      switch (static_cast<SysValueKind>(in.kind)) {
        case SysValueKind::kBlockIdx:
          v = block_;
          break;
        case SysValueKind::kBlockNum:
          v = ctx_.block_dim;
          break;
        // AIV-only launches: one vector core per block, so it is sub-block 0 of 1.
        case SysValueKind::kSubBlockIdx:
          v = 0;
          break;
        case SysValueKind::kSubBlockNum:
          v = 1;
          break;
        case SysValueKind::kIsAic:
          v = 0;
          break;
        case SysValueKind::kIsAiv:
          v = 1;
          break;
        case SysValueKind::kSystemCycle:
          v = static_cast<int64_t>(time_.value());
          break;
      }
      out = CastScalar(IntValue(v), DType::kInt64, in.dtype);
      return true;
    }
    case OpClass::kSelect:
      out = IsTrue(values_[in.a], DType::kBool) ? values_[in.b] : values_[in.c];
      return true;
    default:
      return Fault(in, "internal: not a scalar op");
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

bool ScalarUnit::IssuePipeInstr(const Instr& in, Cycle now) {
  OpClass cls = Info(in.opcode).op_class;
  const SocConfig& config = ctx_.config;
  // S-side sync runs on the scalar unit itself, in program order.
  if (cls == OpClass::kSetFlag && HardEvent(in.event).src == PipeId::kS) {
    uint32_t flag = 0;
    if (!ResolveFlag(in, values_, env_, SiteOf(&in, PipeId::kS), &flag)) {
      ctx_.Stop(LaunchResult::Status::kKernelFault);
      return false;
    }
    host_.OnSetFlag(flag, &in, now);
    ++frames_.back().pc;
    ++stats_.instructions;
    ++ctx_.instructions;
    Advance(config.scalar_op_cycles);
    return true;
  }
  if (cls == OpClass::kWaitFlag && HardEvent(in.event).dst == PipeId::kS) {
    uint32_t flag = 0;
    if (!ResolveFlag(in, values_, env_, SiteOf(&in, PipeId::kS), &flag)) {
      ctx_.Stop(LaunchResult::Status::kKernelFault);
      return false;
    }
    if (!env_.flags.IsSet(flag)) {
      if (wait_ != Wait::kFlag) wait_since_ = now;
      wait_ = Wait::kFlag;
      wait_flag_ = flag;
      wait_instr_ = &in;
      return false;
    }
    env_.flags.Clear(flag);
    if (wait_ == Wait::kFlag) stats_.wait_flag_cycles += (now - wait_since_).value();
    wait_ = Wait::kNone;
    ++frames_.back().pc;
    ++stats_.instructions;
    ++ctx_.instructions;
    Advance(config.scalar_op_cycles);
    return true;
  }
  if (cls == OpClass::kPipeBarrier &&
      (in.pipe == PipeId::kS || in.pipe == PipeId::kAll || host_.pipe(in.pipe) == nullptr)) {
    if (in.pipe == PipeId::kAll && !host_.AllPipesDrained()) {
      wait_ = Wait::kDrain;
      wait_instr_ = &in;
      return false;
    }
    // PIPE_S is ordered by hardware; a barrier on a pipe this core lacks has nothing to order.
    wait_ = Wait::kNone;
    ++frames_.back().pc;
    ++stats_.instructions;
    ++ctx_.instructions;
    Advance(in.pipe == PipeId::kAll ? config.barrier_cycles : config.scalar_op_cycles);
    return true;
  }
  Pipe* pipe = host_.pipe(in.pipe);
  if (pipe == nullptr) {
    return Fault(in, "PIPE_" + std::string(PipeName(in.pipe)) +
                         " does not exist on a vector core (AIV pipes: S, V, MTE2, MTE3).");
  }
  if (pipe->Full()) {
    if (wait_ != Wait::kQueueFull) wait_since_ = now;
    wait_ = Wait::kQueueFull;
    stalled_pipe_ = in.pipe;
    wait_instr_ = &in;
    return false;
  }
  IssuedInstr issued;
  if (!BuildIssued(in, values_, env_, SiteOf(&in, in.pipe), &issued)) {
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return false;
  }
  issued.issue = now;
  issued.ready = now + Cycle(config.scalar_issue_cycles);
  pipe->Push(issued);
  if (wait_ == Wait::kQueueFull) queue_full_stall_cycles_ += (now - wait_since_).value();
  wait_ = Wait::kNone;
  ++frames_.back().pc;
  Advance(config.scalar_issue_cycles);
  return true;
}

}  // namespace aicore::sim
