// Builds deadlock diagnostics with a fix hint from the blocked waiters (see deadlock.h).
#include "sim/check/deadlock.h"

#include <algorithm>
#include <map>
#include <optional>

#include "sim/isa/opcode.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

std::string Pair(uint32_t event, uint32_t id) {
  return std::string(HardEvent(event).name) + ", " + std::to_string(id);
}

std::string PipeLabel(PipeId p) { return "PIPE_" + std::string(PipeName(p)); }

// "the ready bit of L0C[0x0, 0x200) to be 1": what a unit-flag waiter waits for.
std::string UnitBit(const WaiterInfo& w) {
  return "the ready bit of " + RangeText("L0C", w.block_lo, w.block_hi) + " to be " +
         (w.want_set ? "1" : "0");
}

std::string Mnemonic(const Instr& in) { return std::string(Info(in.opcode).mnemonic); }

// A blocked Mmad or Fixpipe (see WaiterInfo::unit_flag), as one diagnostic.
std::string UnitFlagMessage(const WaiterInfo& w, const Program& program) {
  std::string flipper = w.want_set ? "an mmad" : "a fixpipe";
  std::string msg = ": unit_flag " + std::to_string(w.unit_mode) + " waits for " + UnitBit(w) +
                    " (" + (w.want_set ? "set by " : "cleared by ") + flipper +
                    " with unit_flag 3), and it is " + (w.want_set ? "0" : "1");
  if (w.unit_last != nullptr) {
    msg += " (" + std::string(w.want_set ? "cleared" : "set") + " by " + Mnemonic(*w.unit_last) +
           " at " + program.Where(*w.unit_last) + ")";
  } else {
    msg += " (no instruction flipped it in this block)";
  }
  if (w.queued_set != nullptr) {
    msg += "; " + Mnemonic(*w.queued_set) + " at " + program.Where(*w.queued_set) +
           ", which would flip it, is queued on " + PipeLabel(w.queued_set_pipe) +
           " behind an instruction that cannot start";
  } else {
    msg += "; no " + std::string(w.want_set ? "mmad" : "fixpipe") +
           " with unit_flag 3 on this block remains to be executed on this core";
  }
  return msg + ". Fix: give " + (w.want_set ? "the last mmad writing" : "the fixpipe reading") +
         " these L0C blocks unit_flag 3 (ascendc-semantics.md 3.5), make the mmad's m x n and " +
         "the fixpipe's m_size x n_size cover the same blocks, or synchronise the two with " +
         "M_FIX / FIX_M flags and unit_flag 0.";
}

// The waiters of one core by pipe, and what each waits on: the wait-for graph whose cycles are
// the deadlocks no single missing set explains.
class WaitGraph {
 public:
  WaitGraph(const std::vector<const WaiterInfo*>& core, const DiagnosticSink& sink) : sink_(sink) {
    for (const WaiterInfo* w : core) {
      if (w->wait != nullptr) by_pipe_[w->pipe] = w;
    }
    scalar_ = core.front();
  }

  // Each cycle once, starting at its lowest waiting pipe, as the list of pipes around it.
  std::vector<std::vector<PipeId>> Cycles() const {
    std::vector<std::vector<PipeId>> found;
    std::vector<PipeId> starts;
    for (const auto& [pipe, w] : by_pipe_) starts.push_back(pipe);
    if (scalar_->scalar_stall != ScalarStall::kNone) starts.push_back(PipeId::kS);
    for (PipeId start : starts) {
      std::vector<PipeId> path{start};
      for (PipeId at = start;;) {
        std::optional<PipeId> next = Next(at);
        if (!next.has_value()) break;
        auto seen = std::find(path.begin(), path.end(), *next);
        if (seen != path.end()) {
          std::vector<PipeId> cycle(seen, path.end());
          // Start at a blocked wait (the scalar unit's stall is described within a step).
          auto key = [&](PipeId p) { return std::make_pair(by_pipe_.count(p) == 0, p); };
          auto first = std::min_element(cycle.begin(), cycle.end(),
                                        [&](PipeId a, PipeId b) { return key(a) < key(b); });
          std::rotate(cycle.begin(), first, cycle.end());
          if (std::find(found.begin(), found.end(), cycle) == found.end()) found.push_back(cycle);
          break;
        }
        path.push_back(*next);
        at = *next;
      }
    }
    return found;
  }

