// PIPE_V of a vector core: vector arithmetic and UB -> UB data_copy. Pipelined: it accepts the
// next instruction after beats * cycles_per_repeat cycles (beats = repeats, more with UB bank
// conflicts, sim/mem/ub_banks.h) but writes the destination per_call_cycles later, so a
// dependent instruction without pipe_barrier(PIPE_V) reads stale UB, as on the chip.
#pragma once

#include <string>

#include "sim/isa/cost_table.h"
#include "sim/mem/ub_banks.h"
#include "sim/pipe/pipe.h"
#include "sim/pipe/vector_mask.h"

namespace aicore::sim {

class VectorPipe : public Pipe {
 public:
  VectorPipe(uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
             PipeListener& listener);

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override;

 private:
  PipeTiming ExecuteRepeat(const IssuedInstr& in, Cycle now, uint8_t* scratch);
  void FaultOutOfBounds(const Instr& instr, Cycle now, const std::string& what);
  bool SelectBitsAtCmpMaskAddress(const IssuedInstr& in, Cycle now, const uint8_t** bits,
                                  uint64_t* bytes);
  PipeTiming ExecuteBilinear(const IssuedInstr& in, Cycle now, uint8_t* scratch);  // own file
  PipeTiming ExecuteSort(const IssuedInstr& in, Cycle now, uint8_t* scratch);
  PipeTiming ExecuteMove(const IssuedInstr& in, Cycle now, uint8_t* scratch);
  PipeTiming Timing(const VectorCost& cost, uint64_t repeats, uint64_t beats, Cycle now);
  PipeTiming CompareCountTiming(const VectorCost& cost, uint64_t repeats, uint64_t beats,
                                Cycle now);

  UbBankModel banks_;
  // The CMPMASK register: written and read by PIPE_V instructions in pipe order, at their start
  // (the race checker demands the barrier the chip needs between a writer and a reader).
  uint8_t cmp_mask_[kCmpMaskBytes] = {};
};

}  // namespace aicore::sim
