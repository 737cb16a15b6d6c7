// PIPE_M (see cube_pipe.h) and its Mmad executor.
#include "sim/pipe/cube_pipe.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sim/core/invariant.h"
#include "sim/isa/opcode.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/layout_functions.h"
#include "sim/pipe/pipe_executors.h"
#include "sim/pipe/pipe_factory.h"

namespace aicore::sim {
namespace {

// The cost row's cycles per fractal step of each Mmad type (configs/ "cube").
struct MmadRate {
  cube::MmadTypes types;
  double CubeCostConfig::*fractal_cycles;
};

constexpr MmadRate kMmadRates[] = {
    {cube::MmadTypes::kF16F32, &CubeCostConfig::f16_fractal_cycles},
    {cube::MmadTypes::kBf16F32, &CubeCostConfig::bf16_fractal_cycles},
    {cube::MmadTypes::kF32F32, &CubeCostConfig::f32_fractal_cycles},
    {cube::MmadTypes::kS8S32, &CubeCostConfig::s8_fractal_cycles},
    {cube::MmadTypes::kS4S32, &CubeCostConfig::s4_fractal_cycles},
};

double FractalCycles(const CubeCostConfig& cost, const cube::MmadArgs& a) {
  cube::MmadTypes types = a.types;
  // HF32 doubles float's rate (hardware-910b.md 5).
  if (a.hf32 && types == cube::MmadTypes::kF32F32) return cost.hf32_fractal_cycles;
  for (const MmadRate& r : kMmadRates) {
    if (r.types == types) return cost.*(r.fractal_cycles);
  }
  SIM_CHECK(false, "a Mmad type without a cost row");
  return 1;
}

}  // namespace

std::unique_ptr<Pipe> CreateCubePipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  SIM_CHECK(id == PipeId::kM, "the cube pipe is PIPE_M");
  return std::make_unique<CubePipe>(env.core, queue_depth, env.ctx, env.flags, env.listener,
                                    env.cube_args);
}

CubePipe::CubePipe(uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
                   PipeListener& listener, PayloadPool<CubeArgs>& cube_args)
    : Pipe(PipeId::kM, core, queue_depth, ctx, flags, listener), cube_args_(cube_args) {}

const CubeCostConfig& CubePipe::cost() const { return ctx_.config.cube; }

PipeTiming CubePipe::Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  return FunctionsOf(Info(in.instr->opcode).op_class).cexec(*this, in, now, scratch);
}

// An instruction of no cube layout reached PIPE_M: the simulator's bug.
PipeTiming NoCubeExec(CubePipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* /*scratch*/) {
  SIM_CHECK(false, std::string(Info(in.instr->opcode).mnemonic) + " reached PIPE_" +
                       std::string(PipeName(pipe.id())) + ", which has no executor for it");
  return PipeTiming{now, now};
}

// mmad: C's image from L0A, L0B, the bias row and L0C as they are now; the pipe is busy for the
// fractal steps and the result lands fixed_cycles after them.
PipeTiming ExecuteMmad(CubePipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const CubeArgs& args = pipe.cube_args().Get(in.payload_slot);
  const cube::MmadArgs& a = args.mmad;
  uint64_t span = in.dst.chunk_bytes;
  uint64_t lo = in.dst_addr, hi = in.dst_addr + span;
  // Interlocked onto an earlier Mmad still in flight: start when it lands, from its result.
  CubePipe::LastResult& last = pipe.last_result();
  Cycle start = now;
  const uint8_t* c_old = in.dst.base;
  static thread_local std::vector<uint8_t> merged;
  if (args.interlock && last.end > now && lo < last.hi && last.lo < hi) {
    start = last.end;
    if (last.lo == lo && last.hi == hi && last.m == a.m && last.n == a.n) {
      // The K loop's usual chain: the last Mmad wrote every element this one reads.
      c_old = last.image;
    } else {
      merged.assign(in.dst.base, in.dst.base + span);
      uint64_t from = std::max(lo, last.lo), to = std::min(hi, last.hi);
      uint64_t last_span = last.hi - last.lo;
      MaskedCopy(merged.data() + (from - lo), last.image + (from - last.lo),
                 last.image + last_span + (from - last.lo), to - from);
      c_old = merged.data();
    }
  }
  if (!pipe.ctx().skip_payload) {  // a timing-only launch skips unknown operands
    std::memset(scratch + span, 0, span);
    cube::Mmad(a, in.src0.base, in.src1.base, args.bias, c_old, scratch, scratch + span);
  }
  const cube::MmadTypeRow& row = cube::MmadTypeOf(a.types);
  uint64_t steps = ((a.m + 15) / 16) * ((a.n + 15) / 16) * (cube::MmadKExtent(a) / row.c0);
  pipe.cube_args().Release(in.payload_slot);
  const CubeCostConfig& cost = pipe.cost();
  double busy = static_cast<double>(steps) * FractalCycles(cost, a);
  PipeTiming t;
  t.accept_next = start + MaxCycle(Cycle(1), CeilCycles(busy));
  t.end = start + MaxCycle(Cycle(1), CeilCycles(busy + cost.fixed_cycles));
  if (span > 0) last = CubePipe::LastResult{lo, hi, t.end, scratch, a.m, a.n};
  return t;
}

}  // namespace aicore::sim
