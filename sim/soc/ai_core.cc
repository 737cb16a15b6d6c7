// Wiring and event dispatch of one AI Core (see ai_core.h).
#include "sim/soc/ai_core.h"

#include "sim/core/invariant.h"
#include "sim/core/logging.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/pipe_factory.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {

AiCore::AiCore(uint32_t index, const CoreSpec& spec, SubBlock sub_block, LaunchContext& ctx,
               const std::vector<ScalarValue>& initial_values)
    : index_(index),
      spec_(spec),
      sub_block_(sub_block),
      ctx_(ctx),
      initial_values_(initial_values),
      memories_(spec.memories),
      routes_(spec.routes),
      registers_(spec.registers),
      flags_(ctx.config.flag_ids_per_event, ctx.config.flag_set_waits_for_clear != 0),
      last_setter_(kNumHardEvents * ctx.config.flag_ids_per_event, nullptr) {
  if (ctx.unknown != nullptr) ctx.unknown->AddCore(index, memories_, kSprBytes, kCmpMaskBytes);
  PipeEnv pipe_env{index, ctx, flags_, *this, memories_, registers_, moves_, cube_args_};
  for (const PipeSpec& p : spec.pipes) {
    SIM_CHECK(p.create != nullptr && p.id != PipeId::kS && PipeIndex(p.id) < kNumPipes,
              "core spec \"" + spec.name + "\" lists PIPE_" + std::string(PipeName(p.id)) +
                  " without a factory");
    pipe_env.dma_cost = p.dma_cost;
    pipes_[PipeIndex(p.id)] = p.create(p.id, p.queue_depth, pipe_env);
  }
  IssueEnv env{ctx.program, ctx.config, memories_, routes_, ctx.gm, flags_, ctx.diags};
  env.moves = &moves_;
  env.cube_args = &cube_args_;
  scalar_ = std::make_unique<ScalarUnit>(index, ctx, *this, env, registers_);
  if (ctx.cross != nullptr) ctx.cross->Attach(index, this);
}

AiCore::~AiCore() = default;

Pipe* AiCore::pipe(PipeId id) {
  int i = PipeIndex(id);
  return i < kNumPipes ? pipes_[i].get() : nullptr;
}

bool AiCore::AllPipesDrained() const {
  for (const auto& p : pipes_) {
    if (p != nullptr && !p->Drained()) return false;
  }
  return true;
}

void AiCore::Begin(Cycle at) {
  if (pending_blocks_.empty()) {
    finished_ = true;
    return;
  }
  uint32_t block = pending_blocks_.front();
  pending_blocks_.pop_front();
  StartBlock(block, at);
}

void AiCore::StartBlock(uint32_t block, Cycle at) {
  if (ctx_.debug_log) {
    GetLogger("sim.core" + std::to_string(index_))
        ->debug("block {} starts at cycle {}", block, at.value());
  }
  block_ = block;
  consumed_inserted_.clear();
  running_ = true;
  for (auto& p : pipes_) {
    if (p != nullptr) p->set_block(block);
  }
  scalar_->StartBlock(block, initial_values_, at);
}

void AiCore::HandleEvent(const Event& e) {
  switch (e.kind) {
    case EventKind::kScalar:
      scalar_->Resume(e.cycle);
      break;
    case EventKind::kStart:
      pipes_[e.unit]->TryStart(e.cycle);
      break;
    case EventKind::kEnd:
      pipes_[e.unit]->OnEnd(e.payload, e.cycle);
      break;
    case EventKind::kFlagVisible:
      OnFlagVisible(static_cast<uint32_t>(e.payload), e.cycle);
      break;
    case EventKind::kCrossFlag:
      OnCrossFlagVisible(e.payload, e.cycle);
      break;
  }
  if (!ctx_.stopped) CheckBlockEnd(e.cycle);
}

void AiCore::OnQueueSpace(PipeId pipe, Cycle now) { scalar_->OnQueueSpace(pipe, now); }

void AiCore::OnInstrEnd(PipeId pipe, Cycle now) { scalar_->OnDrainProgress(now); }

void AiCore::OnScalarDone(Cycle now) {}

