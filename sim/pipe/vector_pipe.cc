// Vector instruction execution and timing (see vector_pipe.h). The result is computed when the
// instruction starts (its sources are read then) and written to UB at its end event.
#include "sim/pipe/vector_pipe.h"

#include <algorithm>
#include <cstring>

#include "sim/core/invariant.h"
#include "sim/isa/opcode.h"
#include "sim/isa/semantics/deq.h"
#include "sim/pipe/dma_pipe.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/layout_functions.h"
#include "sim/pipe/pipe_executors.h"
#include "sim/pipe/pipe_factory.h"

namespace aicore::sim {

namespace {
PipeTiming ExecuteRepeat(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
}  // namespace

std::unique_ptr<Pipe> CreateVectorPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  return std::make_unique<VectorPipe>(env.core, queue_depth, env.ctx, env.flags, env.listener,
                                      env.registers, env.moves);
}

VectorPipe::VectorPipe(uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
                       PipeListener& listener, CoreRegisters& registers,
                       PayloadPool<MoveArgs>& moves)
    : Pipe(PipeId::kV, core, queue_depth, ctx, flags, listener),
      banks_(ctx.config.ub_banks, ctx.config.ub_bytes, ctx.config.vector_repeat_bytes),
      registers_(registers),
      moves_(moves) {}

PipeTiming VectorPipe::Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  return FunctionsOf(Info(in.instr->opcode).op_class).vexec(*this, in, now, scratch);
}

// A UB -> UB data_copy.
PipeTiming ExecuteLocalCopy(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  SIM_CHECK(in.transfer == TransferKind::kLocalCopy, "PIPE_V got a copy to or from GM");
  Gather(in.src0, scratch);
  return pipe.ctx().transfers->Cost(LocalTransfer(RouteRow::kUbCopy, in), now, nullptr);
}

// set_cmp_mask / get_cmp_mask: 16 bytes between UB and CMPMASK.
PipeTiming ExecuteCmpMask(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const Instr& instr = *in.instr;
  bool set = instr.opcode == Opcode::kVecSetCmpMask;
  Info(instr.opcode)
      .semantics(VecOperands{instr.dtype, set ? in.src0.base : pipe.cmp_mask(), nullptr,
                             set ? pipe.cmp_mask() : scratch, kCmpMaskBytes});
  return pipe.Timing(pipe.ctx().costs.Vector(instr.opcode, instr.dtype), 1, 1, now);
}

// An instruction of no PIPE_V layout reached the pipe: the simulator's bug.
PipeTiming NoVectorExec(VectorPipe& /*pipe*/, const IssuedInstr& in, Cycle now,
                        uint8_t* /*scratch*/) {
  SIM_CHECK(false, std::string(Info(in.instr->opcode).mnemonic) +
                       " reached PIPE_V without vector semantics");
  return PipeTiming{now, now};
}

// Lane-by-lane compute: the count form over whole operands, or the mask/repeat form one
// iteration at a time (ExecuteRepeat).
PipeTiming ExecuteElementwise(VectorPipe& pipe, const IssuedInstr& in, Cycle now,
                              uint8_t* scratch) {
  if (in.repeat_form) return ExecuteRepeat(pipe, in, now, scratch);
  const Instr& instr = *in.instr;
  const OpcodeInfo& info = Info(instr.opcode);
  OpClass cls = info.op_class;
  info.semantics(VecOperands{instr.dtype, in.src0.base, in.src1.base, scratch, in.count,
                             in.scalar_bits, in.dst.base, instr.src_dtype, instr.kind});
  // Counter mode: the hardware runs ceil(bytes / repeat_bytes) repeats, the last one partial;
  // a cast's repeats hold 256 bytes of its wider type.
  const LaunchContext& ctx = pipe.ctx();
  const VectorCost& cost = ctx.costs.Vector(instr.opcode, instr.dtype);
  uint64_t repeat_bytes = ctx.config.vector_repeat_bytes;
  uint64_t lane_bytes = std::max(in.bytes, in.src0.bytes());
  uint64_t repeats = (lane_bytes + repeat_bytes - 1) / repeat_bytes;
  uint64_t srcs[2] = {in.src0_addr, in.src1_addr};
  uint64_t beats = pipe.banks().Beats(srcs, VectorSources(cls), in.dst_addr, in.bytes);
  return pipe.Timing(cost, repeats, beats, now);
}

