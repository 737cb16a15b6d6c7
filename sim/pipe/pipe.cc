// The shared in-order pipe machinery (see pipe.h). Sync items are handled here so every pipe
// obeys the same rules: wait_flag blocks the head until its flag is visible and then consumes
// it; set_flag fires once every earlier instruction of the pipe has ended, without blocking
// later ones; pipe_barrier holds later instructions until every earlier one has ended.
#include "sim/pipe/pipe.h"

#include <algorithm>
#include <cstring>

#include "sim/isa/opcode.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/timeline.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {

uint32_t ScratchPool::Acquire(uint64_t bytes) {
  uint32_t index;
  if (free_.empty()) {
    index = static_cast<uint32_t>(buffers_.size());
    buffers_.emplace_back();
  } else {
    index = free_.back();
    free_.pop_back();
  }
  // Only grow: a smaller instruction reuses the buffer without touching its bytes. Never empty,
  // so a 0-byte move still gets a real pointer (memset and memcpy take no null, even for 0).
  const uint64_t size = std::max<uint64_t>(bytes, 1);
  if (buffers_[index].size() < size) buffers_[index].resize(size);
  return index;
}

Pipe::Pipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
           PipeListener& listener)
    : ctx_(ctx),
      id_(id),
      core_(core),
      flags_(flags),
      listener_(listener),
      queue_(queue_depth),
      held_(ctx.unknown != nullptr ? queue_depth : 1) {
  stats_.pipe = std::string(PipeName(id));
}

void Pipe::ResetStats() {
  stats_ = PipeStats();
  stats_.pipe = std::string(PipeName(id_));
}

void Pipe::Push(const IssuedInstr& in) {
  queue_.push_back(in);
  queue_.back().ranges = nullptr;  // they stay with the issue stage (IssueSlot)
  if (ctx_.unknown != nullptr) {
    HeldRanges h;
    h.n = in.ranges != nullptr ? in.num_ranges : 0;
    for (uint8_t i = 0; i < h.n; ++i) h.r[i] = in.ranges[i];
    held_.push_back(h);
  }
  if (queue_.size() == 1) ScheduleStart(in.ready);
}

void Pipe::ScheduleStart(Cycle at) {
  if (at >= pending_start_) return;
  pending_start_ = at;
  ctx_.events.Push(at, EventKind::kStart, core_, static_cast<uint8_t>(id_), 0);
}

uint32_t Pipe::AllocateSlot() {
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  slots_[slot].used = true;
  ++in_flight_;
  return slot;
}

void Pipe::TryStart(Cycle now) {
  if (pending_start_ <= now) pending_start_ = Cycle::Max();
  while (!queue_.empty() && !ctx_.stopped) {
    if (!StartHead(now)) break;
  }
}

const Instr* Pipe::EventInstr(EventKind kind, uint64_t payload) const {
  if (kind == EventKind::kEnd) return payload < slots_.size() ? slots_[payload].instr : nullptr;
  return queue_.empty() ? nullptr : queue_.front().instr;
}

const IssuedInstr* Pipe::BlockedWait() const {
  if (queue_.empty()) return nullptr;
  const IssuedInstr& head = queue_.front();
  if (SyncRoleOf(Info(head.instr->opcode).op_class) != SyncRole::kWaitFlag ||
      flags_.IsSet(head.flag)) {
    return nullptr;
  }
  return &head;
}

const IssuedInstr* Pipe::BlockedSet() const {
  if (queue_.empty()) return nullptr;
  const IssuedInstr& head = queue_.front();
  if (SyncRoleOf(Info(head.instr->opcode).op_class) != SyncRole::kSetFlag ||
      !flags_.SetMustWait(head.flag)) {
    return nullptr;
  }
  return &head;
}

void Pipe::AccountBusy(Cycle start, Cycle end) {
  if (end <= busy_until_) return;
  stats_.busy_cycles += (end - MaxCycle(start, busy_until_)).value();
  busy_until_ = end;
}

