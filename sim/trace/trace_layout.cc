// Places a launch's timeline for drawing: cores and pipes named and ordered as msprof does
// (hardware-910b.md section 8), overlapping instructions spread over lanes, and set/wait flag
// pairs joined into flows. The format writers only render what this decides.
#include "sim/trace/trace_layout.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "sim/sync/hard_event.h"

namespace aicore::sim::trace {

std::string FormatDouble(double v) {
  if (!std::isfinite(v)) return "0";
  if (v == 0) return "0";  // also folds -0
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  if (ec != std::errc()) return "0";
  return std::string(buf, end);
}

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

namespace {

const std::vector<PipeStyle>& KnownPipes() {
  static const std::vector<PipeStyle> kPipes = {
      {"S", "SCALAR", 10, 0, "startup"},
      {"FLOWCTRL", "FLOWCTRL", 90, 1, "cq_build_passed"},
      {"MTE1", "MTE1", 50, 2, "thread_state_running"},
      {"M", "CUBE", 40, 3, "background_memory_dump"},
      {"FIX", "FIXP", 80, 4, "thread_state_unknown"},
      {"MTE2", "MTE2", 60, 5, "thread_state_iowait"},
      {"V", "VECTOR", 30, 6, "cq_build_failed"},
      {"MTE3", "MTE3", 70, 7, "rail_response"},
  };
  return kPipes;
}

// Accepts the simulator's names and msprof's, so records produced by other tools map too.
const PipeStyle* FindKnownPipe(std::string_view name) {
  for (const PipeStyle& p : KnownPipes()) {
    if (name == p.sim_name || name == p.msprof_name) return &p;
  }
  return nullptr;
}

std::string MsprofPipeName(std::string_view name) {
  const PipeStyle* p = FindKnownPipe(name);
  return p != nullptr ? p->msprof_name : std::string(name);
}

bool IsCubePipe(std::string_view name) {
  const PipeStyle* p = FindKnownPipe(name);
  return p != nullptr &&
         (p->msprof_name == "CUBE" || p->msprof_name == "MTE1" || p->msprof_name == "FIXP");
}

SyncKind SyncOf(std::string_view op) {
  auto lower_equals = [&](std::string_view want) {
    if (op.size() != want.size()) return false;
    for (size_t i = 0; i < op.size(); ++i) {
      char c = op[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != want[i]) return false;
    }
    return true;
  };
  if (lower_equals("set_flag") || lower_equals("cross_core_set_flag")) return SyncKind::kSet;
  if (lower_equals("wait_flag") || lower_equals("cross_core_wait_flag")) return SyncKind::kWait;
  return SyncKind::kNone;
}

std::string FlowCategory(std::string_view event) {
  size_t underscore = event.find('_');
  return MsprofPipeName(event.substr(0, underscore)) + "To" +
         MsprofPipeName(event.substr(underscore + 1));
}

CoreId CoreOf(const InstrRecord& r, const std::map<uint32_t, unsigned>& kinds) {
  if (IsCubePipe(r.pipe)) return {true, r.core};
  auto it = kinds.find(r.core);
  // Only the stats know the kind of a core whose pipes exist on both (S, MTE2, MTE3).
  if (it != kinds.end() && it->second == 2) return {true, r.core};
  return {false, r.core};
}

}  // namespace

Layout BuildLayout(const LaunchResult& result, double mhz) {
  Layout layout;
  layout.mhz = mhz;

  std::map<uint32_t, unsigned> kinds;  // bit 0: an aiv core has this index; bit 1: an aic one
  std::set<CoreId> cores;
  for (const CoreStats& c : result.cores) {
    const bool cube = c.core_type == "aic";
    kinds[c.core] |= cube ? 2u : 1u;
    cores.insert({cube, c.core});
  }
  std::set<std::string> unknown_pipes;
  for (const InstrRecord& r : result.timeline) {
    cores.insert(CoreOf(r, kinds));
    if (FindKnownPipe(r.pipe) == nullptr) unknown_pipes.insert(r.pipe);
  }
  layout.cores.assign(cores.begin(), cores.end());

  // Pipes: the known ones that occur, then unknown names after msprof's reserved pids (ALL 100,
  // CACHEMISS 110, USERMARK 120) so they never collide.
  std::set<std::string> used;
  for (const InstrRecord& r : result.timeline) used.insert(MsprofPipeName(r.pipe));
  for (const PipeStyle& p : KnownPipes()) {
    if (used.count(p.msprof_name) != 0) layout.pipes.push_back(p);
  }
  int extra = 0;
  for (const std::string& name : unknown_pipes) {
    layout.pipes.push_back({name, name, 130 + 10 * extra, 100 + extra, "generic_work"});
    ++extra;
  }
  std::sort(layout.pipes.begin(), layout.pipes.end(),
            [](const PipeStyle& a, const PipeStyle& b) { return a.lane_order < b.lane_order; });
  auto pipe_slot = [&](std::string_view name) {
    const std::string msprof = MsprofPipeName(name);
    for (size_t i = 0; i < layout.pipes.size(); ++i) {
      if (layout.pipes[i].msprof_name == msprof) return i;
    }
    return size_t{0};  // unreachable: every record's pipe was added above
  };
  auto core_slot = [&](const CoreId& id) {
    return static_cast<size_t>(std::lower_bound(layout.cores.begin(), layout.cores.end(), id) -
                               layout.cores.begin());
  };

  // Geometry. A wait_flag record starts and ends when the flag was taken, so its wait is
  // reconstructed as the gap since the pipe's previous instruction ended (or since it was
  // issued, if later): the idle stretch of the pipe that the wait explains.
  const size_t tracks = layout.cores.size() * layout.pipes.size();
  std::vector<uint64_t> track_end(tracks, 0);
  layout.slices.reserve(result.timeline.size());
  for (size_t i = 0; i < result.timeline.size(); ++i) {
    const InstrRecord& r = result.timeline[i];
    Slice s;
    s.rec = &r;
    s.order = i;
    s.core = core_slot(CoreOf(r, kinds));
    s.pipe = pipe_slot(r.pipe);
    s.sync = SyncOf(r.op);
    const uint64_t start = r.start_cycle;
    const uint64_t end = std::max(r.end_cycle, r.start_cycle);
    uint64_t& previous_end = track_end[s.core * layout.pipes.size() + s.pipe];
    switch (s.sync) {
      case SyncKind::kSet:
        // msprof draws SET_FLAG as one cycle at the tick the flag fires.
        s.begin = end;
        s.end = end + 1;
        s.cycles = 1;
        break;
      case SyncKind::kWait: {
        uint64_t wait_from =
            start < end ? start : std::min(end, std::max(r.issue_cycle, previous_end));
        s.begin = wait_from;
        s.cycles = end - wait_from;
        // At least one cycle, so the flow arrow has a slice to land on.
        s.end = std::max(end, wait_from + 1);
        break;
      }
      case SyncKind::kNone:
        s.begin = start;
        s.end = end;
        s.cycles = end - start;
        break;
    }
    previous_end = std::max(previous_end, r.end_cycle);
    layout.slices.push_back(s);
  }

  // Lanes: overlapping slices of one pipe (pipelined instructions, a wait beside the copy it
  // waits behind) cannot share a Chrome track without breaking nesting, so each goes to the
  // first lane free at its start.
  layout.lanes.assign(tracks, 0);
  std::vector<size_t> by_track(layout.slices.size());
  for (size_t i = 0; i < by_track.size(); ++i) by_track[i] = i;
  std::sort(by_track.begin(), by_track.end(), [&](size_t a, size_t b) {
    const Slice& x = layout.slices[a];
    const Slice& y = layout.slices[b];
    return std::tie(x.core, x.pipe, x.begin, y.end, x.order) <
           std::tie(y.core, y.pipe, y.begin, x.end, y.order);
  });
  std::vector<uint64_t> lane_end;
  size_t current_track = tracks;
  for (size_t index : by_track) {
    Slice& s = layout.slices[index];
    const size_t track = s.core * layout.pipes.size() + s.pipe;
    if (track != current_track) {
      lane_end.clear();
      current_track = track;
    }
    uint32_t lane = 0;
    while (lane < lane_end.size() && lane_end[lane] > s.begin) ++lane;
    if (lane == lane_end.size()) lane_end.push_back(0);
    lane_end[lane] = s.end;
    s.lane = lane;
    layout.lanes[track] = std::max<uint32_t>(layout.lanes[track], lane + 1);
  }

  // Flows: the i-th set of (core, event, id) pairs with the i-th wait, both in firing order.
  std::map<std::tuple<size_t, uint32_t, uint32_t>,
           std::pair<std::vector<size_t>, std::vector<size_t>>>
      flags;
  for (size_t i = 0; i < layout.slices.size(); ++i) {
    const Slice& s = layout.slices[i];
    if (s.sync == SyncKind::kNone || s.rec->flag_event < 0 ||
        s.rec->flag_event >= static_cast<int32_t>(kNumHardEvents)) {
      continue;
    }
    auto& sides = flags[{s.core, static_cast<uint32_t>(s.rec->flag_event), s.rec->flag_id}];
    (s.sync == SyncKind::kSet ? sides.first : sides.second).push_back(i);
  }
  auto by_firing = [&](size_t a, size_t b) {
    const InstrRecord& x = *layout.slices[a].rec;
    const InstrRecord& y = *layout.slices[b].rec;
    return std::tie(x.end_cycle, layout.slices[a].order) <
           std::tie(y.end_cycle, layout.slices[b].order);
  };
  for (auto& [key, sides] : flags) {
    std::sort(sides.first.begin(), sides.first.end(), by_firing);
    std::sort(sides.second.begin(), sides.second.end(), by_firing);
    const size_t pairs = std::min(sides.first.size(), sides.second.size());
    for (size_t i = 0; i < pairs; ++i) {
      layout.flows.push_back(
          {0, FlowCategory(HardEvent(std::get<1>(key)).name), sides.first[i], sides.second[i]});
    }
  }
  // Cross-core flags: each passed wait names the core and cycle of the set that released it.
  std::map<std::tuple<uint32_t, uint64_t, uint32_t>, size_t> cross_sets;  // (core, fired, id)
  for (size_t i = 0; i < layout.slices.size(); ++i) {
    const Slice& s = layout.slices[i];
    if (s.sync == SyncKind::kSet && s.rec->flag_event < 0) {
      cross_sets.emplace(std::make_tuple(s.rec->core, s.rec->end_cycle, s.rec->flag_id), i);
    }
  }
  for (size_t i = 0; i < layout.slices.size(); ++i) {
    const InstrRecord& r = *layout.slices[i].rec;
    if (layout.slices[i].sync != SyncKind::kWait || r.released_by_core < 0) continue;
    auto set = cross_sets.find(
        std::make_tuple(static_cast<uint32_t>(r.released_by_core), r.released_by_cycle, r.flag_id));
    if (set != cross_sets.end()) layout.flows.push_back({0, "CrossCore", set->second, i});
  }
  // Ids in time order, so reading the file top-down follows the kernel.
  std::sort(layout.flows.begin(), layout.flows.end(), [&](const Flow& a, const Flow& b) {
    const Slice& x = layout.slices[a.set];
    const Slice& y = layout.slices[b.set];
    return std::tie(x.begin, x.order) < std::tie(y.begin, y.order);
  });
  for (size_t i = 0; i < layout.flows.size(); ++i) layout.flows[i].id = i + 1;

  // Markers: each diagnostic on its pipe's first lane of every core that reported it.
  for (const Diagnostic& d : result.diagnostics) {
    std::vector<uint32_t> cores = d.cores;
    if (cores.empty() && d.core >= 0) cores.push_back(static_cast<uint32_t>(d.core));
    for (uint32_t c : cores) {
      auto kind = kinds.find(c);
      CoreId id{IsCubePipe(d.pipe) || (kind != kinds.end() && kind->second == 2), c};
      size_t slot = core_slot(id);
      if (slot >= layout.cores.size() || !(layout.cores[slot] == id)) continue;  // no tracks
      Marker m{&d, slot, std::nullopt, d.cycle};
      const std::string msprof = MsprofPipeName(d.pipe);
      for (size_t p = 0; p < layout.pipes.size(); ++p) {
        if (layout.pipes[p].msprof_name == msprof && layout.Lanes(slot, p) > 0) m.pipe = p;
      }
      layout.markers.push_back(m);
    }
  }
  return layout;
}

}  // namespace aicore::sim::trace