  // "PIPE_V waits at add.py:14 for MTE2_V, 0, whose set_flag at add.py:12 is queued on
  // PIPE_MTE2 behind" ... one step of the cycle.
  std::string Step(PipeId at) const {
    const Program& program = sink_.program();
    auto w = by_pipe_.find(at);
    if (w != by_pipe_.end() && w->second->set_blocked) {
      const WaiterInfo& info = *w->second;
      std::string s = PipeLabel(at) + " holds set_flag(" + Pair(info.event, info.id) + ") at " +
                      program.Where(*info.wait) + " until the flag clears";
      if (info.queued_set != nullptr) {
        return s + ", and the wait_flag that clears it at " + program.Where(*info.queued_set) +
               " is queued on " + PipeLabel(info.queued_set_pipe) + " behind ";
      }
      return s + ", and the scalar unit has not issued the wait_flag that clears it, because ";
    }
    if (w != by_pipe_.end()) {
      const WaiterInfo& info = *w->second;
      std::string s = PipeLabel(at) + " waits at " + program.Where(*info.wait) + " for " +
                      (info.unit_flag ? UnitBit(info) : Pair(info.event, info.id));
      std::string setter =
          info.unit_flag ? Mnemonic(*info.wait) == "mmad" ? "fixpipe" : "mmad" : "set_flag";
      if (info.queued_set != nullptr) {
        return s + ", whose " + setter + " at " + program.Where(*info.queued_set) +
               " is queued on " + PipeLabel(info.queued_set_pipe) + " behind ";
      }
      return s + ", whose " + setter + " the scalar unit has not issued yet, because ";
    }
    const WaiterInfo& s = *scalar_;
    std::string where = s.scalar_at != nullptr ? " at " + program.Where(*s.scalar_at) : "";
    switch (s.scalar_stall) {
      case ScalarStall::kQueueFull:
        return "the scalar unit is stalled" + where + " on the full " +
               PipeLabel(s.scalar_stalled_pipe) + " queue, which waits: ";
      case ScalarStall::kDrain:
        return "the scalar unit waits" + where + " for every pipe to drain, and ";
      default:
        return "the scalar unit is stopped" + where + ", and ";
    }
  }