namespace {

// ACC_VAL += one iteration's sum: the row's own addition (a two-lane tree), so the total is
// rounded to the element type after every iteration, as each sum is.
void Accumulate(const OpcodeInfo& info, DType dtype, const uint8_t* sum, bool have_total,
                uint8_t* total) {
  uint64_t esize = DTypeSize(dtype);
  if (!have_total) {
    std::memcpy(total, sum, esize);
    return;
  }
  alignas(8) uint8_t pair[2 * sizeof(uint64_t)];
  alignas(8) uint8_t out[2 * sizeof(uint64_t)] = {};
  std::memcpy(pair, total, esize);
  std::memcpy(pair + esize, sum, esize);
  uint8_t both[2] = {1, 1};
  VecOperands ops{dtype, pair, nullptr, out, 2};
  ops.active = both;
  info.semantics(ops);
  std::memcpy(total, out, esize);
}

}  // namespace

// Select's register form in mode 2: the selection bits at the UB address CMPMASK holds (its low
// 64 bits) as the instruction runs. Bits outside UB fault at the instruction's line.
bool VectorPipe::SelectBitsAtCmpMaskAddress(const IssuedInstr& in, Cycle now, const uint8_t** bits,
                                            uint64_t* bytes) {
  const VecGeometry& g = in.geo;
  // The address is CMPMASK's low 32 bits: CANN's library writes it as one uint32 and leaves the
  // next word to whatever the buffer held (power's int path, power_common_utils.h).
  uint32_t addr32 = 0;
  std::memcpy(&addr32, registers_.cmp_mask, sizeof(addr32));
  uint64_t addr = addr32;
  uint64_t n = g.repeats * g.lanes_per_repeat();
  if (g.counter) n = std::min(n, g.count);
  *bytes = (n + 7) / 8;
  if (addr <= in.move_ub_bytes && *bytes <= in.move_ub_bytes - addr) {
    *bits = in.move_ub + addr;
    return true;
  }
  FaultOutOfBounds(*in.instr, now,
                   "the selection bits at the UB address CMPMASK holds, [" + std::to_string(addr) +
                       ", " + std::to_string(addr + *bytes) + "), are outside UB (" +
                       std::to_string(in.move_ub_bytes) +
                       " bytes). Fix: load CMPMASK (set_cmp_mask) with sel_mask's get_phy_addr() "
                       "as a uint64.");
  return false;
}

// An address that depends on data reached outside its memory: an error at the instruction's
// line, and the launch stops (the chip raises an exception).
void VectorPipe::FaultOutOfBounds(const Instr& instr, Cycle now, const std::string& what) {
  Site site = SiteOf(&instr, now);
  ctx_.diags.Error(ctx_.diags.Make(Diagnostic::Kind::kOutOfBounds, Diagnostic::Severity::kError,
                                   site, ctx_.diags.Prefix(site) + ": " + what));
  ctx_.Stop(LaunchResult::Status::kKernelFault);
}

