// auto_sync (the jit option; ascendc-semantics.md 8.4) as the device compiler's pass does it, but
// at issue time: the dependency tracker sees everything issued, and before each memory
// instruction the plan says which syncs it needs that the program lacks: a set_flag/wait_flag
// pair per earlier pipe it conflicts with, a PIPE_V barrier for a vector-to-vector dependency,
// and a PIPE_ALL drain between pipes that have no flag pair on this core type. The scalar unit
// takes event ids for the pairs from the framework's event pool and issues the plan as real
// instructions, so they cost cycles and show in traces.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/isa/core_type.h"
#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"
#include "sim/mem/mem_range.h"
#include "sim/sync/dep_tracker.h"
#include "sim/sync/happens_before.h"

namespace aicore::sim {

class AutoSync {
 public:
  // `pipes`: bit PipeIndex(p) for each pipe of the core (S always); `num_flags`: FlagFile size;
  // `order`: the core's happens-before clocks, fed by the scalar unit in issue order.
  AutoSync(CoreType type, uint32_t pipes, uint32_t ids_per_event, uint32_t num_flags,
           const HappensBefore& order);

  void Reset();  // a new block: nothing issued

  struct Plan {
    bool drain_all = false;           // PIPE_ALL first (no flag pair between two of the pipes)
    uint32_t events[kNumPipes] = {};  // then a set_flag/wait_flag pair of each of these events
    int num_events = 0;
    bool barrier = false;  // then pipe_barrier(consumer) (PIPE_V only)
  };
  // The syncs an instruction accessing `ranges`, about to enter `consumer`, needs.
  Plan PlanFor(PipeId consumer, const MemRange* ranges, int num_ranges) const;
  // Ids of `event` whose flags are in flight (set issued, its wait not passed yet): the ids an
  // inserted pair must not take.
  uint32_t BusyIds(uint32_t event) const;

  // What the scalar unit issued, after it told `order` about it.
  void OnAccess(PipeId pipe, uint64_t seq, const MemRange* ranges, int num_ranges,
                const Instr* instr);
  void OnSetFlag(uint32_t flag);  // a set_flag on any pipe
  void OnOrderChanged();          // a wait or barrier moved the clocks
  // A wait_flag passed on a pipe: its flag is no longer in flight.
  void OnWaitPassed(uint32_t flag);

 private:
  CoreType type_;
  uint32_t ids_per_event_;
  const HappensBefore& order_;
  DepTracker tracker_;
  std::vector<int32_t> outstanding_;  // per flag: sets issued minus waits passed
};

}  // namespace aicore::sim
