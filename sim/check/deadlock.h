// Deadlock diagnosis: when the event queue is empty but a core has not finished, nothing can
// ever happen again. Each blocked waiter becomes one diagnostic naming core, pipe, event, id and
// the wait's source line, with a hint about the missing, stuck or mismatched set_flag; waits that
// hold each other up (the set one needs is queued behind the other's wait) are also reported as
// the cycle they form.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/check/diagnostics.h"

namespace aicore::sim {

// Why a core's scalar unit stopped issuing, when it did.
enum class ScalarStall { kNone, kQueueFull, kFlag, kDrain, kEventId };

// A flag left set on a core (its last set_flag), for "set with another id" hints.
struct SetFlagInfo {
  uint32_t event = 0;
  uint32_t id = 0;
  const Instr* setter = nullptr;
};

struct WaiterInfo {
  uint32_t core = 0;
  uint32_t block = 0;
  PipeId pipe = PipeId::kS;     // where the blocked wait_flag sits
  const Instr* wait = nullptr;  // the wait_flag (nullptr: core stuck without a flag wait)
  uint32_t event = 0;
  uint32_t id = 0;
  const Instr* queued_set = nullptr;  // a matching set_flag queued behind another blocked op
  PipeId queued_set_pipe = PipeId::kS;
  const Instr* scalar_at = nullptr;  // where the scalar unit stopped, if it has not finished
  std::string scalar_state;          // why it stopped ("waits for flag V_S id 0" ...)
  ScalarStall scalar_stall = ScalarStall::kNone;
  PipeId scalar_stalled_pipe = PipeId::kS;  // kQueueFull: the pipe whose queue is full
  std::vector<SetFlagInfo> set_flags;       // flags set on this core that nothing consumed
  // A Mmad or Fixpipe (`wait`) blocked by the unit flag: the L0C block whose ready bit holds
  // the other value than the one it waits for, and what flipped it last (nullptr: nothing this
  // block). queued_set: an instruction with unit_flag 3 that would flip it, queued.
  bool unit_flag = false;
  uint32_t unit_mode = 0;
  uint64_t block_lo = 0, block_hi = 0;  // L0C byte addresses
  bool want_set = false;
  const Instr* unit_last = nullptr;
  // The scalar unit blocked in a cross_core_wait_flag or a GM wait (`wait`, on PIPE_S) on other
  // cores: what it waits for and why nothing will release it ("cross-core flag 3, whose counter
  // ..."), and the fix. Empty for every other waiter.
  std::string sync_wait;
  std::string sync_fix;
  // `wait` is a wait_flag auto_sync inserted, and the program's own wait `consumed_by` took the
  // set_flag auto_sync inserted for it (`inserted_set`): the report names the program's wait.
  const Instr* consumed_by = nullptr;
  const Instr* inserted_set = nullptr;
  // `wait` is a set_flag holding its pipe until its flag clears (flag_set_waits_for_clear);
  // queued_set is then the wait_flag that would clear it, queued behind a blocked op.
  bool set_blocked = false;
};

// One ERROR diagnostic of kind DEADLOCK per cycle of waits, then one per waiter; when cores wait
// on each other (cross-core flags, GM waits), one more naming every blocked core and what it
// waits for, cores with the same wait merged ("cores 1-3").
void ReportDeadlock(const std::vector<WaiterInfo>& waiters, Cycle now, DiagnosticSink& sink);

}  // namespace aicore::sim
