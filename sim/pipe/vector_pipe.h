// PIPE_V of a vector core: vector arithmetic and UB -> UB data_copy. Pipelined: it accepts the
// next instruction after beats * cycles_per_repeat cycles (beats = repeats, more with UB bank
// conflicts, sim/mem/ub_banks.h) but writes the destination per_call_cycles later, so a
// dependent instruction without pipe_barrier(PIPE_V) reads stale UB, as on the chip. What an
// instruction does is its layout's executor (sim/pipe/pipe_executors.h); the pipe holds the state
// they share.
#pragma once

#include <string>

#include "sim/isa/cost_table.h"
#include "sim/mem/ub_banks.h"
#include "sim/pipe/core_registers.h"
#include "sim/pipe/payload_pool.h"
#include "sim/pipe/pipe.h"
#include "sim/pipe/vector_mask.h"

namespace aicore::sim {

class VectorPipe : public Pipe {
 public:
  VectorPipe(uint32_t core, uint32_t queue_depth, LaunchContext& ctx, FlagFile& flags,
             PipeListener& listener, CoreRegisters& registers, PayloadPool<MoveArgs>& moves);

  // For the executors.
  LaunchContext& ctx() { return ctx_; }
  UbBankModel& banks() { return banks_; }
  // The CMPMASK register: written and read by PIPE_V instructions in pipe order, at their start
  // (the race checker demands the barrier the chip needs between a writer and a reader).
  uint8_t* cmp_mask() { return registers_.cmp_mask; }
  // The rearrangements' operands (IssuedInstr::payload_slot); the executor frees its slot.
  PayloadPool<MoveArgs>& moves() { return moves_; }
  // An address that depends on data reached outside its memory: an error at the instruction's
  // line, and the launch stops (the chip raises an exception).
  void FaultOutOfBounds(const Instr& instr, Cycle now, const std::string& what);
  // Select's register form in mode 2: the selection bits at the UB address CMPMASK holds.
  bool SelectBitsAtCmpMaskAddress(const IssuedInstr& in, Cycle now, const uint8_t** bits,
                                  uint64_t* bytes);
  // `repeats` passes of the pipeline, `beats` with bank conflicts.
  PipeTiming Timing(const VectorCost& cost, uint64_t repeats, uint64_t beats, Cycle now);
  // A count-form compare as the library issues it: instructions of at most 252 repeats.
  PipeTiming CompareCountTiming(const VectorCost& cost, uint64_t repeats, uint64_t beats,
                                Cycle now);

 protected:
  PipeTiming Execute(const IssuedInstr& in, Cycle now, uint8_t* scratch) override;

 private:
  UbBankModel banks_;
  CoreRegisters& registers_;
  PayloadPool<MoveArgs>& moves_;
};

}  // namespace aicore::sim
