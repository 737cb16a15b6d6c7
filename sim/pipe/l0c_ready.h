// The L0C ready bits of a cube core (ascendc-semantics.md 3.5): one bit per 512-byte block, 0 when
// a block starts. An Mmad or Fixpipe with unit_flag 2 or 3 starts only once each block it touches
// holds the bit it waits for (0 for the Mmad, 1 for the Fixpipe); with 3 it flips them when it
// ends. A flip is recorded when its instruction starts, with the cycle it takes effect, so a
// waiter knows when it may start without another event.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/cycle.h"
#include "sim/isa/program.h"
#include "sim/mem/l0c_blocks.h"

namespace aicore::sim {

class L0cReadyBits {
 public:
  struct Block {
    bool set = false;
    Cycle at;                   // the cycle the bit took (or takes) its value
    const Instr* by = nullptr;  // the instruction that flipped it last
  };

  // The earliest cycle an instruction using `use` may start: when the last of its blocks holds the
  // bit it waits for; Cycle::Max() while some block holds the other one.
  Cycle Earliest(const UnitFlagUse& use) const;
  // The first block holding the bit `use` does not wait for (a deadlock's block): false if none.
  bool FirstBlocked(const UnitFlagUse& use, uint64_t* block) const;
  // An instruction using `use` started; it ends at `end`, when a unit_flag 3 flips its bits.
  void OnStart(const UnitFlagUse& use, const Instr* instr, Cycle end);

  Block At(uint64_t block) const { return block < blocks_.size() ? blocks_[block] : Block{}; }

 private:
  std::vector<Block> blocks_;  // grown to the highest block touched; beyond it every bit is 0
};

}  // namespace aicore::sim