 private:
  std::optional<PipeId> Next(PipeId at) const {
    auto w = by_pipe_.find(at);
    if (w != by_pipe_.end()) {
      const WaiterInfo& info = *w->second;
      if (info.queued_set != nullptr) return info.queued_set_pipe;
      if (info.scalar_at != nullptr && at != PipeId::kS) return PipeId::kS;
      return std::nullopt;
    }
    if (at != PipeId::kS) return std::nullopt;
    switch (scalar_->scalar_stall) {
      case ScalarStall::kQueueFull:
        return scalar_->scalar_stalled_pipe;
      case ScalarStall::kDrain:
        for (const auto& [pipe, info] : by_pipe_) {
          if (pipe != PipeId::kS) return pipe;
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  const DiagnosticSink& sink_;
  std::map<PipeId, const WaiterInfo*> by_pipe_;
  const WaiterInfo* scalar_ = nullptr;
};

void ReportCycle(const WaiterInfo& first, const std::vector<PipeId>& cycle, const WaitGraph& graph,
                 Cycle now, DiagnosticSink& sink) {
  Site site{first.core, first.block, first.pipe, first.wait, now};
  std::string steps;
  for (PipeId p : cycle) steps += graph.Step(p);
  steps += PipeLabel(cycle.front()) + " again";
  std::string msg = "deadlock: " + sink.Prefix(site) + ": a cycle of waits: " + steps +
                    ". None of them can move first. Fix: give the cycle a first step: a set_flag "
                    "before the loop for a wait's first iteration (ping-pong buffers), or move a "
                    "set_flag ahead of the wait that holds it up.";
  sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
}

// "; flag MTE2_V, 2 is set (by set_flag at add.py:12) and nothing waits for it" when a flag of
// the same event or the same pipes is left set: the pair's ids or events do not match.
std::string MismatchHint(const WaiterInfo& w, const Program& program) {
  const HardEventInfo& want = HardEvent(w.event);
  for (const SetFlagInfo& f : w.set_flags) {
    const HardEventInfo& have = HardEvent(f.event);
    bool same_event = f.event == w.event;
    if (!same_event && have.dst != want.dst) continue;
    std::string by =
        f.setter != nullptr ? " (by set_flag at " + program.Where(*f.setter) + ")" : "";
    return "; flag " + Pair(f.event, f.id) + " is set" + by + " and nothing waits for it: " +
           (same_event ? "the set and the wait use different ids" : "the set uses another event");
  }
  return "";
}

// "0-3, 6": sorted core numbers as ranges.
std::string CoreRanges(std::vector<uint32_t> cores) {
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  std::string s;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(cores[i]);
    if (j > i) s += "-" + std::to_string(cores[j]);
    i = j + 1;
  }
  return s;
}

// What a blocked core waits for, in a few words, for the summary across cores.
std::string ShortWait(const WaiterInfo& w) {
  if (!w.sync_wait.empty()) {
    return w.wait->opcode == Opcode::kCrossCoreWaitFlag
               ? "cross-core flag " + std::to_string(w.id)
               : std::string("GM bytes another core writes");
  }
  if (w.unit_flag) return UnitBit(w);
  if (w.set_blocked) return "flag " + Pair(w.event, w.id) + " to clear on " + PipeLabel(w.pipe);
  if (w.wait != nullptr) return "flag " + Pair(w.event, w.id) + " on " + PipeLabel(w.pipe);
  return "nothing it can name (" + w.scalar_state + ")";
}

// One diagnostic naming every blocked core when cores wait on each other, cores that wait at
// the same place for the same thing merged.
void ReportAcrossCores(const std::vector<WaiterInfo>& waiters, Cycle now, DiagnosticSink& sink) {
  const WaiterInfo* first = nullptr;
  for (const WaiterInfo& w : waiters) {
    if (!w.sync_wait.empty() && first == nullptr) first = &w;
  }
  if (first == nullptr) return;
  std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;  // in first-seen order
  std::vector<uint32_t> all;
  for (const WaiterInfo& w : waiters) {
    std::string at = w.wait != nullptr ? " at " + sink.program().Where(*w.wait) : "";
    std::string what = at + " for " + ShortWait(w);
    auto g =
        std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == what; });
    if (g == groups.end()) {
      groups.push_back({what, {w.core}});
    } else if (std::find(g->second.begin(), g->second.end(), w.core) == g->second.end()) {
      g->second.push_back(w.core);
    }
    all.push_back(w.core);
  }
  std::string steps;
  for (const auto& [what, cores] : groups) {
    if (!steps.empty()) steps += "; ";
    steps += (cores.size() > 1 ? "cores " : "core ") + CoreRanges(cores) +
             (cores.size() > 1 ? " wait" : " waits") + what;
  }
  Site site{first->core, first->block, PipeId::kS, first->wait, now};
  std::string msg = "deadlock across cores: cores " + CoreRanges(all) +
                    " are blocked and no core can release another: " + steps +
                    ". Fix: see each core's deadlock finding; a cross-core wait needs a set routed "
                    "to its core, a GM wait a write by a core that still runs.";
  sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
}

bool IsInserted(const Instr* in) {
  return in != nullptr && in->kind == static_cast<uint8_t>(SyncOrigin::kAutoSync);
}

// An inserted wait left without its set because the program's own wait took it: the finding is
// the program's wait (`w.consumed_by`), the one the author wrote and can remove or pair.
void ReportConsumedInsertedSet(const WaiterInfo& w, const std::string& pair, Cycle now,
                               DiagnosticSink& sink) {
  const Program& program = sink.program();
  const HardEventInfo& ev = HardEvent(w.event);
  Site site{w.core, w.block, ev.dst, w.consumed_by, now};
  std::string msg = "deadlock: " + sink.Prefix(site) + ": this wait_flag(" + pair +
                    ") has no set_flag of its own; it consumed the set_flag(" + pair +
                    ") that auto_sync inserted on " + PipeLabel(ev.src);
  msg += " for the instruction at " + program.Where(*w.wait) +
         ", so the wait_flag auto_sync inserted there waits forever on " + PipeLabel(w.pipe) +
         ". Fix: remove this wait_flag (auto_sync orders these pipes itself), or pair it with a "
         "set_flag(" +
         pair + ") of your own on " + PipeLabel(ev.src) +
         " (or launch with auto_sync=False and place every flag yourself).";
  sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
}

