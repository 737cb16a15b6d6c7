// msprof op simulator layout from a LaunchResult: Chrome trace-event JSON (per core and merged),
// per-core instruction and source-line CSVs, and the on-board OpBasicInfo / PipeUtilization
// summaries. Naming, pids and colours follow hardware-910b.md section 8 so msprof readers work.
#include "sim/trace/trace_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

namespace aicore::sim {
namespace {

namespace fs = std::filesystem;

// ---- text -------------------------------------------------------------------------------------

// Shortest round-trip decimal in fixed notation: deterministic across runs and libcs, and plain
// enough for CSV readers that dislike exponents.
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

// Length of the valid UTF-8 sequence at s[i], or 0. JSON must be UTF-8, and file names or
// details may carry arbitrary bytes; invalid ones become U+FFFD instead of breaking the parse.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  size_t n = 0;
  uint32_t min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  uint32_t cp = c & (0xFF >> (n + 1));
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out->append("\\ufffd");
        ++i;
      } else {
        out->append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// RFC 4180: quote only when needed, so plain cells stay readable by naive split(',') readers.
std::string CsvCell(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

void AppendCsvRow(std::string* out, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(CsvCell(cells[i]));
  }
  out->push_back('\n');
}

// ---- pipes and cores --------------------------------------------------------------------------

// One row per msprof pipe lane: the simulator's name, msprof's name, the per-core pid, the lane
// order of the merged file (SCALAR, FLOWCTRL, MTE1, CUBE, FIXP, MTE2, VECTOR, MTE3) and colour.
struct PipeStyle {
  std::string sim_name;
  std::string msprof_name;
  int pid = 0;
  int lane_order = 0;
  std::string cname;
};

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

// msprof names AI cores by their AIC group: AIV 2i+j is core<i>.veccore<j>, AIC i is
// core<i>.cubecore0; the merged file orders them 3i+1 (cube), 3i+2+j (vector j).
struct CoreId {
  bool cube = false;
  uint32_t index = 0;

  uint64_t SortIndex() const {
    return cube ? 3ull * index + 1 : 3ull * (index / 2) + 2 + index % 2;
  }
  std::string Name() const {
    if (cube) return "core" + std::to_string(index) + ".cubecore0";
    return "core" + std::to_string(index / 2) + ".veccore" + std::to_string(index % 2);
  }
  bool operator<(const CoreId& o) const { return SortIndex() < o.SortIndex(); }
  bool operator==(const CoreId& o) const { return cube == o.cube && index == o.index; }
};

// ---- slices -----------------------------------------------------------------------------------

enum class SyncKind { kNone, kSet, kWait };

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
  if (lower_equals("set_flag")) return SyncKind::kSet;
  if (lower_equals("wait_flag")) return SyncKind::kWait;
  return SyncKind::kNone;
}

// One drawn instruction. Cycles are integers until the very end so lanes and flows are exact.
struct Slice {
  const InstrRecord* rec = nullptr;
  size_t order = 0;  // index in the timeline: the tie-breaker that keeps output deterministic
  size_t core = 0;   // index into Layout::cores
  size_t pipe = 0;   // index into Layout::pipes
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t cycles = 0;  // what the CSVs and args report
  uint32_t lane = 0;
  SyncKind sync = SyncKind::kNone;
};

struct Flow {
  uint64_t id = 0;
  std::string cat;  // "MTE2ToVECTOR"
  size_t set = 0;   // slice indices
  size_t wait = 0;
};

struct Layout {
  std::vector<CoreId> cores;     // sorted by SortIndex
  std::vector<PipeStyle> pipes;  // the pipes that occur, sorted by lane order
  std::vector<Slice> slices;     // timeline order
  std::vector<uint32_t> lanes;   // per (core, pipe): lanes used, index core * pipes + pipe
  std::vector<Flow> flows;       // by id
  double mhz = 0;

