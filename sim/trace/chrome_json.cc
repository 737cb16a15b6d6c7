// Renders a Layout as Chrome trace-event JSON. Pids, tids, colours and sort indices follow
// msprof (hardware-910b.md section 8) so its readers group the tracks as on hardware. Every
// event is one nlohmann-json object, dumped on a line of its own as soon as it is built, so a
// trace of millions of instructions never becomes one document tree in memory.
#include "sim/trace/chrome_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace aicore::sim::trace {
namespace {

// Keys stay in the order they are set: the files read top-down as msprof's do, and the same
// layout always gives the same bytes.
using Json = nlohmann::ordered_json;

// Compact, UTF-8 kept as it is (names may be non-ASCII), and bytes that are not UTF-8 (file
// names and details are arbitrary) replaced by U+FFFD instead of throwing.
std::string Dump(const Json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

// A trace file as it is written: the header object up to its open "traceEvents" array, then
// one event per line, then the closing brackets. Events go to `out` as they come, so the file
// never exists whole in memory.
class EventStream {
 public:
  EventStream(std::ostream& out, int schema_version) : out_(out) {
    // nlohmann's own text of the header with an empty array, cut before the array's "]}".
    Json header;
    header["schemaVersion"] = schema_version;
    header["displayTimeUnit"] = "ns";
    header["profilingType"] = "op";
    header["traceEvents"] = Json::array();
    const std::string text = Dump(header);
    out_.write(text.data(), static_cast<std::streamsize>(text.size() - 2));
    out_.put('\n');
  }

  void Append(const Json& event) {
    // The separator goes before each event but the first: JSON forbids a trailing comma.
    if (!first_) out_.write(",\n", 2);
    first_ = false;
    const std::string text = Dump(event);
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  }

  // Ends the array and the object; an empty array keeps its line break.
  void Finish() {
    const std::string_view tail = first_ ? "]}\n" : "\n]}\n";
    out_.write(tail.data(), static_cast<std::streamsize>(tail.size()));
  }

 private:
  std::ostream& out_;
  bool first_ = true;
};

// Sets a string value in place: an event object reused for the next slice keeps its strings'
// buffers, so millions of slices do not allocate and free every value.
void AssignString(Json& slot, std::string_view text) {
  if (!slot.is_string()) slot = std::string();
  slot.get_ref<std::string&>().assign(text.data(), text.size());
}

// A time in microseconds: whole values as integers ("ts":0, not 0.0), others as the shortest
// double that reads back the same. JSON has no infinity (a clock of almost 0 MHz): 0 then.
void AssignMicroseconds(Json& slot, const Layout& l, uint64_t cycles) {
  const double us = static_cast<double>(cycles) / l.mhz;
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (!std::isfinite(us)) {
    slot = 0;
  } else if (us == std::floor(us) && us < kExactIntegers) {
    slot = static_cast<uint64_t>(us);
  } else {
    slot = us;
  }
}

// Per-core files use numeric pids (msprof's per-pipe scheme) and tids unique across the file;
// the merged file uses the core name as pid and the lane name as tid, as msprof does.
using TrackId = std::variant<int, std::string>;
struct TrackNames {
  TrackId pid;
  TrackId tid;
};

void AssignTrackId(Json& slot, const TrackId& id) {
  if (const int* number = std::get_if<int>(&id)) {
    slot = *number;
  } else {
    AssignString(slot, std::get<std::string>(id));
  }
}

void AssignTrack(Json& event, const TrackNames& track) {
  AssignTrackId(event["pid"], track.pid);
  AssignTrackId(event["tid"], track.tid);
}

TrackNames CoreFileTrack(const Layout& l, size_t pipe, uint32_t lane) {
  const int pid = l.pipes[pipe].pid;
  return {pid, pid * 1000 + static_cast<int>(lane)};
}

std::string MergedLaneName(const Layout& l, size_t pipe, uint32_t lane) {
  const std::string& name = l.pipes[pipe].msprof_name;
  return lane == 0 ? name : name + "_" + std::to_string(lane);
}

TrackNames MergedTrack(const Layout& l, size_t core, size_t pipe, uint32_t lane) {
  return {l.cores[core].Name(), MergedLaneName(l, pipe, lane)};
}

void AppendMetadata(EventStream* out, std::string_view name, const TrackNames& track,
                    std::string_view arg_key, Json arg) {
  Json event;
  event["name"] = name;
  event["ph"] = "M";
  event["ts"] = 0;
  AssignTrack(event, track);
  event["args"][std::string(arg_key)] = std::move(arg);
  out->Append(event);
}

// InstrRecord::detail of the scalar unit's profiling marks (sim/pipe/scalar_debug.cc).
constexpr std::string_view kProfilingMark = "profiling mark";

std::string SourceCode(const SourcePoint& where) {
  return where.file + ":" + std::to_string(where.line);
}

// The objects of the events a file repeats per instruction and per flag, reused from one event
// to the next (same keys, new values). Set every key once per event, or the previous event's
// value stays.
struct ReusedEvents {
  Json slice;  // "ph":"X"
  Json mark;   // a profiling mark, "ph":"i"
  Json flow;   // "ph":"s" and "t"
};

void AppendSlice(EventStream* out, const Layout& l, const Slice& s, const TrackNames& track,
                 ReusedEvents* reused) {
  const InstrRecord& r = *s.rec;
  std::string_view cname = l.pipes[s.pipe].cname;
  if (s.sync == SyncKind::kSet) cname = "black";
  if (s.sync == SyncKind::kWait) cname = "yellow";
  const bool mark = r.detail == kProfilingMark;
  Json& event = mark ? reused->mark : reused->slice;
  AssignString(event["name"], r.op);
  if (mark) {
    // metrics_prof_start/stop, print_time_stamp: a point in time on the scalar track.
    AssignString(event["ph"], "i");
    AssignString(event["s"], "t");
    AssignMicroseconds(event["ts"], l, s.begin);
  } else {
    AssignString(event["ph"], "X");
    AssignMicroseconds(event["ts"], l, s.begin);
    AssignMicroseconds(event["dur"], l, s.end - s.begin);
  }
  AssignTrack(event, track);
  AssignString(event["cname"], cname);
  Json& args = event["args"];
  AssignString(args["code"], SourceCode(r.location));
  AssignString(args["detail"], r.detail);
  AssignString(args["pc_addr"], Hex(r.op_index));
  args["op_index"] = r.op_index;
  args["block_idx"] = r.block_idx;
  args["cycles"] = s.cycles;
  out->Append(event);
}

// "s" sits where the set slice starts (the firing tick); "t" on the wait slice's last cycle, so
// the arrow runs from the firing to the moment the waiting pipe resumes. Both lie inside their
// slices, which is how chrome://tracing and Perfetto bind flow steps.
void AppendFlow(EventStream* out, const Layout& l, const Flow& f, bool merged,
                ReusedEvents* reused) {
  const Slice& set = l.slices[f.set];
  const Slice& wait = l.slices[f.wait];
  Json& event = reused->flow;
  auto point = [&](const Slice& s, std::string_view ph, uint64_t at) {
    AssignString(event["name"], "flow");
    AssignString(event["ph"], ph);
    event["id"] = f.id;
    AssignString(event["cat"], f.cat);
    AssignMicroseconds(event["ts"], l, at);
    AssignTrack(event,
                merged ? MergedTrack(l, s.core, s.pipe, s.lane) : CoreFileTrack(l, s.pipe, s.lane));
    out->Append(event);
  };
  point(set, "s", set.begin);
  point(wait, "t", wait.end - 1);
}

// A diagnostic as an instant event: on its pipe's first lane ("s":"t"), or across the core's
// process when the core has no track of that pipe ("s":"p"). Errors and races draw red,
// warnings orange, notes grey.
void AppendMarker(EventStream* out, const Layout& l, const Marker& m, bool merged) {
  const Diagnostic& d = *m.diag;
  size_t pipe = m.pipe.value_or(0);
  if (!m.pipe.has_value()) {
    while (pipe + 1 < l.pipes.size() && l.Lanes(m.core, pipe) == 0) ++pipe;
  }
  // A launch that stopped before any instruction ran has no pipe tracks: the finding spans the
  // core's process.
  const TrackNames track =
      l.pipes.empty() ? (merged ? TrackNames{l.cores[m.core].Name(), ""} : TrackNames{0, 0})
      : merged        ? MergedTrack(l, m.core, pipe, 0)
                      : CoreFileTrack(l, pipe, 0);
  const char* color = d.severity == Diagnostic::Severity::kError  ? "terrible"
                      : d.severity == Diagnostic::Severity::kNote ? "grey"
                                                                  : "bad";
  Json event;
  event["name"] = DiagnosticKindName(d.kind);
  event["ph"] = "i";
  event["s"] = m.pipe.has_value() ? "t" : "p";
  AssignMicroseconds(event["ts"], l, m.cycle);
  AssignTrack(event, track);
  event["cname"] = color;
  Json& args = event["args"];
  args["severity"] = SeverityName(d.severity);
  args["code"] = SourceCode(d.location);
  if (!d.race.empty()) {
    args["race"] = d.race;
    args["other_code"] = SourceCode(d.other_location);
  }
  args["message"] = d.message;
  out->Append(event);
}

}  // namespace

void WriteCoreTraceJson(const Layout& l, size_t core, std::ostream& stream) {
  EventStream out(stream, 1);
  for (size_t p = 0; p < l.pipes.size(); ++p) {
    const uint32_t lanes = l.Lanes(core, p);
    if (lanes == 0) continue;
    const TrackNames process = CoreFileTrack(l, p, 0);
    AppendMetadata(&out, "process_name", process, "name", l.pipes[p].msprof_name);
    AppendMetadata(&out, "process_sort_index", process, "sort_index", l.pipes[p].lane_order);
    for (uint32_t lane = 0; lane < lanes; ++lane) {
      TrackNames track = CoreFileTrack(l, p, lane);
      AppendMetadata(&out, "thread_name", track, "name",
                     l.pipes[p].msprof_name + "_" + std::to_string(lane));
      AppendMetadata(&out, "thread_sort_index", track, "sort_index", lane);
    }
  }
  ReusedEvents reused;
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
    AppendSlice(&out, l, s, CoreFileTrack(l, s.pipe, s.lane), &reused);
  }
  // A cross-core flag's arrow joins two cores: only the merged file holds both ends.
  for (const Flow& f : l.flows) {
    if (l.slices[f.set].core == core && l.slices[f.wait].core == core) {
      AppendFlow(&out, l, f, /*merged=*/false, &reused);
    }
  }
  for (const Marker& m : l.markers) {
    if (m.core == core) AppendMarker(&out, l, m, /*merged=*/false);
  }
  out.Finish();
}

