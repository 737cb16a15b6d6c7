// Builds deadlock diagnostics with a fix hint from the blocked waiters (see deadlock.h).
#include "sim/check/deadlock.h"

#include "sim/sync/hard_event.h"

namespace aicore::sim {

void ReportDeadlock(const std::vector<WaiterInfo>& waiters, Cycle now, DiagnosticSink& sink) {
  for (const WaiterInfo& w : waiters) {
    Site site{w.core, w.block, w.pipe, w.wait, now};
    std::string msg = "deadlock: " + sink.Prefix(site);
    if (w.wait == nullptr) {
      msg += ": the core cannot make progress (" + w.scalar_state +
             ") and no event is pending. Fix: check the pipe_barrier(PIPE_ALL) and flag pairs "
             "around this point.";
      sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
      continue;
    }
    const HardEventInfo& ev = HardEvent(w.event);
    std::string pair = std::string(ev.name) + ", " + std::to_string(w.id);
    msg += ": waits for flag " + std::string(ev.name) + " id " + std::to_string(w.id) + " (event " +
           std::string(ev.name) + " = " + std::to_string(w.event) + "), which is never set";
    if (w.queued_set != nullptr) {
      msg += "; the matching set_flag(" + pair + ") at " + sink.program().Where(*w.queued_set) +
             " is queued on PIPE_" + std::string(PipeName(w.queued_set_pipe)) +
             " behind an instruction that cannot start";
    } else if (w.scalar_at != nullptr) {
      msg += "; the scalar unit stopped before issuing the rest of the program (" + w.scalar_state +
             ")";
    } else {
      msg += "; no set_flag(" + pair + ") remains to be executed on this core";
    }
    msg += ". Fix: every wait_flag(" + pair + ") on PIPE_" + std::string(PipeName(ev.dst)) +
           " consumes one set_flag(" + pair + ") on PIPE_" + std::string(PipeName(ev.src)) +
           "; add the missing set_flag before this wait (or a set in the prologue for the "
           "first iteration of a ping-pong loop), or remove the wait.";
    sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
  }
}

}  // namespace aicore::sim