  uint32_t Lanes(size_t core, size_t pipe) const { return lanes[core * pipes.size() + pipe]; }
  std::string Us(uint64_t cycles) const { return FormatDouble(static_cast<double>(cycles) / mhz); }
};

// "MTE2_V id=0", possibly inside more text ("... MTE2_V id=0 (inserted by auto_sync)"): the
// event is the identifier just before "id=". Returns {event, id}.
std::optional<std::pair<std::string, uint64_t>> ParseFlagDetail(std::string_view d) {
  auto is_ident = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (size_t at = d.find("id="); at != std::string_view::npos; at = d.find("id=", at + 1)) {
    if (at > 0 && is_ident(d[at - 1])) continue;  // "event_id=" is not the flag id
    size_t p = at + 3;
    if (p >= d.size() || d[p] < '0' || d[p] > '9') continue;
    uint64_t id = 0;
    auto [ptr, ec] = std::from_chars(d.data() + p, d.data() + d.size(), id);
    if (ec != std::errc()) continue;
    size_t e = at;
    while (e > 0 && (d[e - 1] == ' ' || d[e - 1] == '\t' || d[e - 1] == ',')) --e;
    size_t b = e;
    while (b > 0 && is_ident(d[b - 1])) --b;
    std::string_view event = d.substr(b, e - b);
    size_t underscore = event.find('_');
    if (underscore == std::string_view::npos || underscore == 0 || underscore + 1 == event.size()) {
      continue;
    }
    return std::make_pair(std::string(event), id);
  }
  return std::nullopt;
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
  std::map<std::tuple<size_t, std::string, uint64_t>,
           std::pair<std::vector<size_t>, std::vector<size_t>>>
      flags;
  for (size_t i = 0; i < layout.slices.size(); ++i) {
    const Slice& s = layout.slices[i];
    if (s.sync == SyncKind::kNone) continue;
    auto parsed = ParseFlagDetail(s.rec->detail);
    if (!parsed) continue;
    auto& sides = flags[{s.core, parsed->first, parsed->second}];
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
      layout.flows.push_back({0, FlowCategory(std::get<1>(key)), sides.first[i], sides.second[i]});
    }
  }
  // Ids in time order, so reading the file top-down follows the kernel.
  std::sort(layout.flows.begin(), layout.flows.end(), [&](const Flow& a, const Flow& b) {
    const Slice& x = layout.slices[a.set];
    const Slice& y = layout.slices[b.set];
    return std::tie(x.begin, x.order) < std::tie(y.begin, y.order);
  });
  for (size_t i = 0; i < layout.flows.size(); ++i) layout.flows[i].id = i + 1;
  return layout;
}

// ---- trace.json -------------------------------------------------------------------------------

// Per-core files use numeric pids (msprof's per-pipe scheme) and tids unique across the file;
// the merged file uses the core name as pid and the lane name as tid, as msprof does.
struct TrackNames {
  std::string pid;  // JSON value, already encoded
  std::string tid;
};

TrackNames CoreFileTrack(const Layout& l, size_t pipe, uint32_t lane) {
  const int pid = l.pipes[pipe].pid;
  return {std::to_string(pid), std::to_string(pid * 1000 + static_cast<int>(lane))};
}

std::string MergedLaneName(const Layout& l, size_t pipe, uint32_t lane) {
  const std::string& name = l.pipes[pipe].msprof_name;
  return lane == 0 ? name : name + "_" + std::to_string(lane);
}

TrackNames MergedTrack(const Layout& l, size_t core, size_t pipe, uint32_t lane) {
  return {JsonString(l.cores[core].Name()), JsonString(MergedLaneName(l, pipe, lane))};
}

void AppendMetadata(std::string* out, std::string_view name, const TrackNames& track,
                    std::string_view arg_key, const std::string& arg_json) {
  out->append("{\"name\":");
  AppendJsonString(out, name);
  out->append(",\"ph\":\"M\",\"ts\":0,\"pid\":" + track.pid + ",\"tid\":" + track.tid +
              ",\"args\":{");
  AppendJsonString(out, arg_key);
  out->append(":" + arg_json + "}},\n");
}

std::string SourceCode(const InstrRecord& r) {
  return r.location.file + ":" + std::to_string(r.location.line);
}