void Pipe::Record(const IssuedInstr& in, Cycle start, Cycle end) {
  ++stats_.instructions;
  ++ctx_.instructions;
  if (ctx_.timeline == nullptr) return;
  TimelineEntry& e = ctx_.timeline->emplace_back();
  e.instr = in.instr;
  e.core = core_;
  e.block_idx = block_;
  e.pipe = id_;
  e.issue_cycle = in.issue.value();
  e.start_cycle = start.value();
  e.end_cycle = end.value();
  if (SyncRoleOf(Info(in.instr->opcode).op_class) == SyncRole::kCrossCoreSet) {
    e.event_id = in.flag;  // the cross-core flag id; no HardEvent
  } else {
    e.event = static_cast<uint8_t>(flags_.EventOf(in.flag));
    e.event_id = flags_.IdOf(in.flag);
  }
  e.barrier_pipe = in.barrier_pipe;
}

bool Pipe::StartHead(Cycle now) {
  const IssuedInstr& in = queue_.front();
  SyncRole role = SyncRoleOf(Info(in.instr->opcode).op_class);
  Cycle earliest = MaxCycle(in.ready, accept_at_);
  if (role == SyncRole::kBarrier) earliest = MaxCycle(earliest, max_end_);
  // Only an instruction with a unit flag waits on state the core's units share: the others do
  // not ask (every pipe start passes here).
  bool gated = role == SyncRole::kNone && in.unit.mode != 0;
  if (gated) {
    // Blocked (Cycle::Max()): the core wakes the pipe when what it waits for changes.
    Cycle gate = listener_.StartGate(in);
    if (gate == Cycle::Max()) return false;
    earliest = MaxCycle(earliest, gate);
  }
  if (earliest > now) {
    ScheduleStart(earliest);
    return false;
  }
  switch (role) {
    case SyncRole::kWaitFlag: {
      // Blocked: the flag's visibility event calls TryStart again.
      if (!flags_.IsSet(in.flag)) return false;
      flags_.Clear(in.flag);
      // The record spans the wait, as the trace draws it: from when it became the head.
      const Cycle waited_from = MaxCycle(earliest, last_start_);
      stats_.wait_flag_cycles += (now - waited_from).value();
      Record(in, waited_from, now);
      last_activity_ = MaxCycle(last_activity_, now);
      listener_.OnWaitPassed(in.flag, in.instr, now);
      break;
    }
    case SyncRole::kSetFlag:
    case SyncRole::kCrossCoreSet: {
      if (role == SyncRole::kSetFlag) {
        // A set reaching a set bit holds the pipe until a wait clears it (the core wakes this
        // pipe then); the devkit's SetFlag page: two sets in a row hang a later PIPE_ALL barrier.
        if (flags_.SetMustWait(in.flag)) return false;
        flags_.Started(in.flag);
      }
      Cycle fire = MaxCycle(now, max_end_);
      uint32_t slot = AllocateSlot();
      slots_[slot].is_set_flag = true;
      slots_[slot].is_cross_set = role == SyncRole::kCrossCoreSet;
      slots_[slot].flag = in.flag;
      slots_[slot].instr = in.instr;
      max_end_ = fire;
      ctx_.events.Push(fire, EventKind::kEnd, core_, static_cast<uint8_t>(id_), slot);
      Record(in, now, fire);
      break;
    }
    case SyncRole::kBarrier: {
      accept_at_ = now + Cycle(ctx_.config.barrier_cycles);
      last_activity_ = MaxCycle(last_activity_, accept_at_);
      Record(in, now, accept_at_);
      break;
    }
    case SyncRole::kNone: {
      // A mask/repeat-form result is the image of dst's span plus a byte mask of the lanes.
      // A padded copy's UB side holds more than the bytes it streams; a merge's register
      // follows the image and the mask.
      bool skip = false;
      if (ctx_.unknown != nullptr && !SourcesKnown(in, held_.front(), now, &skip)) return false;
      uint32_t scratch = scratch_.Acquire(in.repeat_form ? 2 * in.dst.chunk_bytes + in.reg.bytes()
                                                         : std::max(in.bytes, in.dst.bytes()));
      ctx_.skip_payload = skip;
      PipeTiming t = Execute(in, now, scratch_.data(scratch));
      ctx_.skip_payload = false;
      if (skip) {
        // Unknown from its start: a register it sets changes now (CMPMASK), and an instruction
        // chained onto its result (an accumulating Mmad) starts before it ends.
        const HeldRanges& h = held_.front();
        for (uint8_t i = 0; i < h.n; ++i) {
          if (h.r[i].write) ctx_.unknown->Mark(core_, h.r[i], UnknownBytes::kUnknown);
        }
      }
      uint32_t slot = AllocateSlot();
      slots_[slot].skipped = skip;
      if (ctx_.unknown != nullptr) {
        const HeldRanges& h = held_.front();
        HeldRanges& w = slots_[slot].writes;
        w.n = 0;
        for (uint8_t i = 0; i < h.n; ++i) {
          if (h.r[i].write) w.r[w.n++] = h.r[i];
        }
        slots_[slot].exact = !in.repeat_form && in.atomic_type == DType::kInvalid;
      }
      slots_[slot].is_set_flag = false;
      slots_[slot].instr = in.instr;
      slots_[slot].scratch = scratch;
      slots_[slot].dst = in.dst;
      slots_[slot].gm_write = in.transfer == TransferKind::kGmWrite;
      slots_[slot].gm = GmSpan{in.dst_addr, in.dst.chunk_bytes, in.dst.pitch, in.dst.chunks};
      slots_[slot].masked = in.repeat_form;
      slots_[slot].atomic_type = in.atomic_type;
      slots_[slot].atomic_op = in.atomic_op;
      slots_[slot].reg = in.reg;
      accept_at_ = t.accept_next;
      max_end_ = MaxCycle(max_end_, t.end);
      AccountBusy(now, t.end);
      stats_.bytes += in.bytes;
      ctx_.events.Push(t.end, EventKind::kEnd, core_, static_cast<uint8_t>(id_), slot);
      Record(in, now, t.end);
      if (gated) listener_.OnStart(in, now, t.end);
      break;
    }
  }
  queue_.pop_front();
  last_start_ = now;
  if (ctx_.unknown != nullptr) held_.pop_front();
  listener_.OnQueueSpace(id_, now);
  // A wait or barrier is done once it starts: a PIPE_ALL drain may be waiting for just that.
  if (role == SyncRole::kWaitFlag || role == SyncRole::kBarrier) listener_.OnInstrEnd(id_, now);
  return true;
}