void AiCore::OnWaitPassed(uint32_t flag, const Instr* instr, Cycle now) {
  // A wait of the program's own that consumed a set auto_sync inserted for another instruction:
  // that instruction's inserted wait will find no set (the deadlock report names this wait).
  const Instr* setter = last_setter_[flag];
  const bool inserted_set =
      setter != nullptr && setter->kind == static_cast<uint8_t>(SyncOrigin::kAutoSync);
  const bool own_wait =
      instr != nullptr && instr->kind != static_cast<uint8_t>(SyncOrigin::kAutoSync);
  if (inserted_set && own_wait) consumed_inserted_[flag] = {instr, setter};
  if (!own_wait) consumed_inserted_.erase(flag);  // an inserted wait found its set
  scalar_->OnWaitPassed(flag, instr, now);
  OnFlagCleared(flag, now);
}

void AiCore::OnFlagCleared(uint32_t flag, Cycle now) {
  if (!flags_.set_waits_for_clear()) return;
  // A set of this flag may be holding its pipe (or the scalar unit) until now.
  PipeId src = HardEvent(flags_.EventOf(flag)).src;
  if (src == PipeId::kS) {
    scalar_->OnFlagCleared(flag, now);
  } else if (Pipe* p = pipe(src)) {
    p->Wake(now);
  }
}

Cycle AiCore::StartGate(const IssuedInstr& in) {
  return registers_.cube.l0c_ready.Earliest(in.unit);
}

void AiCore::OnStart(const IssuedInstr& in, Cycle now, Cycle end) {
  if (in.unit.mode != 3) return;
  registers_.cube.l0c_ready.OnStart(in.unit, in.instr, end);
  // The other side of the handoff may be blocked on these bits (PIPE_M or PIPE_FIX).
  for (auto& p : pipes_) {
    if (p != nullptr) p->Wake(now);
  }
}

void AiCore::OnSetFlag(uint32_t flag, const Instr* instr, Cycle now) {
  last_setter_[flag] = instr;
  ++pending_flag_events_;
  ctx_.events.Push(now + Cycle(ctx_.config.flag_latency_cycles), EventKind::kFlagVisible, index_, 0,
                   flag);
}

void AiCore::OnCrossCoreSet(uint32_t id, const Instr* instr, Cycle now) {
  std::string fault;
  deliveries_.clear();
  ctx_.cross->Fire(index_, id, instr->event, instr, &deliveries_, &fault);
  if (!fault.empty()) {
    Site site{index_, block_, instr->pipe, instr, now};
    ctx_.diags.Error(
        ctx_.diags.Make(Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError, site,
                        ctx_.diags.Prefix(site) + ": cross_core_set_flag(" + std::to_string(id) +
                            ", mode " + std::to_string(instr->event) + "): " + fault + "."));
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return;
  }
  Cycle visible = now + Cycle(ctx_.config.cross_core_flag_latency_cycles);
  for (CrossCoreSync::Delivery& d : deliveries_) {
    uint32_t target = d.core;
    d.fired = now.value();
    ctx_.events.Push(visible, EventKind::kCrossFlag, target, 0, ctx_.cross->Park(std::move(d)));
  }
}

void AiCore::OnCrossFlagVisible(uint64_t parked, Cycle now) {
  CrossCoreSync::Delivery d;
  const Instr* oldest = nullptr;
  if (!ctx_.cross->Deliver(parked, &d, &oldest)) {
    // A 16th outstanding set raises an exception on the chip and stops the kernel
    // (CrossCoreSetFlag's API page, docs/cross_core_facts.md): a kernel fault here too.
    Site site{d.from, block_, d.setter != nullptr ? d.setter->pipe : PipeId::kS, d.setter, now};
    std::string first = oldest != nullptr ? " (the oldest pending one by cross_core_set_flag at " +
                                                ctx_.program.Where(*oldest) + ")"
                                          : "";
    ctx_.diags.Error(ctx_.diags.Make(
        Diagnostic::Kind::kFlagOverflow, Diagnostic::Severity::kError, site,
        ctx_.diags.Prefix(site) + ": this cross_core_set_flag(" + std::to_string(d.id) +
            ") would be the " + std::to_string(ctx_.config.cross_core_flag_max_count + 1) +
            "th set pending on core " + std::to_string(index_) + first +
            ": the counter holds at most " + std::to_string(ctx_.config.cross_core_flag_max_count) +
            " sets, and the chip stops the kernel with an exception. Fix: make core " +
            std::to_string(index_) +
            " wait (cross_core_wait_flag) before more sets arrive, or add a reverse flag so the "
            "setter runs at most 15 sets ahead."));
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return;
  }
  scalar_->WakeForSync(now);
}