void AppendSlice(std::string* out, const Layout& l, const Slice& s, const TrackNames& track) {
  const InstrRecord& r = *s.rec;
  std::string cname = l.pipes[s.pipe].cname;
  if (s.sync == SyncKind::kSet) cname = "black";
  if (s.sync == SyncKind::kWait) cname = "yellow";
  out->append("{\"name\":");
  AppendJsonString(out, r.op);
  out->append(",\"ph\":\"X\",\"ts\":" + l.Us(s.begin) + ",\"dur\":" + l.Us(s.end - s.begin) +
              ",\"pid\":" + track.pid + ",\"tid\":" + track.tid + ",\"cname\":\"" + cname +
              "\",\"args\":{\"code\":");
  AppendJsonString(out, SourceCode(r));
  out->append(",\"detail\":");
  AppendJsonString(out, r.detail);
  out->append(",\"pc_addr\":\"" + Hex(r.op_index) + "\",\"op_index\":" +
              std::to_string(r.op_index) + ",\"block_idx\":" + std::to_string(r.block_idx) +
              ",\"cycles\":" + std::to_string(s.cycles) + "}},\n");
}

// "s" sits where the set slice starts (the firing tick); "t" on the wait slice's last cycle, so
// the arrow runs from the firing to the moment the waiting pipe resumes. Both lie inside their
// slices, which is how chrome://tracing and Perfetto bind flow steps.
void AppendFlow(std::string* out, const Layout& l, const Flow& f, bool merged) {
  const Slice& set = l.slices[f.set];
  const Slice& wait = l.slices[f.wait];
  auto point = [&](const Slice& s, char ph, uint64_t at) {
    TrackNames track =
        merged ? MergedTrack(l, s.core, s.pipe, s.lane) : CoreFileTrack(l, s.pipe, s.lane);
    out->append("{\"name\":\"flow\",\"ph\":\"");
    out->push_back(ph);
    out->append("\",\"id\":" + std::to_string(f.id) + ",\"cat\":");
    AppendJsonString(out, f.cat);
    out->append(",\"ts\":" + l.Us(at) + ",\"pid\":" + track.pid + ",\"tid\":" + track.tid + "},\n");
  };
  point(set, 's', set.begin);
  point(wait, 't', wait.end - 1);
}

// Closes the array: the writer puts ",\n" after every event, and JSON forbids the last comma.
std::string FinishTrace(std::string events) {
  if (events.size() >= 2 && events.compare(events.size() - 2, 2, ",\n") == 0) {
    events.resize(events.size() - 2);
    events.push_back('\n');
  }
  return events + "]}\n";
}

std::string TraceHeader(int schema_version) {
  return "{\"schemaVersion\":" + std::to_string(schema_version) +
         ",\"displayTimeUnit\":\"ns\",\"profilingType\":\"op\",\"traceEvents\":[\n";
}

std::string CoreTraceJson(const Layout& l, size_t core) {
  std::string out = TraceHeader(1);
  for (size_t p = 0; p < l.pipes.size(); ++p) {
    const uint32_t lanes = l.Lanes(core, p);
    if (lanes == 0) continue;
    const TrackNames process = CoreFileTrack(l, p, 0);
    AppendMetadata(&out, "process_name", process, "name", JsonString(l.pipes[p].msprof_name));
    AppendMetadata(&out, "process_sort_index", process, "sort_index",
                   std::to_string(l.pipes[p].lane_order));
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      TrackNames track = CoreFileTrack(l, p, lane);
      AppendMetadata(&out, "thread_name", track, "name",
                     JsonString(l.pipes[p].msprof_name + "_" + std::to_string(lane)));
      AppendMetadata(&out, "thread_sort_index", track, "sort_index", std::to_string(lane));
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < l.slices.size(); ++i) {
    if (l.slices[i].core == core) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Slice& x = l.slices[a];
    const Slice& y = l.slices[b];
    return std::tie(x.pipe, x.lane, x.begin, x.order) < std::tie(y.pipe, y.lane, y.begin, y.order);
  });
  for (size_t i : order) {
    const Slice& s = l.slices[i];
    AppendSlice(&out, l, s, CoreFileTrack(l, s.pipe, s.lane));
  }
  for (const Flow& f : l.flows) {
    if (l.slices[f.set].core == core) AppendFlow(&out, l, f, /*merged=*/false);
  }
  return FinishTrace(std::move(out));
}

