// auto_sync (the jit option; ascendc-semantics.md 8.4) as the device compiler's pass does it, but
// at issue time: the dependency tracker sees everything issued, and before each memory
// instruction the plan says which syncs it needs that the program lacks: a set_flag/wait_flag
// pair per earlier pipe it conflicts with, a PIPE_V barrier for a vector-to-vector dependency,
// and a PIPE_ALL drain between pipes that have no flag pair on this core type. The scalar unit
// issues the plan as real instructions, so they cost cycles and show in traces.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/fwk/event_pool.h"
#include "sim/isa/core_type.h"
#include "sim/isa/pipe_id.h"
#include "sim/pipe/instr.h"
#include "sim/sync/dep_tracker.h"

namespace aicore::sim {

class AutoSync {
 public:
  // `pipes`: bit PipeIndex(p) for each pipe of the core (S always); `num_flags`: FlagFile size.
  AutoSync(CoreType type, uint32_t pipes, uint32_t ids_per_event, uint32_t num_flags);

  void Reset();  // a new block: nothing issued, nothing outstanding

  struct Pair {
    uint32_t event = 0, id = 0;
  };
  struct Plan {
    bool drain_all = false;  // PIPE_ALL first (no flag pair between two of the pipes)
    bool barrier = false;    // pipe_barrier(consumer) after the pairs (PIPE_V only)
    Pair pairs[kNumPipes];   // set on the earlier pipe, wait on the consumer, in this order
    int num_pairs = 0;
  };
  // The syncs `issued`, about to enter `consumer`, needs. Event ids come from `events` among those
  // whose flags are not in flight. False when an event has no free id: nothing is reserved then,
  // and the caller waits for a wait_flag to give one back.
  bool PlanFor(PipeId consumer, const IssuedInstr& issued, EventPool& events, Plan* plan);

  // Everything issued, in issue order: a pipe instruction entering `pipe`, and the scalar unit's
  // own flags and PIPE_ALL drains.
  void OnIssued(PipeId pipe, const IssuedInstr& issued);
  void OnScalarSetFlag(uint32_t flag);
  void OnScalarWaitFlag(uint32_t flag);
  void OnBarrierAll();
  // A wait_flag passed on a pipe: its flag is no longer in flight.
  void OnWaitPassed(uint32_t flag);

 private:
  // Ids of `event` whose flags are in flight (set issued, its wait not passed yet).
  uint32_t BusyIds(uint32_t event) const;

  CoreType type_;
  uint32_t ids_per_event_;
  DepTracker tracker_;
  std::vector<int32_t> outstanding_;  // per flag: sets issued minus waits passed
};

}  // namespace aicore::sim
