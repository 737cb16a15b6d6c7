// The L0C ready bits (see l0c_ready.h).
#include "sim/pipe/l0c_ready.h"

namespace aicore::sim {

Cycle L0cReadyBits::Earliest(const UnitFlagUse& use) const {
  Cycle earliest;
  if (use.mode == 0) return earliest;
  bool want = !use.writer;  // the Mmad waits for 0, the Fixpipe for 1
  ForEachL0cBlock(use, [&](uint64_t b) {
    Block block = At(b);
    earliest = block.set != want ? Cycle::Max() : MaxCycle(earliest, block.at);
  });
  return earliest;
}

bool L0cReadyBits::FirstBlocked(const UnitFlagUse& use, uint64_t* block) const {
  bool found = false;
  if (use.mode == 0) return false;
  ForEachL0cBlock(use, [&](uint64_t b) {
    if (!found && At(b).set == use.writer) {
      found = true;
      *block = b;
    }
  });
  return found;
}

void L0cReadyBits::OnStart(const UnitFlagUse& use, const Instr* instr, Cycle end) {
  if (use.mode != 3) return;  // 2 leaves the bits as they are
  ForEachL0cBlock(use, [&](uint64_t b) {
    if (b >= blocks_.size()) blocks_.resize(b + 1);
    blocks_[b] = Block{use.writer, end, instr};
  });
}

}  // namespace aicore::sim