std::string MergedTraceJson(const Layout& l) {
  std::string out = TraceHeader(2);
  for (size_t c = 0; c < l.cores.size(); ++c) {
    bool any = false;
    for (size_t p = 0; p < l.pipes.size(); ++p) any = any || l.Lanes(c, p) > 0;
    if (!any) continue;
    // Process metadata rides on the core's first lane, so no thread exists only for it.
    size_t first_pipe = 0;
    while (l.Lanes(c, first_pipe) == 0) ++first_pipe;
    const TrackNames process = MergedTrack(l, c, first_pipe, 0);
    const std::string& pid = process.pid;
    AppendMetadata(&out, "process_name", process, "name", pid);
    AppendMetadata(&out, "process_sort_index", process, "sort_index",
                   std::to_string(l.cores[c].SortIndex()));
    for (size_t p = 0; p < l.pipes.size(); ++p) {
      for (uint32_t lane = 0; lane < l.Lanes(c, p); ++lane) {
        TrackNames track = MergedTrack(l, c, p, lane);
        AppendMetadata(&out, "thread_name", track, "name", track.tid);
        AppendMetadata(&out, "thread_sort_index", track, "sort_index",
                       std::to_string(l.pipes[p].lane_order * 1000 + static_cast<int>(lane)));
      }
    }
  }
  // Schema 2 is the time-sorted merge.
  std::vector<size_t> order(l.slices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Slice& x = l.slices[a];
    const Slice& y = l.slices[b];
    return std::tie(x.begin, x.core, x.pipe, x.lane, x.order) <
           std::tie(y.begin, y.core, y.pipe, y.lane, y.order);
  });
  for (size_t i : order) {
    const Slice& s = l.slices[i];
    AppendSlice(&out, l, s, MergedTrack(l, s.core, s.pipe, s.lane));
  }
  for (const Flow& f : l.flows) AppendFlow(&out, l, f, /*merged=*/true);
  return FinishTrace(std::move(out));
}

// ---- per-core CSVs ----------------------------------------------------------------------------

std::string InstrExeCsv(const Layout& l, size_t core) {
  struct Row {
    const Slice* first = nullptr;
    uint64_t calls = 0;
    uint64_t cycles = 0;
  };
  std::map<uint32_t, Row> rows;  // by op_index, the pseudo-PC
  for (const Slice& s : l.slices) {
    if (s.core != core) continue;
    Row& row = rows[s.rec->op_index];
    if (row.first == nullptr) row.first = &s;
    ++row.calls;
    row.cycles += s.cycles;
  }
  std::string out;
  AppendCsvRow(&out,
               {"instr", "addr", "pipe", "call_count", "cycles", "running_time(us)", "detail"});
  for (const auto& [op_index, row] : rows) {
    AppendCsvRow(&out, {row.first->rec->op, Hex(op_index), l.pipes[row.first->pipe].msprof_name,
                        std::to_string(row.calls), std::to_string(row.cycles), l.Us(row.cycles),
                        row.first->rec->detail});
  }
  return out;
}

std::string CodeExeCsv(const Layout& l, size_t core) {
  std::map<std::pair<std::string, uint32_t>, std::pair<uint64_t, uint64_t>> rows;  // calls, cycles
  for (const Slice& s : l.slices) {
    if (s.core != core) continue;
    auto& row = rows[{s.rec->location.file, s.rec->location.line}];
    ++row.first;
    row.second += s.cycles;
  }
  std::string out;
  AppendCsvRow(&out, {"code", "call_count", "cycles", "running_time(us)"});
  for (const auto& [where, row] : rows) {
    AppendCsvRow(&out, {where.first + ":" + std::to_string(where.second), std::to_string(row.first),
                        std::to_string(row.second), l.Us(row.second)});
  }
  return out;
}

// ---- on-board summaries -----------------------------------------------------------------------

