// The data movers of a core: MTE2 (GM -> local), MTE3 (local -> GM), and on a cube core MTE1
// (L1 -> L0A/L0B/BT/FB) and FIX (L0C -> GM/L1): one class with the engine's cost row; which side is
// GM comes from each copy's route (TransferKind), not from the engine, and what a move does is
// its layout's executor (sim/pipe/pipe_executors.h). Copies overlap: the engine accepts the next
// copy once it has streamed this one's bytes at its per-core rate, while the data still travels
// through L2/HBM.
#pragma once

#include "sim/core/config.h"
#include "sim/mem/gm_path.h"
#include "sim/pipe/cube_args.h"
#include "sim/pipe/payload_pool.h"
#include "sim/pipe/pipe.h"

namespace aicore::sim {

// Timing of one copy of `bytes` in `bursts` chunks starting at `now`:
//   stream = bursts * per_burst_cycles + bytes / (core_bytes_per_cycle * efficiency)
//            (engine busy; efficiency < 1 for GM addresses off gm.request_bytes)
//   moved  = max(stream, gm->done - now)  (when gm != nullptr: shared L2/HBM channels)
//   end    = now + max(1, ceil(moved + fixed_cycles + gm->latency))
//   accept_next = now + max(1, ceil(stream))
// `bandwidth_stall` (optional) receives ceil(moved) - ceil(stream): time spent waiting for
// shared bandwidth beyond the engine's own streaming.
PipeTiming DmaTiming(const DmaCostConfig& cost, uint64_t bytes, uint64_t bursts, Cycle now,
                     const GmTiming* gm, uint64_t* bandwidth_stall = nullptr);

class DmaPipe : public Pipe {
 public:
  DmaPipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
          PipeListener& listener, const DmaCostConfig& cost, PayloadPool<CubeArgs>& cube_args);

  // For the executors (sim/pipe/pipe_executors.h).
  LaunchContext& ctx() { return ctx_; }
  const DmaCostConfig& cost() const { return cost_; }
  Site Where(const Instr* instr, Cycle now) const { return SiteOf(instr, now); }
  // A move of `in`'s bytes whose GM side is `t`: its traffic through L2/HBM and the engine's
  // time for it (DmaTiming), counted in the pipe's statistics.
  PipeTiming GmMoveTiming(const IssuedInstr& in, const GmTransfer& t, Cycle now);
  // The cube moves' operands (IssuedInstr::payload_slot); the executor frees its slot.
  PayloadPool<CubeArgs>& cube_args() { return cube_args_; }

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override;

 private:
  const DmaCostConfig& cost_;
  PayloadPool<CubeArgs>& cube_args_;
};

}  // namespace aicore::sim
