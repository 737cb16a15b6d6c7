// GM <-> UB copies on MTE2/MTE3 (see dma_pipe.h): sources are read when the copy starts, the
// destination is written when it ends.
#include "sim/pipe/dma_pipe.h"

#include <algorithm>

#include "sim/soc/launch_context.h"

namespace aicore::sim {

PipeTiming DmaTiming(const DmaCostConfig& cost, uint64_t bytes, uint64_t bursts, Cycle now,
                     HbmArbiter* hbm, uint32_t latency_cycles) {
  double stream = cost.per_burst_cycles * static_cast<double>(bursts) +
                  static_cast<double>(bytes) / cost.core_bytes_per_cycle;
  double moved = stream;
  if (hbm != nullptr && bytes > 0) {
    double start = static_cast<double>(now.value());
    moved = std::max(moved, hbm->Grant(start, bytes) - start);
  }
  PipeTiming t;
  t.accept_next = now + MaxCycle(Cycle(1), CeilCycles(stream));
  t.end = now + MaxCycle(Cycle(1), CeilCycles(moved + cost.fixed_cycles + latency_cycles));
  return t;
}

DmaPipe::DmaPipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx,
                 FlagFile& flags, PipeListener& listener, const DmaCostConfig& cost, bool reads_gm)
    : Pipe(id, core, queue_depth, ctx, flags, listener), cost_(cost), reads_gm_(reads_gm) {}

PipeTiming DmaPipe::Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  Gather(in.src0, scratch);
  return DmaTiming(cost_, in.bytes, in.bursts, now, &ctx_.hbm,
                   reads_gm_ ? ctx_.config.gm_latency_cycles : 0);
}

}  // namespace aicore::sim