std::string Ratio(uint64_t part, uint64_t whole) {
  if (whole == 0) return "0";
  const double r = static_cast<double>(part) / static_cast<double>(whole);
  return FormatDouble(std::round(r * 1e6) / 1e6);
}

std::string OpBasicInfoCsv(const LaunchResult& result, const std::string& kernel_name, double mhz) {
  bool aiv = false;
  bool aic = false;
  uint64_t vector_cores = 0;
  for (const CoreStats& c : result.cores) {
    if (c.core_type == "aic") {
      aic = true;
    } else {
      aiv = true;
      ++vector_cores;
    }
  }
  std::string task_type = aic && aiv ? "MIX_AIC" : aic ? "AI_CORE" : "AI_VECTOR_CORE";
  // Mix Block Dim counts the vector blocks of a mix launch; plain launches have none.
  const uint64_t mix_block_dim = aic && aiv ? vector_cores : 0;
  const double duration_us =
      result.duration_us > 0 ? result.duration_us : static_cast<double>(result.cycles) / mhz;
  std::string out;
  AppendCsvRow(&out, {"Op Name", "Op Type", "Task Type", "Task Duration(us)", "Block Dim",
                      "Mix Block Dim", "Device Id", "Current Freq", "Rated Freq"});
  AppendCsvRow(&out, {kernel_name, kernel_name, task_type, FormatDouble(duration_us),
                      std::to_string(result.block_dim), std::to_string(mix_block_dim), "0",
                      FormatDouble(mhz), FormatDouble(mhz)});
  return out;
}

std::string PipeUtilizationCsv(const LaunchResult& result, double mhz) {
  // Column groups: aiv_* for vector cores, aic_* for cube cores; the other group is N/A, which
  // the pyasc scripts read as 0.
  static const std::vector<std::pair<std::string, std::string>> kAiv = {
      {"vec", "V"}, {"scalar", "S"}, {"mte2", "MTE2"}, {"mte3", "MTE3"}};
  static const std::vector<std::pair<std::string, std::string>> kAic = {
      {"cube", "M"},    {"scalar", "S"},  {"mte1", "MTE1"},
      {"mte2", "MTE2"}, {"mte3", "MTE3"}, {"fixpipe", "FIX"}};
  std::vector<std::string> header = {"block id", "sub core type"};
  auto add_group = [&](const std::string& prefix,
                       const std::vector<std::pair<std::string, std::string>>& pipes) {
    header.push_back(prefix + "_time(us)");
    header.push_back(prefix + "_total_cycles");
    for (const auto& [name, pipe] : pipes) {
      header.push_back(prefix + "_" + name + "_time(us)");
      header.push_back(prefix + "_" + name + "_ratio");
    }
  };
  add_group("aiv", kAiv);
  add_group("aic", kAic);
  std::string out;
  AppendCsvRow(&out, header);

  std::vector<const CoreStats*> cores;
  for (const CoreStats& c : result.cores) cores.push_back(&c);
  std::sort(cores.begin(), cores.end(), [](const CoreStats* a, const CoreStats* b) {
    return CoreId{a->core_type == "aic", a->core}.SortIndex() <
           CoreId{b->core_type == "aic", b->core}.SortIndex();
  });
  for (const CoreStats* c : cores) {
    const CoreId id{c->core_type == "aic", c->core};
    std::vector<std::string> row = {std::to_string(c->block_idx), id.Name()};
    auto busy = [&](const std::string& pipe) {
      for (const PipeStats& p : c->pipes) {
        if (p.pipe == pipe) return p.busy_cycles;
      }
      return uint64_t{0};
    };
    auto group = [&](bool mine, const std::vector<std::pair<std::string, std::string>>& pipes) {
      if (!mine) {
        row.insert(row.end(), 2 + 2 * pipes.size(), "N/A");
        return;
      }
      row.push_back(FormatDouble(static_cast<double>(c->cycles) / mhz));
      row.push_back(std::to_string(c->cycles));
      for (const auto& [name, pipe] : pipes) {
        const uint64_t cycles = busy(pipe);
        row.push_back(FormatDouble(static_cast<double>(cycles) / mhz));
        row.push_back(Ratio(cycles, c->cycles));
      }
    };
    group(!id.cube, kAiv);
    group(id.cube, kAic);
    AppendCsvRow(&out, row);
  }
  return out;
}