void AiCore::OnFlagVisible(uint32_t flag, Cycle now) {
  --pending_flag_events_;
  flags_.Landed(flag);
  const HardEventInfo& ev = HardEvent(flags_.EventOf(flag));
  // Flag hygiene is a check: at CheckLevel::kOff the chip's behaviour, without a word. With
  // flag_set_waits_for_clear a set never reaches a set bit (it waited for the clear).
  if (!flags_.Set(flag) && ctx_.check != CheckLevel::kOff) {
    Site site{index_, block_, ev.src, last_setter_[flag], now};
    ctx_.diags.Warn(
        ctx_.diags.Make(
            Diagnostic::Kind::kFlagOverflow, Diagnostic::Severity::kWarning, site,
            ctx_.diags.Prefix(site) + ": set_flag(" + std::string(ev.name) + ", " +
                std::to_string(flags_.IdOf(flag)) +
                ") sets a flag that is already set: no wait_flag consumed the previous set yet. "
                "With flag_set_waits_for_clear 0 the flag is one bit, so this set is lost and a "
                "later wait_flag may block forever (docs/timing-model.md 3a). Fix: pair every "
                "set_flag with exactly one wait_flag, each wait before the next set."),
        last_setter_[flag]);
  }
  if (ev.dst == PipeId::kS) {
    scalar_->OnFlagVisible(flag, now);
  } else if (Pipe* p = pipe(ev.dst)) {
    p->TryStart(now);
  }
}

CoreStats AiCore::BlockStats(Cycle end) const {
  CoreStats s;
  s.core = index_;
  s.core_type = std::string(CoreTypeName(spec_.type));
  s.block_idx = block_;
  s.cycles = end.value();
  s.queue_full_stall_cycles = scalar_->queue_full_stall_cycles();
  s.pipes.push_back(scalar_->stats());
  for (const auto& p : pipes_) {
    if (p == nullptr) continue;
    s.pipes.push_back(p->stats());
    s.pipes.back().queue_full_stall_cycles = scalar_->queue_full_stall_cycles(p->id());
  }
  return s;
}

void AiCore::CheckBlockEnd(Cycle now) {
  if (!running_ || !scalar_->done() || !AllPipesDrained() || pending_flag_events_ > 0) return;
  Cycle end = MaxCycle(now, scalar_->time());
  for (const auto& p : pipes_) {
    if (p != nullptr) end = MaxCycle(end, p->last_activity());
  }
  for (uint32_t flag : flags_.SetFlags()) {
    if (ctx_.check == CheckLevel::kOff) break;
    const HardEventInfo& ev = HardEvent(flags_.EventOf(flag));
    Site site{index_, block_, ev.src, last_setter_[flag], end};
    std::string pair = std::string(ev.name) + ", " + std::to_string(flags_.IdOf(flag));
    ctx_.diags.Warn(
        ctx_.diags.Make(Diagnostic::Kind::kUnmatchedFlag, Diagnostic::Severity::kWarning, site,
                        ctx_.diags.Prefix(site) + ": flag " + pair + " is still set when block " +
                            std::to_string(block_) +
                            " ends: this set_flag has no matching wait_flag, and the flag "
                            "leaks into whatever runs next on this core. Fix: add wait_flag(" +
                            pair + ") on PIPE_" + std::string(PipeName(ev.dst)) +
                            " (typically after the loop) or remove the set_flag."),
        nullptr);
  }
  stats_.push_back(BlockStats(end));
  if (ctx_.debug_log) {
    GetLogger("sim.core" + std::to_string(index_))
        ->debug("block {} ends at cycle {}", block_, end.value());
  }
  for (auto& p : pipes_) {
    if (p != nullptr) p->ResetStats();
  }
  scalar_->ResetStats();
  end_cycle_ = end;
  running_ = false;
  ++blocks_done_;
  if (pending_blocks_.empty()) {
    finished_ = true;
    return;
  }
  uint32_t next = pending_blocks_.front();
  pending_blocks_.pop_front();
  StartBlock(next, end);
}