namespace {

// A counter-mode copy of more lanes an iteration than a repeat holds: each lane moved on its own,
// in iteration order; the pipe is held for the repeats the lanes fill.
template <typename Read>
PipeTiming ExecuteWideCopy(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* image,
                           uint8_t* written, const Read& read) {
  const VecGeometry& g = in.geo;
  uint32_t size = g.SizeOf(0);
  uint8_t lane[sizeof(uint64_t)];
  for (uint64_t r = 0; r < g.repeats; ++r) {
    for (uint64_t e = 0; e < g.wide_lanes; ++e) {
      auto lane_index = static_cast<uint32_t>(e);
      read(1, lane, in.src0.base, in.src0_addr, g.Offset(1, r, lane_index), size);
      uint64_t at = g.Offset(0, r, lane_index);
      std::memcpy(image + at, lane, size);
      std::memset(written + at, 1, size);
    }
  }
  uint64_t per_iteration = (g.wide_lanes + g.lanes_per_repeat() - 1) / g.lanes_per_repeat();
  const VectorCost& cost = pipe.ctx().costs.Vector(in.instr->opcode, in.instr->dtype);
  return pipe.Timing(cost, g.repeats * per_iteration, g.repeats * per_iteration, now);
}

// One iteration at a time: its active source lanes gathered densely, the element function run on
// them, the results scattered into dst's image with their bytes marked. Iterations run in order,
// each reading UB as the earlier ones left it: a source byte an earlier iteration wrote comes
// from the image (CANN's softmax reductions accumulate across iterations by a repeat stride of
// 0, docs/adv.md "softmax").
PipeTiming ExecuteRepeat(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const Instr& instr = *in.instr;
  const OpcodeInfo& info = Info(instr.opcode);
  const VecGeometry& g = in.geo;
  uint64_t span = in.dst.chunk_bytes;
  uint8_t* image = scratch;
  uint8_t* written = scratch + span;
  std::memset(written, 0, span);
  // A compare's last byte may be partly outside its lanes: those bits keep dst's value.
  if (g.dst_bits && span > 0) std::memcpy(image, in.dst.base, span);
  constexpr uint64_t kRepeatBytes = kVectorRepeatBlocks * kVectorBlockBytes;
  alignas(8) uint8_t src0[kRepeatBytes];
  alignas(8) uint8_t src1[kRepeatBytes];
  alignas(8) uint8_t old_dst[kRepeatBytes];
  alignas(8) uint8_t result[kRepeatBytes];
  uint8_t select[kRepeatBytes];  // select: the iteration's bits, one byte per lane
  uint8_t active[kRepeatBytes];  // reductions: the iteration's active lanes, one byte per lane
  uint32_t lanes = g.lanes_per_repeat();
  int sources = in.src1.base == nullptr ? std::min(VectorSources(info.op_class), 1)
                                        : VectorSources(info.op_class);
  bool reads_dst = VectorReadsDst(info.op_class);
  constexpr uint8_t kSelCmpMask = 0, kSelTensorScalar = 1, kSelTensorTensor = 2;  // SelMode
  bool is_select = info.op_class == OpClass::kVecSelect;
  const uint8_t* sel_bits = in.sel.base;
  uint64_t sel_bytes = in.sel.chunk_bytes;
  if (is_select && in.from_cmp_mask && instr.kind == kSelTensorTensor &&
      !pipe.SelectBitsAtCmpMaskAddress(in, now, &sel_bits, &sel_bytes)) {
    return pipe.Timing(pipe.ctx().costs.Vector(instr.opcode, instr.dtype), g.repeats, g.repeats,
                       now);
  }
  // The scalar-register select: the scalar is CMPMASK's first element when the instruction runs.
  uint64_t scalar_bits = in.scalar_bits;
  if (is_select && in.from_cmp_mask && instr.kind == kSelTensorScalar) {
    std::memcpy(&scalar_bits, pipe.cmp_mask(), g.esize);
  }
  uint8_t cmp_bits[kCmpMaskBytes] = {};  // compare's register form: lanes not compared are 0
  // vcadd's accumulate flag: the running total of the iterations' sums, in iteration order.
  alignas(8) uint8_t total[2 * sizeof(uint64_t)] = {};
  bool have_total = false;
  uint64_t deq_words[kDeqVectorWords] = {};  // cast_deq's vector form: UB as the instruction starts
  if (in.deq.base != nullptr) std::memcpy(deq_words, in.deq.base, sizeof(deq_words));
  // `n` bytes of an operand at UB address `addr + at`: from dst's image where an earlier
  // iteration wrote them all, else from UB. Only a source whose span meets dst's can see a write.
  auto meets_dst = [&](uint64_t addr, uint64_t bytes) {
    return span > 0 && addr < in.dst_addr + span && in.dst_addr < addr + bytes;
  };
  const bool seen[3] = {reads_dst, sources >= 1 && meets_dst(in.src0_addr, g.Span(1)),
                        sources == 2 && meets_dst(in.src1_addr, g.Span(2))};
  auto read = [&](int k, uint8_t* out, const uint8_t* base, uint64_t addr, uint64_t at,
                  uint32_t n) {
    uint64_t ub = addr + at;
    if (seen[k] && ub >= in.dst_addr && ub - in.dst_addr + n <= span &&
        std::all_of(written + (ub - in.dst_addr), written + (ub - in.dst_addr) + n,
                    [](uint8_t w) { return w != 0; })) {
      std::memcpy(out, image + (ub - in.dst_addr), n);
    } else {
      std::memcpy(out, base + at, n);
    }
  };
  if (g.wide_lanes != 0) return ExecuteWideCopy(pipe, in, now, image, written, read);
  for (uint64_t r = 0; r < g.repeats; ++r) {
    std::memset(src0, 0, sizeof(src0));
    std::memset(src1, 0, sizeof(src1));
    std::memset(old_dst, 0, sizeof(old_dst));
    for (uint32_t e = 0; e < lanes; ++e) {
      if (!g.Active(r, e)) continue;
      uint32_t s = g.SizeOf(1);
      uint32_t d = g.SizeOf(0);
      if (sources >= 1) read(1, src0 + e * s, in.src0.base, in.src0_addr, g.Offset(1, r, e), s);
      if (sources == 2) read(2, src1 + e * s, in.src1.base, in.src1_addr, g.Offset(2, r, e), s);
      if (reads_dst) read(0, old_dst + e * d, in.dst.base, in.dst_addr, g.Offset(0, r, e), d);
    }
    const uint8_t* picks = nullptr;
    if (is_select && instr.kind == kSelCmpMask) {
      // Every iteration reuses the register's first `lanes` bits (ascendc-semantics.md 5.7).
      for (uint32_t e = 0; e < lanes; ++e) select[e] = (pipe.cmp_mask()[e / 8] >> (e % 8)) & 1u;
      picks = select;
    } else if (sel_bits != nullptr) {
      for (uint32_t e = 0; e < lanes; ++e) {
        uint64_t bit = r * lanes + e;
        select[e] = bit < sel_bytes * 8 ? (sel_bits[bit / 8] >> (bit % 8)) & 1u : 0;
      }
      picks = select;
    }
    VecOperands ops{instr.dtype,     src0,       src1, result, lanes, scalar_bits, old_dst,
                    instr.src_dtype, instr.kind, picks};
    if (in.deq.base != nullptr) ops.deq = deq_words;
    if (g.dst_per_repeat) {  // max/min must skip the lanes the mask leaves out
      for (uint32_t e = 0; e < lanes; ++e) active[e] = g.Active(r, e) ? 1 : 0;
      ops.active = active;
    }
    info.semantics(ops);
    if (in.to_cmp_mask) {  // vcmp: one iteration into CMPMASK
      for (uint32_t e = 0; e < lanes && e < kCmpMaskBytes * 8; ++e) {
        if (g.Active(r, e) && result[e] != 0)
          cmp_bits[e / 8] |= static_cast<uint8_t>(1u << (e % 8));
      }
      continue;
    }
    if (g.dst_bits) {  // a compare: one bit per lane, LSB first
      for (uint32_t e = 0; e < lanes; ++e) {
        if (!g.Active(r, e)) continue;
        uint64_t bit = r * lanes + e;
        auto mask = static_cast<uint8_t>(1u << (bit % 8));
        image[bit / 8] =
            static_cast<uint8_t>((image[bit / 8] & ~mask) | (result[e] != 0 ? mask : 0));
        written[bit / 8] = 1;
      }
      continue;
    }
    if (g.dst_per_repeat) {  // a reduction: one result per group with an active lane
      uint32_t group = g.group();
      uint64_t bytes = uint64_t{g.dst_width} * g.SizeOf(0);
      for (uint32_t first = 0; first < lanes; first += group) {
        bool any = false;
        for (uint32_t e = first; e < first + group && !any; ++e) any = active[e] != 0;
        if (!any) continue;
        uint64_t at = g.Offset(0, r, first);
        std::memcpy(image + at, result + first / group * bytes, bytes);
        std::memset(written + at, 1, bytes);
        if (in.accumulate) {
          Accumulate(info, instr.dtype, result, have_total, total);
          have_total = true;
        }
      }
      continue;
    }
    for (uint32_t e = 0; e < lanes; ++e) {
      if (!g.Active(r, e)) continue;
      uint64_t at = g.Offset(0, r, e);
      std::memcpy(image + at, result + e * g.SizeOf(0), g.SizeOf(0));
      std::memset(written + at, 1, g.SizeOf(0));
    }
  }
  if (in.to_cmp_mask) std::memcpy(pipe.cmp_mask(), cmp_bits, kCmpMaskBytes);
  if (in.accumulate) std::memcpy(written + span, total, in.reg.bytes());  // ACC_VAL at the end
  if (is_select && instr.kind != kSelCmpMask && !in.from_cmp_mask) {
    // The library's modes 1 and 2 load CMPMASK with the scalar broadcast, or sel_mask's UB
    // address (as a 64-bit value in both halves: the model's choice), before the vsel.
    uint32_t n = instr.kind == kSelTensorScalar ? g.esize : 8;
    uint64_t v = instr.kind == kSelTensorScalar ? in.scalar_bits : in.sel_addr;
    for (uint64_t at = 0; at + n <= kCmpMaskBytes; at += n)
      std::memcpy(pipe.cmp_mask() + at, &v, n);
  }
  // One pass of the pipeline per iteration; UB bank conflicts are modelled for dense operands.
  const VectorCost& cost = pipe.ctx().costs.Vector(instr.opcode, instr.dtype);
  uint64_t beats = g.repeats;
  if (g.Dense() && g.repeats > 0) {
    uint64_t srcs[2] = {in.src0_addr, in.src1_addr};
    beats = pipe.banks().Beats(srcs, sources, in.dst_addr, g.repeats * kRepeatBytes);
  }
  if (g.dst_bits && g.counter && !in.to_cmp_mask)
    return pipe.CompareCountTiming(cost, g.repeats, beats, now);
  return pipe.Timing(cost, g.repeats, beats, now);
}

}  // namespace