// A folder name from a kernel name: Python identifiers pass unchanged; path separators and
// other bytes become '_', and a leading dot is escaped so the folder is never hidden or "..".
std::string FolderName(const std::string& kernel_name) {
  std::string out;
  for (char c : kernel_name) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-' || c == '.';
    out.push_back(keep ? c : '_');
  }
  if (out.empty()) return "kernel";
  if (out[0] == '.') out[0] = '_';
  return out;
}

}  // namespace

StatusOr<std::vector<TraceFile>> RenderTrace(const LaunchResult& result,
                                             const std::string& kernel_name, double clock_mhz) {
  if (!(clock_mhz > 0) || !std::isfinite(clock_mhz)) {
    return InvalidArgument("trace of " + kernel_name +
                           ": the clock must be a positive MHz value, "
                           "got " +
                           FormatDouble(clock_mhz) +
                           " (set SocConfig.clock_mhz or TraceRequest.clock_mhz)");
  }
  const Layout layout = BuildLayout(result, clock_mhz);
  std::vector<TraceFile> files;
  files.push_back({"OpBasicInfo.csv", OpBasicInfoCsv(result, kernel_name, clock_mhz)});
  files.push_back({"PipeUtilization.csv", PipeUtilizationCsv(result, clock_mhz)});
  files.push_back({"simulator/trace.json", MergedTraceJson(layout)});
  for (size_t c = 0; c < layout.cores.size(); ++c) {
    const std::string name = layout.cores[c].Name();
    const std::string folder = "simulator/" + name + "/";
    files.push_back({folder + "trace.json", CoreTraceJson(layout, c)});
    files.push_back({folder + name + "_instr_exe.csv", InstrExeCsv(layout, c)});
    files.push_back({folder + name + "_code_exe.csv", CodeExeCsv(layout, c)});
  }
  return files;
}

StatusOr<std::string> WriteTrace(const LaunchResult& result, const TraceRequest& request) {
  const std::string kernel_name =
      !request.kernel_name.empty() ? request.kernel_name
                                   : (!result.kernel_name.empty() ? result.kernel_name : "kernel");
  const double mhz = request.clock_mhz > 0 ? request.clock_mhz : result.clock_mhz;
  auto files = RenderTrace(result, kernel_name, mhz);
  if (!files.ok()) return files.status();
  if (request.dir.empty()) return InvalidArgument("trace of " + kernel_name + ": empty trace_dir");

  std::error_code ec;
  const fs::path dir(request.dir);
  fs::create_directories(dir, ec);
  if (ec) {
    return FailedPrecondition("cannot create the trace folder " + dir.string() + ": " +
                              ec.message());
  }
  // create_directory reports "already there" without an error, which makes claiming an index
  // atomic between processes tracing into the same folder.
  const std::string base = FolderName(kernel_name);
  fs::path launch_dir;
  for (uint64_t n = 0;; ++n) {
    launch_dir = dir / ("OPPROF_" + base + "_" + std::to_string(n));
    if (fs::create_directory(launch_dir, ec)) break;
    if (ec) {
      return FailedPrecondition("cannot create the trace folder " + launch_dir.string() + ": " +
                                ec.message());
    }
  }
  for (const TraceFile& file : *files) {
    const fs::path path = launch_dir / fs::path(file.path);
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return FailedPrecondition("cannot create " + path.parent_path().string() + ": " +
                                ec.message());
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(file.contents.data(), static_cast<std::streamsize>(file.contents.size()));
    out.close();
    if (!out) return FailedPrecondition("cannot write the trace file " + path.string());
  }
  return launch_dir.string();
}

StatusOr<std::string> WriteTrace(const LaunchResult& result, const SocConfig& config,
                                 const std::string& dir) {
  TraceRequest request;
  request.dir = dir;
  request.clock_mhz = config.clock_mhz;
  return WriteTrace(result, request);
}

}  // namespace aicore::sim
