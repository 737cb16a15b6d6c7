// Deadlock diagnosis: when the event queue is empty but a core has not finished, nothing can
// ever happen again. Each blocked waiter becomes one diagnostic naming core, pipe, event, id and
// the wait's source line, with a hint about the missing or stuck set_flag.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/check/diagnostics.h"

namespace aicore::sim {

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
};

// One ERROR diagnostic of kind DEADLOCK per waiter.
void ReportDeadlock(const std::vector<WaiterInfo>& waiters, Cycle now, DiagnosticSink& sink);

}  // namespace aicore::sim