// Sort and proposal instructions: whole operands at once (no lanes, no mask). The scratch is dst's
// image, the bytes written, then VMS4_SR for a merge. Merge r of a repeated merge reads every
// list one pitch further on and writes after the previous merge's output.
PipeTiming ExecuteSort(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const Instr& instr = *in.instr;
  const OpcodeInfo& info = Info(instr.opcode);
  uint64_t span = in.dst.chunk_bytes;
  uint8_t* image = scratch;
  uint8_t* written = scratch + span;
  std::memset(written, 0, span);
  if (span > 0) std::memcpy(image, in.dst.base, span);
  if (info.op_class == OpClass::kVecMrgSort) {
    uint64_t eb = MergeElementBytes(instr.opcode, instr.dtype);
    uint64_t taken[4] = {0, 0, 0, 0};
    uint64_t out = 0;
    for (uint64_t r = 0; r < in.lists[0].chunks; ++r) {
      SortOperands s;
      s.lists = static_cast<int>(in.count);
      s.exhausted_suspension = in.scalar_bits != 0;
      s.taken = taken;
      for (int i = 0; i < s.lists; ++i) {
        const Transfer& t = in.lists[i];
        s.list[i] = t.base == nullptr ? nullptr : t.base + r * t.pitch;
        s.length[i] = t.chunk_bytes / eb;
      }
      VecOperands o{instr.dtype, nullptr, nullptr, image + out};
      o.sort = &s;
      info.semantics(o);
      uint64_t bytes = (taken[0] + taken[1] + taken[2] + taken[3]) * eb;
      std::memset(written + out, 1, bytes);
      out += bytes;
    }
    // VMS4_SR: the counts of the last merge, four little-endian uint16.
    uint8_t* reg = written + span;
    for (int i = 0; i < 4; ++i) {
      auto c = static_cast<uint16_t>(taken[i]);
      std::memcpy(reg + 2 * i, &c, sizeof(c));
    }
  } else {
    auto field = static_cast<uint8_t>(in.scalar_bits);
    info.semantics(VecOperands{instr.dtype, in.src0.base, in.src1.base, image, in.count, 0, nullptr,
                               DType::kInvalid, field});
    if (instr.opcode == Opcode::kVecProposalConcat) {
      uint64_t esize = DTypeSize(instr.dtype);
      for (uint64_t i = 0; i < in.count; ++i) {
        std::memset(written + (i * kProposalElements + field) * esize, 1, esize);
      }
    } else {
      std::memset(written, 1, span);
    }
  }
  const VectorCost& cost = pipe.ctx().costs.Vector(instr.opcode, instr.dtype);
  return pipe.Timing(cost, in.geo.repeats, in.geo.repeats, now);
}

