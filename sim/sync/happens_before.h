// Happens-before between the pipes of one core, in issue order, the way a compiler sees the
// program: a vector clock per pipe, moved by set_flag/wait_flag pairs, pipe barriers and PIPE_ALL.
// Every pipe instruction gets a sequence number on its pipe; access (p, s) is ordered before what
// pipe q issues next iff Known(q)[p] >= s. auto_sync (sim/sync/auto_sync) and the race checker
// (sim/check/race_checker) both ask it; the scalar unit feeds it once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/isa/pipe_id.h"
#include "sim/mem/l0c_blocks.h"

namespace aicore::sim {

class HappensBefore {
 public:
  using Clock = std::array<uint64_t, kNumPipes>;

  // `num_flags`: FlagFile size.
  explicit HappensBefore(uint32_t num_flags);

  void Reset();  // a new block: nothing issued

  // Everything issued, in issue order. A memory instruction entering `pipe` gets the returned
  // sequence number.
  uint64_t OnAccess(PipeId pipe);
  void OnSetFlag(PipeId src, uint32_t flag);
  void OnWaitFlag(PipeId dst, uint32_t flag);
  void OnBarrier(PipeId pipe);  // pipe_barrier(pipe) for a pipe the core has
  void OnBarrierAll();          // PIPE_ALL: the scalar unit waited for every pipe to drain
  void OnDrain(PipeId pipe);    // the scalar unit waited for `pipe` to drain
  // The unit flag (ascendc-semantics.md 3.5), as the program order predicts the L0C ready bits:
  // an instruction on `pipe` waiting for its blocks' bits is ordered after what flipped them to
  // the value it waits for (true if it learnt something); with unit_flag 3 the instruction, `seq`
  // on `pipe`, flips them when it ends.
  bool OnUnitFlagWait(PipeId pipe, const UnitFlagUse& use);
  void OnUnitFlagFlip(PipeId pipe, uint64_t seq, const UnitFlagUse& use);

  // What an instruction issued now on `p` is ordered after: the pipe's own clock and the scalar
  // unit's (anything issued after a scalar-side wait starts after it).
  Clock Known(PipeId p) const;
  const Clock& clock(PipeId p) const { return clock_[PipeIndex(p)]; }

 private:
  std::array<uint64_t, kNumPipes> count_{};  // instructions issued per pipe; seq = count
  std::array<Clock, kNumPipes> clock_{};     // [p][q]: q's instructions up to this seq are
                                             // ended before p's next instruction starts
  std::vector<Clock> flag_clock_;            // what a pending set_flag carries
  std::vector<uint8_t> flag_valid_;
  // Waits issued before any set of their flag: the next set pairs with them at run time, so it
  // must not teach a later wait anything.
  std::vector<uint32_t> waits_ahead_;
  // Per L0C block: its predicted ready bit and what the flip to it carries (zero: never flipped).
  struct UnitBlock {
    bool set = false;
    Clock clock{};
  };
  std::vector<UnitBlock> unit_blocks_;
};

}  // namespace aicore::sim