CoreProgress AiCore::Progress() const {
  CoreProgress p;
  p.cube = spec_.type == CoreType::kAic;
  p.state = finished_  ? CoreProgress::State::kFinished
            : running_ ? CoreProgress::State::kRunning
                       : CoreProgress::State::kIdle;
  p.block = block_;
  p.blocks_done = blocks_done_;
  p.blocks_assigned = blocks_assigned_;
  return p;
}

std::vector<CoreStats> AiCore::TakeStats(Cycle now) {
  if (running_) {
    Cycle end = MaxCycle(now, scalar_->time());
    stats_.push_back(BlockStats(end));
    end_cycle_ = MaxCycle(end_cycle_, end);
    running_ = false;
  }
  return std::move(stats_);
}

std::string AiCore::DescribeEvent(const Event& e) const {
  std::string s = "core " + std::to_string(index_) + " (block " + std::to_string(block_) + ")";
  const Instr* instr = nullptr;
  switch (e.kind) {
    case EventKind::kScalar:
      s += " scalar unit";
      instr = scalar_->current_instr();
      break;
    case EventKind::kStart:
    case EventKind::kEnd:
      if (e.unit < kNumPipes && pipes_[e.unit] != nullptr) {
        s += " PIPE_" + std::string(PipeName(static_cast<PipeId>(e.unit)));
        instr = pipes_[e.unit]->EventInstr(e.kind, e.payload);
      }
      s += e.kind == EventKind::kStart ? " starting" : " ending";
      break;
    case EventKind::kFlagVisible:
      s += " flag " + std::to_string(e.payload) + " becoming visible";
      break;
    case EventKind::kCrossFlag:
      s += " cross-core set " + std::to_string(e.payload) + " reaching its counter";
      break;
  }
  if (instr != nullptr) {
    s += " " + std::string(Info(instr->opcode).mnemonic) + " at " + ctx_.program.Where(*instr);
  }
  return s;
}

bool AiCore::UnitFlagWaiter(const Pipe& p, const WaiterInfo& base,
                            std::vector<WaiterInfo>* out) const {
  const IssuedInstr& head = p.queue().front();
  const L0cReadyBits& bits = registers_.cube.l0c_ready;
  uint64_t block = 0;
  if (!bits.FirstBlocked(head.unit, &block)) return false;
  WaiterInfo info = base;
  info.pipe = p.id();
  info.wait = head.instr;
  info.unit_flag = true;
  info.unit_mode = head.unit.mode;
  info.block_lo = block * kL0cBlockBytes;
  info.block_hi = info.block_lo + kL0cBlockBytes;
  info.want_set = !head.unit.writer;
  info.unit_last = bits.At(block).by;
  // The instruction of the other side that would flip this block, if one is queued.
  for (const auto& q : pipes_) {
    if (q == nullptr || info.queued_set != nullptr) continue;
    for (size_t k = 0; k < q->queue().size() && info.queued_set == nullptr; ++k) {
      const UnitFlagUse& use = q->queue()[k].unit;
      if (use.mode != 3 || use.writer == head.unit.writer) continue;
      ForEachL0cBlock(use, [&](uint64_t b) {
        if (b != block) return;
        info.queued_set = q->queue()[k].instr;
        info.queued_set_pipe = q->id();
      });
    }
  }
  out->push_back(std::move(info));
  return true;
}