// A set_flag that waits for its flag to clear (flag_set_waits_for_clear), and why no wait will.
void ReportBlockedSet(const WaiterInfo& w, const std::string& pair, const Site& site,
                      std::string msg, DiagnosticSink& sink) {
  const HardEventInfo& ev = HardEvent(w.event);
  std::string setter;
  for (const SetFlagInfo& f : w.set_flags) {
    if (f.event == w.event && f.id == w.id && f.setter != nullptr) {
      setter = " (by set_flag at " + sink.program().Where(*f.setter) + ")";
    }
  }
  msg += ": set_flag(" + pair + ") cannot land: the flag is still set" + setter +
         " and no wait_flag has consumed it, and a set of a set flag holds its pipe until a "
         "wait clears it (docs/timing-model.md 3a: flag_set_waits_for_clear; on the chip two "
         "set_flags of one id in a row hang a later pipe_barrier(PIPE_ALL))";
  if (w.queued_set != nullptr) {
    msg += "; the wait_flag(" + pair + ") at " + sink.program().Where(*w.queued_set) +
           " that would clear it is queued on " + PipeLabel(w.queued_set_pipe) +
           " behind an instruction that cannot start";
  } else if (w.scalar_at != nullptr && w.pipe != PipeId::kS) {
    msg += "; the scalar unit stopped before issuing the wait (" + w.scalar_state + ")";
  } else {
    msg += "; no wait_flag(" + pair + ") remains to be executed on this core";
  }
  msg += ". Fix: let a wait_flag(" + pair + ") on " + PipeLabel(ev.dst) +
         " consume each set_flag before the next set_flag(" + pair + ") on " + PipeLabel(ev.src) +
         " (one wait per set, in that order), or use another id.";
  sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
}

}  // namespace

void ReportDeadlock(const std::vector<WaiterInfo>& waiters, Cycle now, DiagnosticSink& sink) {
  std::map<uint32_t, std::vector<const WaiterInfo*>> by_core;
  for (const WaiterInfo& w : waiters) by_core[w.core].push_back(&w);
  for (const auto& [core, list] : by_core) {
    WaitGraph graph(list, sink);
    for (const std::vector<PipeId>& cycle : graph.Cycles()) {
      const WaiterInfo* first = list.front();
      for (const WaiterInfo* w : list) {
        if (w->wait != nullptr && w->pipe == cycle.front()) first = w;
      }
      ReportCycle(*first, cycle, graph, now, sink);
    }
  }
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
    if (!w.sync_wait.empty()) {
      msg += ": " + w.sync_wait + ". Fix: " + w.sync_fix + ".";
      sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
      continue;
    }
    if (w.unit_flag) {
      msg += UnitFlagMessage(w, sink.program());
      sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
      continue;
    }
    const HardEventInfo& ev = HardEvent(w.event);
    std::string pair = Pair(w.event, w.id);
    if (w.set_blocked) {
      ReportBlockedSet(w, pair, site, msg, sink);
      continue;
    }
    if (w.consumed_by != nullptr && IsInserted(w.wait)) {
      ReportConsumedInsertedSet(w, pair, now, sink);
      continue;
    }
    msg += ": waits for flag " + std::string(ev.name) + " id " + std::to_string(w.id) + " (event " +
           std::string(ev.name) + " = " + std::to_string(w.event) + "), which is never set";
    if (w.queued_set != nullptr) {
      msg += "; the matching set_flag(" + pair + ") at " + sink.program().Where(*w.queued_set) +
             " is queued on " + PipeLabel(w.queued_set_pipe) +
             " behind an instruction that cannot start";
    } else if (w.scalar_at != nullptr) {
      msg += "; the scalar unit stopped before issuing the rest of the program (" + w.scalar_state +
             ")";
    } else {
      msg += "; no set_flag(" + pair + ") remains to be executed on this core";
    }
    msg += MismatchHint(w, sink.program());
    msg += ". Fix: every wait_flag(" + pair + ") on " + PipeLabel(ev.dst) +
           " consumes one set_flag(" + pair + ") on " + PipeLabel(ev.src) +
           "; add the missing set_flag before this wait (or a set in the prologue for the "
           "first iteration of a ping-pong loop), or remove the wait.";
    sink.Error(sink.Make(Diagnostic::Kind::kDeadlock, Diagnostic::Severity::kError, site, msg));
  }
  ReportAcrossCores(waiters, now, sink);
}

}  // namespace aicore::sim
