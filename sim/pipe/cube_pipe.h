// PIPE_M of a cube core: the cube unit's Mmad. It reads L0A, L0B (and the bias table or L0C) when
// a Mmad starts and writes the m x n result into L0C when it ends; the next Mmad starts when
// this one's fractal steps have passed (ceil(m/16) * ceil(n/16) * K chunks at the type's rate,
// configs/ "cube"), so Mmads stream back to back as on the chip. An Mmad accumulating onto the
// result of one still in flight waits for it when the hardware interlocks (10 or more fractals,
// ascendc-semantics.md 3.4) and otherwise reads L0C as it is, as the chip does without
// pipe_barrier(PIPE_M). What an instruction does is its
// layout's executor (sim/pipe/pipe_executors.h); the pipe holds the state they share.
#pragma once

#include "sim/core/config.h"
#include "sim/pipe/cube_args.h"
#include "sim/pipe/payload_pool.h"
#include "sim/pipe/pipe.h"

namespace aicore::sim {

class CubePipe : public Pipe {
 public:
  CubePipe(uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
           PipeListener& listener, PayloadPool<CubeArgs>& cube_args);

  // For the executors.
  const CubeCostConfig& cost() const;
  LaunchContext& ctx() { return ctx_; }
  // The cube instructions' operands (IssuedInstr::payload_slot); the executor frees its slot.
  PayloadPool<CubeArgs>& cube_args() { return cube_args_; }

  // The last Mmad's result while it is in flight: L0C [lo, hi) as the image and byte mask its
  // scratch holds until it lands at `end` (the pipe keeps the scratch until then).
  struct LastResult {
    uint64_t lo = 0, hi = 0;
    Cycle end;
    const uint8_t* image = nullptr;
    uint32_t m = 0, n = 0;  // its C's extent: a chain of the same m x n reads the image as is
  };
  LastResult& last_result() { return last_; }

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override;

 private:
  PayloadPool<CubeArgs>& cube_args_;
  LastResult last_;
};

}  // namespace aicore::sim