void AiCore::SyncWaiter(const WaiterInfo& base, std::vector<WaiterInfo>* out) const {
  WaiterInfo info = base;
  info.pipe = PipeId::kS;
  info.wait = scalar_->waiting_instr();
  const CrossCoreSync& cross = *ctx_.cross;
  std::string waves = cross.WavesText(spec_.type);
  if (scalar_->waiting() == ScalarUnit::Wait::kCrossFlag) {
    uint32_t id = scalar_->waiting_flag();
    info.id = id;
    info.sync_wait = "waits for cross-core flag " + std::to_string(id) +
                     ", whose counter on this core is 0: " + cross.WhyNotSet(index_, id);
    info.sync_fix = waves.empty()
                        ? "every cross_core_wait_flag(" + std::to_string(id) +
                              ") takes one set that another core's cross_core_set_flag(" +
                              std::to_string(id) +
                              ", mode, pipe) routes to this core (mode 2 from the cube core to "
                              "its vector cores, or from both vector cores to their cube core; "
                              "mode 0 once every core of the type has set it): add the missing "
                              "set, or remove the wait"
                        : "launch at most as many blocks as the platform has cores of this type "
                          "(get the count with rt.device_info), or synchronise through GM "
                          "without waiting for blocks of later waves";
  } else {
    info.sync_wait = "waits for GM: " + scalar_->gm_wait_state() +
                     ", and no core that is still running writes those bytes" + waves;
    info.sync_fix = waves.empty()
                        ? "check that every block the wait counts runs and writes its word "
                          "(used_cores, block indices), and that the workspace starts zeroed"
                        : "launch at most as many blocks as the platform has cores of this type, "
                          "or pass used_cores = the blocks of one wave";
  }
  out->push_back(std::move(info));
}

void AiCore::CollectUnstarted(std::vector<std::pair<PipeId, const Instr*>>* out) const {
  for (const auto& p : pipes_) {
    if (p == nullptr) continue;
    const RingQueue<IssuedInstr>& queue = p->queue();
    for (size_t k = 0; k < queue.size(); ++k) out->emplace_back(p->id(), queue[k].instr);
  }
}