// A rearrangement: its bytes moved from UB as it is now into the image of its dst span. An
// address outside UB faults here, at the line of the instruction.
PipeTiming ExecuteMove(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const Instr& instr = *in.instr;
  uint64_t span = in.dst.chunk_bytes;
  std::memset(scratch + span, 0, span);
  MoveCall call;
  call.args = &pipe.moves().Get(in.payload_slot);
  call.ub = in.move_ub;
  call.ub_bytes = in.move_ub_bytes;
  call.target = MoveTarget{in.move_lo, span, scratch, scratch + span};
  VecOperands ops;
  ops.dtype = instr.dtype;
  ops.move = &call;
  Info(instr.opcode).semantics(ops);
  if (!call.ok) {
    std::memset(scratch + span, 0, span);  // a faulting instruction writes nothing
    pipe.FaultOutOfBounds(instr, now, call.fault + ". Fix: keep offsets and addresses inside UB.");
  }
  if (in.move_kept != nullptr) *in.move_kept = call.kept;
  pipe.moves().Release(in.payload_slot);
  const VectorCost& cost = pipe.ctx().costs.Vector(instr.opcode, instr.dtype);
  return pipe.Timing(cost, in.geo.repeats, in.geo.repeats, now);
}

// The library issues a count-form compare as instructions of at most 252 repeats plus a tail
// instruction, issued even when its repeat count is 0 (ascendc-semantics.md 5.6, 6.2). They
// run back to back in this pipe: each holds it for its own repeats (at least a cycle), and the
// last one's result lands per_call_cycles after it.
namespace {
// Not a cost: the library's instruction sequence for a count-form compare (ascendc-semantics.md
// 5.6), which decides how many instructions there are.
constexpr uint64_t kMaxCompareRepeats = 252;
}  // namespace