void Pipe::OnEnd(uint64_t slot_index, Cycle now) {
  InFlight& f = slots_[slot_index];
  if (f.is_set_flag && f.is_cross_set) {
    listener_.OnCrossCoreSet(f.flag, f.instr, now);
  } else if (f.is_set_flag) {
    listener_.OnSetFlag(f.flag, f.instr, now);
  } else if (f.skipped) {
    // Timing-only: nothing computed lands; what it would have written became unknown when it
    // started. The GM checker still sees the write, so that the launch's ordering findings
    // stay those of a full run.
    if (f.gm_write && ctx_.gm_check != nullptr) {
      ctx_.gm_check->OnWrite(SiteOf(f.instr, now), f.gm, scratch_.data(f.scratch),
                             f.atomic_type != DType::kInvalid);
    }
    if (f.gm_write && ctx_.cross != nullptr && ctx_.cross->watching_gm()) {
      ctx_.cross->OnGmWrite(f.gm.addr, f.gm.addr + (f.gm.chunks - 1) * f.gm.pitch + f.gm.chunk,
                            now);
    }
    scratch_.Release(f.scratch);
  } else {
    if (ctx_.unknown != nullptr) MarkWrites(f);
    const uint8_t* src = scratch_.data(f.scratch);
    bool atomic = f.gm_write && f.atomic_type != DType::kInvalid;
    if (f.gm_write && ctx_.gm_check != nullptr)
      ctx_.gm_check->OnWrite(SiteOf(f.instr, now), f.gm, src, atomic);
    // A GM wait of another core may be watching these bytes: it re-polls once they land.
    if (f.gm_write && ctx_.cross != nullptr && ctx_.cross->watching_gm()) {
      ctx_.cross->OnGmWrite(f.gm.addr, f.gm.addr + (f.gm.chunks - 1) * f.gm.pitch + f.gm.chunk,
                            now);
    }
    if (atomic) {
      // Read-modify-write of each element when the store lands: stores of several cores into
      // one range accumulate in the order their copies end (ascendc-semantics.md 5.12).
      for (uint64_t c = 0; c < f.dst.chunks; ++c) {
        AtomicCombine(f.atomic_op, f.atomic_type, f.dst.base + c * f.dst.pitch,
                      src + c * f.dst.chunk_bytes, f.dst.chunk_bytes);
      }
    } else if (f.masked) {
      // Inactive lanes keep whatever UB holds when the result lands.
      const uint8_t* written = src + f.dst.chunk_bytes;
      MaskedCopy(f.dst.base, src, written, f.dst.bytes());
      // A register the instruction sets lands with its result.
      if (f.reg.base != nullptr) {
        std::memcpy(f.reg.base, src + 2 * f.dst.chunk_bytes, f.reg.bytes());
      }
    } else {
      for (uint64_t c = 0; c < f.dst.chunks; ++c) {
        std::memcpy(f.dst.base + c * f.dst.pitch, src + c * f.dst.chunk_bytes, f.dst.chunk_bytes);
      }
    }
    scratch_.Release(f.scratch);
  }
  f.used = false;
  free_slots_.push_back(static_cast<uint32_t>(slot_index));
  --in_flight_;
  last_activity_ = MaxCycle(last_activity_, now);
  listener_.OnInstrEnd(id_, now);
}