void AiCore::CollectWaiters(std::vector<WaiterInfo>* out) const {
  if (!running_) return;
  const Program& program = ctx_.program;
  std::string scalar_state;
  const Instr* scalar_at = scalar_->waiting_instr();
  auto where = [&](const Instr* in) {
    return in == nullptr ? std::string("?")
                         : std::string(Info(in->opcode).mnemonic) + " at " + program.Where(*in);
  };
  switch (scalar_->waiting()) {
    case ScalarUnit::Wait::kQueueFull:
      scalar_state = "it is stalled at " + where(scalar_at) + " because the PIPE_" +
                     std::string(PipeName(scalar_->stalled_pipe())) + " queue is full";
      break;
    case ScalarUnit::Wait::kFlag:
      scalar_state = "it waits for a flag at " + where(scalar_at);
      break;
    case ScalarUnit::Wait::kDrain:
      scalar_state = "it waits in " + where(scalar_at) + " for every pipe to drain";
      break;
    case ScalarUnit::Wait::kDrainV:
      scalar_state = "it waits in " + where(scalar_at) + " for PIPE_V to drain";
      break;
    case ScalarUnit::Wait::kEventId:
      scalar_state = "it waits at " + where(scalar_at) +
                     " for an event id to come free for a sync auto_sync inserts";
      break;
    case ScalarUnit::Wait::kCrossFlag:
      scalar_state = "it waits for cross-core flag " + std::to_string(scalar_->waiting_flag()) +
                     " at " + where(scalar_at);
      break;
    case ScalarUnit::Wait::kGmWait:
      scalar_state = "it waits for GM bytes another core writes at " + where(scalar_at);
      break;
    case ScalarUnit::Wait::kFlagClear:
      scalar_state = "it waits at " + where(scalar_at) + " for a flag it sets to clear";
      break;
    case ScalarUnit::Wait::kNone:
      scalar_state = scalar_->done() ? "the scalar unit has issued the whole program"
                                     : "the scalar unit is idle";
      break;
  }
  static constexpr ScalarStall kStalls[] = {
      ScalarStall::kNone,  ScalarStall::kQueueFull, ScalarStall::kFlag,
      ScalarStall::kDrain, ScalarStall::kEventId,   ScalarStall::kDrain,
      ScalarStall::kFlag,  ScalarStall::kFlag,      ScalarStall::kFlag};
  WaiterInfo base;  // what every waiter of this core shares
  base.core = index_;
  base.block = block_;
  base.scalar_stall = kStalls[static_cast<int>(scalar_->waiting())];
  base.scalar_stalled_pipe = scalar_->stalled_pipe();
  for (uint32_t flag : flags_.SetFlags()) {
    base.set_flags.push_back({flags_.EventOf(flag), flags_.IdOf(flag), last_setter_[flag]});
  }
  // The `op` on `flag` queued on `pipe` behind a blocked op: the set_flag a wait needs on its
  // source pipe, or the wait_flag that would clear the flag a held set waits for.
  auto queued = [&](PipeId pipe, Opcode op, uint32_t flag, WaiterInfo* info) {
    int i = PipeIndex(pipe);
    if (pipe == PipeId::kS || pipes_[i] == nullptr) return;
    const RingQueue<IssuedInstr>& queue = pipes_[i]->queue();
    for (size_t k = 0; k < queue.size(); ++k) {
      const IssuedInstr& q = queue[k];
      if (q.instr->opcode == op && q.flag == flag) {
        info->queued_set = q.instr;
        info->queued_set_pipe = pipe;
        return;
      }
    }
  };
  auto queued_set = [&](uint32_t flag, WaiterInfo* info) {
    queued(HardEvent(info->event).src, Opcode::kSetFlag, flag, info);
  };
  auto blocked_set = [&](PipeId pipe, const Instr* set, uint32_t flag) {
    WaiterInfo info = base;
    info.pipe = pipe;
    info.wait = set;
    info.event = flags_.EventOf(flag);
    info.id = flags_.IdOf(flag);
    info.set_blocked = true;
    queued(HardEvent(info.event).dst, Opcode::kWaitFlag, flag, &info);
    if (!scalar_->done()) {
      info.scalar_at = scalar_at;
      info.scalar_state = scalar_state;
    }
    out->push_back(std::move(info));
  };
  bool any = false;
  for (const auto& p : pipes_) {
    if (p == nullptr || p->queue().empty()) continue;
    if (const IssuedInstr* set = p->BlockedSet()) {
      blocked_set(p->id(), set->instr, set->flag);
      any = true;
      continue;
    }
    if (UnitFlagWaiter(*p, base, out)) {
      if (!scalar_->done()) {
        out->back().scalar_at = scalar_at;
        out->back().scalar_state = scalar_state;
      }
      any = true;
      continue;
    }
    const IssuedInstr* w = p->BlockedWait();
    if (w == nullptr) continue;
    WaiterInfo info = base;
    info.pipe = p->id();
    info.wait = w->instr;
    info.event = flags_.EventOf(w->flag);
    info.id = flags_.IdOf(w->flag);
    if (auto stolen = consumed_inserted_.find(w->flag); stolen != consumed_inserted_.end()) {
      info.consumed_by = stolen->second.first;
      info.inserted_set = stolen->second.second;
    }
    queued_set(w->flag, &info);
    if (!scalar_->done()) {
      info.scalar_at = scalar_at;
      info.scalar_state = scalar_state;
    }
    out->push_back(std::move(info));
    any = true;
  }
  if (scalar_->waiting() == ScalarUnit::Wait::kCrossFlag ||
      scalar_->waiting() == ScalarUnit::Wait::kGmWait) {
    SyncWaiter(base, out);
    any = true;
  }
  if (scalar_->waiting() == ScalarUnit::Wait::kFlagClear) {
    blocked_set(PipeId::kS, scalar_at, scalar_->waiting_flag());
    any = true;
  }
  if (scalar_->waiting() == ScalarUnit::Wait::kFlag) {
    WaiterInfo info = base;
    info.pipe = PipeId::kS;
    info.wait = scalar_at;
    info.event = flags_.EventOf(scalar_->waiting_flag());
    info.id = flags_.IdOf(scalar_->waiting_flag());
    queued_set(scalar_->waiting_flag(), &info);
    out->push_back(std::move(info));
    any = true;
  }
  if (!any) {
    WaiterInfo info = base;
    info.scalar_state = scalar_state;
    info.scalar_at = scalar_at;
    out->push_back(std::move(info));
  }
}

}  // namespace aicore::sim
