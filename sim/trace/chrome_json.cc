// Renders a Layout as Chrome trace-event JSON. Pids, tids, colours and sort indices follow
// msprof (hardware-910b.md section 8) so its readers group the tracks as on hardware; all
// strings are escaped here so arbitrary file names and details cannot break the parse.
#include "sim/trace/chrome_json.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace aicore::sim::trace {
namespace {

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

// InstrRecord::detail of the scalar unit's profiling marks (sim/pipe/scalar_debug.cc).
constexpr std::string_view kProfilingMark = "profiling mark";

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
  if (r.detail == kProfilingMark) {
    // metrics_prof_start/stop, print_time_stamp: a point in time on the scalar track.
    out->append(",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + l.Us(s.begin) + ",\"pid\":" + track.pid +
                ",\"tid\":" + track.tid + ",\"cname\":\"" + cname + "\",\"args\":{\"code\":");
  } else {
    out->append(",\"ph\":\"X\",\"ts\":" + l.Us(s.begin) + ",\"dur\":" + l.Us(s.end - s.begin) +
                ",\"pid\":" + track.pid + ",\"tid\":" + track.tid + ",\"cname\":\"" + cname +
                "\",\"args\":{\"code\":");
  }
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

// A diagnostic as an instant event: on its pipe's first lane ("s":"t"), or across the core's
// process when the core has no track of that pipe ("s":"p"). Errors and races draw red,
// warnings orange, notes grey.
void AppendMarker(std::string* out, const Layout& l, const Marker& m, bool merged) {
  const Diagnostic& d = *m.diag;
  size_t pipe = m.pipe.value_or(0);
  if (!m.pipe.has_value()) {
    while (pipe + 1 < l.pipes.size() && l.Lanes(m.core, pipe) == 0) ++pipe;
  }
  // A launch that stopped before any instruction ran has no pipe tracks: the finding spans the
  // core's process.
  TrackNames track = l.pipes.empty() ? TrackNames{merged ? JsonString(l.cores[m.core].Name()) : "0",
                                                  merged ? JsonString("") : "0"}
                     : merged ? MergedTrack(l, m.core, pipe, 0)
                              : CoreFileTrack(l, pipe, 0);
  const char* color = d.severity == Diagnostic::Severity::kError  ? "terrible"
                      : d.severity == Diagnostic::Severity::kNote ? "grey"
                                                                  : "bad";
  out->append("{\"name\":");
  AppendJsonString(out, DiagnosticKindName(d.kind));
  out->append(",\"ph\":\"i\",\"s\":\"" + std::string(m.pipe.has_value() ? "t" : "p") +
              "\",\"ts\":" + l.Us(m.cycle) + ",\"pid\":" + track.pid + ",\"tid\":" + track.tid +
              ",\"cname\":\"" + color + "\",\"args\":{\"severity\":\"" +
              std::string(SeverityName(d.severity)) + "\",\"code\":");
  AppendJsonString(out, d.location.file + ":" + std::to_string(d.location.line));
  if (!d.race.empty()) {
    out->append(",\"race\":");
    AppendJsonString(out, d.race);
    out->append(",\"other_code\":");
    AppendJsonString(out, d.other_location.file + ":" + std::to_string(d.other_location.line));
  }
  out->append(",\"message\":");
  AppendJsonString(out, d.message);
  out->append("}},\n");
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

}  // namespace

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
  // A cross-core flag's arrow joins two cores: only the merged file holds both ends.
  for (const Flow& f : l.flows) {
    if (l.slices[f.set].core == core && l.slices[f.wait].core == core) {
      AppendFlow(&out, l, f, /*merged=*/false);
    }
  }
  for (const Marker& m : l.markers) {
    if (m.core == core) AppendMarker(&out, l, m, /*merged=*/false);
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
  for (const Marker& m : l.markers) AppendMarker(&out, l, m, /*merged=*/true);
  return FinishTrace(std::move(out));
}

}  // namespace aicore::sim::trace