void WriteMergedTraceJson(const Layout& l, std::ostream& stream) {
  EventStream out(stream, 2);
  for (size_t c = 0; c < l.cores.size(); ++c) {
    bool any = false;
    for (size_t p = 0; p < l.pipes.size(); ++p) any = any || l.Lanes(c, p) > 0;
    if (!any) continue;
    // Process metadata rides on the core's first lane, so no thread exists only for it.
    size_t first_pipe = 0;
    while (l.Lanes(c, first_pipe) == 0) ++first_pipe;
    const TrackNames process = MergedTrack(l, c, first_pipe, 0);
    AppendMetadata(&out, "process_name", process, "name", std::get<std::string>(process.pid));
    AppendMetadata(&out, "process_sort_index", process, "sort_index", l.cores[c].SortIndex());
    for (size_t p = 0; p < l.pipes.size(); ++p) {
      for (uint32_t lane = 0; lane < l.Lanes(c, p); ++lane) {
        TrackNames track = MergedTrack(l, c, p, lane);
        AppendMetadata(&out, "thread_name", track, "name", std::get<std::string>(track.tid));
        AppendMetadata(&out, "thread_sort_index", track, "sort_index",
                       l.pipes[p].lane_order * 1000 + static_cast<int>(lane));
      }
    }
  }
  // Schema 2 is the time-sorted merge.
  ReusedEvents reused;
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
    AppendSlice(&out, l, s, MergedTrack(l, s.core, s.pipe, s.lane), &reused);
  }
  for (const Flow& f : l.flows) AppendFlow(&out, l, f, /*merged=*/true, &reused);
  for (const Marker& m : l.markers) AppendMarker(&out, l, m, /*merged=*/true);
  out.Finish();
}

std::string CoreTraceJson(const Layout& l, size_t core) {
  std::ostringstream out;
  WriteCoreTraceJson(l, core, out);
  return std::move(out).str();
}

std::string MergedTraceJson(const Layout& l) {
  std::ostringstream out;
  WriteMergedTraceJson(l, out);
  return std::move(out).str();
}

}  // namespace aicore::sim::trace
