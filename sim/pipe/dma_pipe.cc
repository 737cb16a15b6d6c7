// GM <-> local copies on MTE2/MTE3 (see dma_pipe.h): sources are read when the copy starts, the
// destination is written when it ends.
#include "sim/pipe/dma_pipe.h"

#include <algorithm>
#include <string>

#include "sim/core/invariant.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/pipe_factory.h"

namespace aicore::sim {

PipeTiming DmaTiming(const DmaCostConfig& cost, uint64_t bytes, uint64_t bursts, Cycle now,
                     const GmTiming* gm, uint64_t* bandwidth_stall) {
  double efficiency = gm != nullptr ? gm->efficiency : 1.0;
  double stream = cost.per_burst_cycles * static_cast<double>(bursts) +
                  static_cast<double>(bytes) / (cost.core_bytes_per_cycle * efficiency);
  double moved = stream;
  double latency = 0;
  if (gm != nullptr && bytes > 0) {
    double start = static_cast<double>(now.value());
    moved = std::max(moved, gm->done - start);
    latency = gm->latency;
  }
  if (bandwidth_stall != nullptr) {
    *bandwidth_stall = (CeilCycles(moved) - CeilCycles(stream)).value();
  }
  PipeTiming t;
  t.accept_next = now + MaxCycle(Cycle(1), CeilCycles(stream));
  t.end = now + MaxCycle(Cycle(1), CeilCycles(moved + cost.fixed_cycles + latency));
  return t;
}

std::unique_ptr<Pipe> CreateDmaPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env) {
  const SocConfig& c = env.ctx.config;
  const DmaCostConfig* cost = id == PipeId::kMte2   ? &c.mte2
                              : id == PipeId::kMte3 ? &c.mte3
                                                    : nullptr;
  SIM_CHECK(cost != nullptr, "no DMA cost row for PIPE_" + std::string(PipeName(id)));
  return std::make_unique<DmaPipe>(id, env.core, queue_depth, env.ctx, env.flags, env.listener,
                                   *cost);
}

DmaPipe::DmaPipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx,
                 FlagFile& flags, PipeListener& listener, const DmaCostConfig& cost)
    : Pipe(id, core, queue_depth, ctx, flags, listener), cost_(cost) {}

PipeTiming DmaPipe::Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  SIM_CHECK(in.transfer == TransferKind::kGmRead || in.transfer == TransferKind::kGmWrite,
            "a DMA engine got a copy that has no GM side");
  Gather(in.src0, scratch);
  bool reads_gm = in.transfer == TransferKind::kGmRead;
  if (reads_gm && ctx_.gm_check != nullptr) {
    ctx_.gm_check->OnRead(SiteOf(in.instr, now),
                          GmSpan{in.src0_addr, in.src0.chunk_bytes, in.src0.pitch, in.src0.chunks});
  }
  const Transfer& side = reads_gm ? in.src0 : in.dst;
  GmTransfer t;
  t.addr = reads_gm ? in.src0_addr : in.dst_addr;
  t.chunk_bytes = side.chunk_bytes;
  t.pitch = side.pitch;
  t.chunks = side.chunks;
  t.write = !reads_gm;
  t.mode = in.gm_cache_mode;
  GmTiming gm = ctx_.gm_path.Transfer(t, static_cast<double>(now.value()));
  uint64_t stall = 0;
  PipeTiming timing = DmaTiming(cost_, in.bytes, in.bursts, now, &gm, &stall);
  PipeStats& s = mutable_stats();
  s.bandwidth_stall_cycles += stall;
  s.l2_hit_bytes += gm.l2_hit_bytes;
  s.hbm_read_bytes += gm.hbm_read_bytes;
  s.hbm_write_bytes += gm.hbm_write_bytes;
  return timing;
}

}  // namespace aicore::sim
