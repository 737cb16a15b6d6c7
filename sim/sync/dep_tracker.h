// Happens-before between the pipes of one core, computed in issue order the way a compiler sees
// the program: vector clocks per pipe, moved by set_flag/wait_flag pairs, pipe barriers and
// PIPE_ALL, plus the memory ranges each pipe accessed that are not yet known to be ordered
// before everything that can follow. auto_sync asks it which earlier accesses conflict (RAW,
// WAR, WAW) with an instruction about to be issued and are not ordered before it; a race checker
// can ask the same question and report the conflict it returns.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"
#include "sim/mem/mem_range.h"

namespace aicore::sim {

class DepTracker {
 public:
  // `pipes`: bit PipeIndex(p) for each pipe the core has (S always); `num_flags`: FlagFile
  // size; `max_records`: per pipe and memory, older unordered accesses beyond it are merged
  // into one conservative range (bounded cost; at worst an extra sync).
  DepTracker(uint32_t pipes, uint32_t num_flags, uint32_t max_records);

  void Reset();

  struct Conflict {
    PipeId pipe = PipeId::kS;  // the earlier access's pipe
    MemRange earlier, later;
    const Instr* instr = nullptr;  // the earlier instruction (merged ranges: the newest)
  };
  // Pipes (bit PipeIndex) holding an access that conflicts with `ranges`, about to be issued on
  // `pipe`, and is not ordered before it. `first`, when given, receives one such conflict.
  uint32_t Unordered(PipeId pipe, const MemRange* ranges, int n, Conflict* first) const;

  // Everything issued, in issue order. A memory instruction pushed into `pipe`:
  void OnAccess(PipeId pipe, const MemRange* ranges, int n, const Instr* instr);
  void OnSetFlag(PipeId src, uint32_t flag);
  void OnWaitFlag(PipeId dst, uint32_t flag);
  void OnBarrier(PipeId pipe);  // pipe_barrier(pipe) for a pipe the core has
  void OnBarrierAll();          // PIPE_ALL: the scalar unit waited for every pipe to drain

 private:
  using Clock = std::array<uint64_t, kNumPipes>;
  struct Record {
    uint64_t seq = 0;
    MemRange range;
    const Instr* instr = nullptr;
  };
  static constexpr int kSpaces = 9;  // MemSpace values

  // What an instruction issued now on `p` is ordered after: the pipe's own clock and the
  // scalar unit's (anything issued after a scalar-side wait starts after it).
  Clock Known(PipeId p) const;
  void Prune();

  uint32_t pipes_;
  uint32_t max_records_;
  std::array<uint64_t, kNumPipes> count_{};  // instructions issued per pipe; seq = count
  std::array<Clock, kNumPipes> clock_{};     // [p][q]: q's instructions up to this seq are
                                             // ended before p's next instruction starts
  std::vector<Clock> flag_clock_;            // what a pending set_flag carries
  std::vector<uint8_t> flag_valid_;
  // Waits issued before any set of their flag: the next set pairs with them at run time, so it
  // must not teach a later wait anything.
  std::vector<uint32_t> waits_ahead_;
  std::array<std::array<std::deque<Record>, kSpaces>, kNumPipes> records_;
};

}  // namespace aicore::sim
