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
#include "sim/pipe/transfer_cost.h"

namespace aicore::sim {

class DmaPipe : public Pipe {
 public:
  DmaPipe(PipeId id, uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
          PipeListener& listener, RouteRow route, PayloadPool<CubeArgs>& cube_args);

  // For the executors (sim/pipe/pipe_executors.h).
  LaunchContext& ctx() { return ctx_; }
  Site Where(const Instr* instr, Cycle now) const { return SiteOf(instr, now); }
  // A move of `in`'s bytes whose GM side is `t`: its request granted by L2/HBM and the
  // engine's time for it (TransferCostModel::Cost), counted in the pipe's statistics.
  PipeTiming GmMoveTiming(const IssuedInstr& in, const GmTransfer& t, Cycle now);
  // A move of `in`'s bytes between two local memories of the core.
  PipeTiming LocalMoveTiming(const IssuedInstr& in, Cycle now) const;
  // The cube moves' operands (IssuedInstr::payload_slot); the executor frees its slot.
  PayloadPool<CubeArgs>& cube_args() { return cube_args_; }

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override;

 private:
  RouteRow route_;  // the preset's row that costs this engine's transfers
  PayloadPool<CubeArgs>& cube_args_;
};

}  // namespace aicore::sim