namespace {

// Whether the sources of `in` decide which bytes it touches or how long it takes (gather and
// scatter offsets, address lists and gather_mask's patterns, whose ranges are hulls; bilinear
// offsets; a merge's early stop): its element math cannot be skipped then without changing the
// timing.
bool SourcesDecideTiming(const IssuedInstr& in, const MemRange* ranges, uint8_t n,
                         const MemRange& r) {
  OpClass c = Info(in.instr->opcode).op_class;
  if (c == OpClass::kVecBilinear || c == OpClass::kVecMrgSort) return true;
  if (c == OpClass::kVecMove)
    return std::any_of(ranges, ranges + n, [](const MemRange& h) { return h.hull; });
  // select's mode 2 reads its selection bits at the UB address CMPMASK holds.
  constexpr uint8_t kSelTensorTensor = 2;
  return c == OpClass::kVecSelect && in.from_cmp_mask && in.instr->kind == kSelTensorTensor &&
         r.space == MemSpace::kCmpMask;
}

}  // namespace

bool Pipe::SourcesKnown(const IssuedInstr& in, const HeldRanges& held, Cycle now, bool* skip) {
  bool known = true;
  // An atomic store reads what GM holds where it lands.
  bool atomic = in.atomic_type != DType::kInvalid;
  for (uint8_t i = 0; i < held.n; ++i) {
    const MemRange& r = held.r[i];
    if (r.write && !(atomic && r.space == MemSpace::kGm)) continue;
    if (ctx_.unknown->AllKnown(core_, r)) continue;
    known = false;
    if (!SourcesDecideTiming(in, held.r, held.n, r)) continue;
    Site site = SiteOf(in.instr, now);
    ctx_.diags.Error(ctx_.diags.Make(
        Diagnostic::Kind::kTimingOnlyRead, Diagnostic::Severity::kError, site,
        ctx_.diags.Prefix(site) + ": its addresses or its length come from " +
            std::string(MemSpaceName(r.space)) + " [" + std::to_string(r.lo) + ", " +
            std::to_string(r.hi) +
            "), which this timing-only launch did not compute (the host's tensors are not "
            "copied into a core, nor is what depends on them). Fix: launch this kernel without "
            "timing_only; docs/timing_only.md says what such a launch can run."));
    ctx_.Stop(LaunchResult::Status::kKernelFault);
    return false;
  }
  *skip = !known;
  return true;
}

void Pipe::MarkWrites(const InFlight& f) {
  if (!f.exact) return;  // masked, atomic: the bytes it may not cover stay as they were
  for (uint8_t i = 0; i < f.writes.n; ++i) {
    // Computed from known bytes; a scattered write (a hull) may not cover its range either.
    if (!f.writes.r[i].hull) ctx_.unknown->Mark(core_, f.writes.r[i], UnknownBytes::kKnown);
  }
}

}  // namespace aicore::sim
