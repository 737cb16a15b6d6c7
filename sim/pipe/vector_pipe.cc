// Vector instruction execution and timing (see vector_pipe.h). The result is computed when the
// instruction starts (its sources are read then) and written to UB at its end event.
#include "sim/pipe/vector_pipe.h"

#include "sim/core/invariant.h"
#include "sim/isa/opcode.h"
#include "sim/pipe/dma_pipe.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/pipe_factory.h"

namespace aicore::sim {

std::unique_ptr<Pipe> CreateVectorPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  return std::make_unique<VectorPipe>(env.core, queue_depth, env.ctx, env.flags, env.listener);
}

VectorPipe::VectorPipe(uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
                       PipeListener& listener)
    : Pipe(PipeId::kV, core, queue_depth, ctx, flags, listener),
      banks_(ctx.config.ub_banks, ctx.config.ub_bytes, ctx.config.vector_repeat_bytes) {}

PipeTiming VectorPipe::Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const Instr& instr = *in.instr;
  OpClass cls = Info(instr.opcode).op_class;
  if (cls == OpClass::kDataCopy) {
    SIM_CHECK(in.transfer == TransferKind::kLocalCopy, "PIPE_V got a copy to or from GM");
    Gather(in.src0, scratch);
    return DmaTiming(ctx_.config.ub_copy, in.bytes, in.bursts, now, nullptr);
  }
  const OpcodeInfo& info = Info(instr.opcode);
  SIM_CHECK(info.semantics != nullptr,
            std::string(info.mnemonic) + " reached PIPE_V without vector semantics");
  info.semantics(
      VecOperands{instr.dtype, in.src0.base, in.src1.base, scratch, in.count, in.scalar_bits});
  // Counter mode: the hardware runs ceil(bytes / repeat_bytes) repeats, the last one partial.
  // A repeat whose blocks collide in UB bank groups takes one beat per colliding block, so its
  // cycles are multiplied by its worst N-way conflict.
  const VectorCost& cost = ctx_.costs.Vector(instr.opcode, instr.dtype);
  uint64_t repeat_bytes = ctx_.config.vector_repeat_bytes;
  uint64_t repeats = (in.bytes + repeat_bytes - 1) / repeat_bytes;
  uint64_t srcs[2] = {in.src0_addr, in.src1_addr};
  uint64_t beats = banks_.Beats(srcs, cls == OpClass::kVecBinary ? 2 : 1, in.dst_addr, in.bytes);
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