PipeTiming VectorPipe::CompareCountTiming(const VectorCost& cost, uint64_t repeats, uint64_t beats,
                                          Cycle now) {
  uint64_t full = repeats / kMaxCompareRepeats;
  const uint64_t chunks[] = {kMaxCompareRepeats, repeats % kMaxCompareRepeats};
  double per_repeat = repeats > 0 ? static_cast<double>(beats) / static_cast<double>(repeats) : 1;
  Cycle occupancy(0);
  Cycle ideal(0);
  for (uint64_t i = 0; i <= full; ++i) {
    uint64_t n = i < full ? chunks[0] : chunks[1];
    auto cycles = [&](double b) {
      return MaxCycle(Cycle(1), CeilCycles(b * static_cast<double>(n) * cost.cycles_per_repeat));
    };
    occupancy = occupancy + cycles(per_repeat);
    ideal = ideal + cycles(1.0);
  }
  mutable_stats().bank_conflict_cycles += (occupancy - ideal).value();
  mutable_stats().instructions += full;  // the pipe counted the first one
  ctx_.instructions += full;
  PipeTiming t;
  t.accept_next = now + occupancy;
  t.end = t.accept_next + CeilCycles(cost.per_call_cycles);
  return t;
}

// A repeat whose blocks collide in UB bank groups takes one beat per colliding block: the pipe
// accepts the next instruction after beats * cycles_per_repeat, the result lands per_call later.
PipeTiming VectorPipe::Timing(const VectorCost& cost, uint64_t repeats, uint64_t beats, Cycle now) {
  Cycle ideal = CeilCycles(static_cast<double>(repeats) * cost.cycles_per_repeat);
  Cycle occupancy =
      MaxCycle(Cycle(1), CeilCycles(static_cast<double>(beats) * cost.cycles_per_repeat));
  mutable_stats().bank_conflict_cycles += (occupancy - MaxCycle(Cycle(1), ideal)).value();
  PipeTiming t;
  t.accept_next = now + occupancy;
  t.end = t.accept_next + CeilCycles(cost.per_call_cycles);
  return t;
}

}  // namespace aicore::sim
