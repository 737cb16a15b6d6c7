// The data movers (see dma_pipe.h) and their copies: sources are read when the copy starts, the
// destination is written when it ends.
#include "sim/pipe/dma_pipe.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "sim/core/invariant.h"
#include "sim/isa/opcode.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/layout_functions.h"
#include "sim/pipe/pipe_executors.h"
#include "sim/pipe/pipe_factory.h"
#include "sim/pipe/pipe_figures.h"

namespace aicore::sim {

std::unique_ptr<Pipe> CreateDmaPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  const PipeFigures* figures = FiguresOf(id);
  DmaCostConfig SocConfig::*cost =
      env.dma_cost != nullptr ? env.dma_cost : (figures != nullptr ? figures->dma : nullptr);
  RouteRow route = RouteRow::kMte2;
  SIM_CHECK(cost != nullptr && RouteRowOf(cost, &route),
            "no route row for PIPE_" + std::string(PipeName(id)));
  return std::make_unique<DmaPipe>(id, env.core, queue_depth, env.ctx, env.flags, env.listener,
                                   route, env.cube_args);
}

DmaPipe::DmaPipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx,
                 FlagFile& flags, PipeListener& listener, RouteRow route,
                 PayloadPool<CubeArgs>& cube_args)
    : Pipe(id, core, queue_depth, ctx, flags, listener), route_(route), cube_args_(cube_args) {}

namespace {

// data_copy_pad's bytes as they land, dst's chunks back to back (see PadLayout): a GM -> UB
// block padded to 32 bytes, or a UB -> GM chunk without the dummy bytes of its last block.
void GatherPadded(const IssuedInstr& in, uint8_t* out) {
  const PadLayout& p = in.pad;
  uint64_t data = in.transfer == TransferKind::kGmRead ? in.src0.chunk_bytes : in.dst.chunk_bytes;
  for (uint64_t c = 0; c < in.dst.chunks; ++c) {
    uint8_t* block = out + c * in.dst.chunk_bytes;
    const uint8_t* src = in.src0.base + c * in.src0.pitch;
    if (in.transfer == TransferKind::kGmWrite) {
      std::memcpy(block, src, data);
      continue;
    }
    auto fill = [&](uint64_t from, uint64_t to, const uint8_t* element) {
      for (uint64_t at = from; at + p.esize <= to; at += p.esize) {
        std::memcpy(block + at, element, p.esize);
      }
    };
    uint8_t value[8];
    std::memcpy(value, &p.fill_bits, sizeof(value));  // little-endian: the element's bytes
    fill(0, p.left, value);
    std::memcpy(block + p.left, src, data);
    fill(p.left + data, p.left + data + p.right, value);
    // The dummy up to 32 bytes repeats the block's first element without paddings, else the
    // pad value (ascendc-semantics.md 5.11 leaves the latter unconfirmed: model's choice).
    bool no_pads = p.left == 0 && p.right == 0;
    fill(p.left + data + p.right, in.dst.chunk_bytes, no_pads ? src : value);
  }
}

}  // namespace

PipeTiming DmaPipe::Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  return FunctionsOf(Info(in.instr->opcode).op_class).dexec(*this, in, now, scratch);
}

// An instruction of no DMA layout reached an engine: the simulator's bug.
PipeTiming NoDmaExec(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* /*scratch*/) {
  SIM_CHECK(false, std::string(Info(in.instr->opcode).mnemonic) + " reached PIPE_" +
                       std::string(PipeName(pipe.id())) + ", which has no executor for it");
  return PipeTiming{now, now};
}

// data_copy and data_copy_pad between GM and a local memory, and data_copy between two local
// memories of a cube core (L1 -> BT/FB on MTE1).
PipeTiming ExecuteDataCopy(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  bool compute = !pipe.ctx().skip_payload;  // a timing-only launch skips unknown bytes
  if (in.transfer == TransferKind::kLocalCopy) {
    if (compute) Gather(in.src0, scratch);
    return pipe.LocalMoveTiming(in, now);
  }
  SIM_CHECK(in.transfer == TransferKind::kGmRead || in.transfer == TransferKind::kGmWrite,
            "a data mover got a copy of no transfer kind");
  if (compute && in.pad.active) GatherPadded(in, scratch);
  if (compute && !in.pad.active) Gather(in.src0, scratch);
  bool reads_gm = in.transfer == TransferKind::kGmRead;
  if (reads_gm && pipe.ctx().gm_check != nullptr) {
    pipe.ctx().gm_check->OnRead(pipe.Where(in.instr, now), GmSpan{in.src0_addr, in.src0.chunk_bytes,
                                                                  in.src0.pitch, in.src0.chunks});
  }
  const Transfer& side = reads_gm ? in.src0 : in.dst;
  GmTransfer t;
  t.addr = reads_gm ? in.src0_addr : in.dst_addr;
  t.chunk_bytes = side.chunk_bytes;
  t.pitch = side.pitch;
  t.chunks = side.chunks;
  t.write = !reads_gm;
  t.mode = in.gm_cache_mode;
  return pipe.GmMoveTiming(in, t, now);
}

PipeTiming DmaPipe::GmMoveTiming(const IssuedInstr& in, const GmTransfer& t, Cycle now) {
  GmTiming gm = ctx_.gm_path.Grant(t, static_cast<double>(now.value()));
  TransferRequest r{route_, in.bytes, in.bursts, t.chunk_bytes, &t};
  uint64_t stall = 0;
  PipeTiming timing = ctx_.transfers->Cost(r, now, &gm, &stall);
  PipeStats& s = mutable_stats();
  s.bandwidth_stall_cycles += stall;
  s.l2_hit_bytes += gm.l2_hit_bytes;
  s.hbm_read_bytes += gm.hbm_read_bytes;
  s.hbm_write_bytes += gm.hbm_write_bytes;
  return timing;
}

PipeTiming DmaPipe::LocalMoveTiming(const IssuedInstr& in, Cycle now) const {
  return ctx_.transfers->Cost(LocalTransfer(route_, in), now, nullptr);
}

}  // namespace aicore::sim
