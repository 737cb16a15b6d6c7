// auto_sync's record of memory accesses that are not yet known to be ordered before everything
// that can follow, per pipe and memory, judged by the core's happens-before clocks
// (sim/sync/happens_before.h). auto_sync asks it which earlier accesses conflict (RAW, WAR, WAW)
// with an instruction about to be issued and are not ordered before it. Bounded: beyond
// max_records per pipe and memory the oldest are folded into one conservative range, which can
// only add a sync, never miss one.
#pragma once

#include <array>
#include <cstdint>
#include <deque>

#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"
#include "sim/mem/mem_range.h"
#include "sim/sync/happens_before.h"

namespace aicore::sim {

class DepTracker {
 public:
  // `pipes`: bit PipeIndex(p) for each pipe the core has (S always).
  DepTracker(uint32_t pipes, uint32_t max_records);

  void Reset();

  struct Conflict {
    PipeId pipe = PipeId::kS;  // the earlier access's pipe
    MemRange earlier, later;
    const Instr* instr = nullptr;  // the earlier instruction (merged ranges: the newest)
  };
  // Pipes (bit PipeIndex) holding an access that conflicts with `ranges`, about to be issued on
  // `pipe`, and is not ordered before it. `first`, when given, receives one such conflict.
  uint32_t Unordered(const HappensBefore& order, PipeId pipe, const MemRange* ranges, int n,
                     Conflict* first) const;

  // A memory instruction entered `pipe` with sequence number `seq`.
  void OnAccess(PipeId pipe, uint64_t seq, const MemRange* ranges, int n, const Instr* instr);
  // After a wait or barrier moved the clocks: drops what is now ordered before everything.
  void Prune(const HappensBefore& order);

 private:
  struct Record {
    uint64_t seq = 0;
    MemRange range;
    const Instr* instr = nullptr;
  };
  static constexpr int kSpaces = 11;  // MemSpace values (SPR and CMPMASK included)

  uint32_t pipes_;
  uint32_t max_records_;
  std::array<std::array<std::deque<Record>, kSpaces>, kNumPipes> records_;
  // Per pipe, over all memories: how many records it holds and the newest one's seq, so that
  // Unordered and Prune pass over a pipe with nothing to look at without touching its records.
  std::array<uint32_t, kNumPipes> count_{};
  std::array<uint64_t, kNumPipes> newest_{};
};

}  // namespace aicore::sim
