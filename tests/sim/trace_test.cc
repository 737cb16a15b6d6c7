// Trace writer tests: the msprof layout, Chrome trace-event validity (parsed by a strict JSON
// reader below, written apart from the nlohmann-json encoder it checks, and by nlohmann's parser
// as a second opinion), set/wait flows, lanes for overlapping instructions, the CSVs,
// determinism, and one real launch through sim::Device.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/runtime.h"
#include "report.pb.h"
#include "sim/host/trace_output.h"
#include "sim/trace/trace_writer.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

namespace fs = std::filesystem;

// ---- a strict JSON reader ---------------------------------------------------------------------

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string str;
  std::vector<Json> array;
  // An object's members in order, as parallel vectors: a vector of an incomplete type is fine in
  // C++17, a std::pair of one is not (clang rejects it).
  std::vector<std::string> keys;
  std::vector<Json> values;

  const Json* Get(const std::string& key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &values[i];
    }
    return nullptr;
  }
  bool Has(const std::string& key) const { return Get(key) != nullptr; }
  // Events carry numbers or strings for pid/tid; tracks compare by this form.
  std::string Scalar() const {
    if (kind == Kind::kString) return "s:" + str;
    std::ostringstream o;
    o << "n:" << number;
    return o.str();
  }
};

// RFC 8259 grammar, whole input, no trailing commas, no raw control characters in strings.
class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}

  std::optional<Json> Parse() {
    Json v;
    if (!Value(&v)) return std::nullopt;
    Space();
    if (i_ != s_.size()) return Fail("trailing characters");
    return v;
  }
  const std::string& error() const { return error_; }

 private:
  std::nullopt_t Fail(const std::string& why) {
    if (error_.empty()) error_ = why + " at byte " + std::to_string(i_);
    return std::nullopt;
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  bool Literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(i_, n, word) != 0) return false;
    i_ += n;
    return true;
  }
  bool Value(Json* out) {
    Space();
    if (i_ >= s_.size()) return Fail("unexpected end"), false;
    char c = s_[i_];
    if (c == '{') return Object(out);
    if (c == '[') return Array(out);
    if (c == '"') {
      out->kind = Json::Kind::kString;
      return String(&out->str);
    }
    if (Literal("true")) {
      out->kind = Json::Kind::kBool;
      out->boolean = true;
      return true;
    }
    if (Literal("false")) {
      out->kind = Json::Kind::kBool;
      return true;
    }
    if (Literal("null")) return true;
    return Number(out);
  }
  bool Digits() {
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > start;
  }
  bool Number(Json* out) {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (!Digits()) {
      return Fail("bad value"), false;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!Digits()) return Fail("bad fraction"), false;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!Digits()) return Fail("bad exponent"), false;
    }
    out->kind = Json::Kind::kNumber;
    out->number = std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    return true;
  }
  bool String(std::string* out) {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return Fail("raw control character in string"), false;
      if (c != '\\') {
        out->push_back(static_cast<char>(c));
        continue;
      }
      if (i_ >= s_.size()) break;
      char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'u': {
          if (i_ + 4 > s_.size()) return Fail("short \\u escape"), false;
          unsigned cp = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
          } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          } else {
            out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default:
          return Fail("bad escape"), false;
      }
    }
    return Fail("unterminated string"), false;
  }
  bool Array(Json* out) {
    out->kind = Json::Kind::kArray;
    ++i_;
    Space();
    if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
    while (true) {
      Json v;
      if (!Value(&v)) return false;
      out->array.push_back(std::move(v));
      Space();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
      return Fail("expected , or ]"), false;
    }
  }
  bool Object(Json* out) {
    out->kind = Json::Kind::kObject;
    ++i_;
    Space();
    if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
    while (true) {
      Space();
      if (i_ >= s_.size() || s_[i_] != '"') return Fail("expected key"), false;
      std::string key;
      if (!String(&key)) return false;
      Space();
      if (i_ >= s_.size() || s_[i_] != ':') return Fail("expected :"), false;
      ++i_;
      Json v;
      if (!Value(&v)) return false;
      out->keys.push_back(std::move(key));
      out->values.push_back(std::move(v));
      Space();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
      return Fail("expected , or }"), false;
    }
  }

  const std::string& s_;
  size_t i_ = 0;
  std::string error_;
};

TEST(TraceJsonReader, RejectsWhatChromeWouldReject) {
  EXPECT_TRUE(JsonReader(R"({"a":[1,2.5e-3,"x\"y"]})").Parse());
  EXPECT_FALSE(JsonReader(R"({"a":[1,2,]})").Parse());
  EXPECT_FALSE(JsonReader("{\"a\":\"tab\there\"}").Parse());
  EXPECT_FALSE(JsonReader(R"({"a":1} x)").Parse());
  EXPECT_FALSE(JsonReader(R"({"a":01})").Parse());
}

// ---- trace-event checks -----------------------------------------------------------------------

struct Event {
  const Json* json = nullptr;
  std::string name, ph, track;  // track = pid|tid
  double ts = 0, dur = 0;
};

// Checks the trace-event format every event must satisfy and returns the events.
std::vector<Event> ValidateTrace(const std::string& text, int schema_version) {
  std::vector<Event> events;
  static std::deque<Json> keep;  // events point into the parsed documents; deque keeps them put
  JsonReader reader(text);
  std::optional<Json> doc = reader.Parse();
  EXPECT_TRUE(doc) << reader.error();
  if (!doc) return events;
  keep.push_back(std::move(*doc));
  const Json& root = keep.back();
  EXPECT_EQ(root.kind, Json::Kind::kObject);
  const Json* version = root.Get("schemaVersion");
  EXPECT_TRUE(version != nullptr && version->number == schema_version);
  const Json* list = root.Get("traceEvents");
  EXPECT_TRUE(list != nullptr && list->kind == Json::Kind::kArray);
  if (list == nullptr) return events;
  for (const Json& e : list->array) {
    for (const char* key : {"name", "ph", "ts", "pid", "tid"}) {
      EXPECT_TRUE(e.Has(key)) << "event without " << key;
    }
    if (!e.Has("name") || !e.Has("ph") || !e.Has("ts") || !e.Has("pid") || !e.Has("tid")) continue;
    Event ev;
    ev.json = &e;
    ev.name = e.Get("name")->str;
    ev.ph = e.Get("ph")->str;
    ev.ts = e.Get("ts")->number;
    ev.track = e.Get("pid")->Scalar() + "|" + e.Get("tid")->Scalar();
    EXPECT_EQ(e.Get("ts")->kind, Json::Kind::kNumber);
    EXPECT_GE(ev.ts, 0);
    if (ev.ph == "X") {
      const Json* dur = e.Get("dur");
      EXPECT_TRUE(dur != nullptr && dur->kind == Json::Kind::kNumber && dur->number >= 0);
      ev.dur = dur != nullptr ? dur->number : 0;
      EXPECT_TRUE(e.Has("cname"));
      const Json* args = e.Get("args");
      EXPECT_TRUE(args != nullptr && args->Has("code") && args->Has("detail") &&
                  args->Has("op_index") && args->Has("cycles"));
    } else if (ev.ph == "M") {
      static const std::set<std::string> kMeta = {"process_name", "process_sort_index",
                                                  "thread_name", "thread_sort_index"};
      EXPECT_TRUE(kMeta.count(ev.name)) << ev.name;
      const Json* args = e.Get("args");
      const char* key = ev.name.find("sort_index") != std::string::npos ? "sort_index" : "name";
      EXPECT_TRUE(args != nullptr && args->Has(key)) << ev.name;
      if (args != nullptr && args->Has(key)) {
        EXPECT_EQ(args->Get(key)->kind,
                  std::string(key) == "name" ? Json::Kind::kString : Json::Kind::kNumber);
      }
    } else if (ev.ph == "s" || ev.ph == "t") {
      EXPECT_TRUE(e.Has("id") && e.Has("cat"));
    } else if (ev.ph == "i") {
      // A checker finding: thread- or process-scoped, with its severity, line and message.
      const Json* scope = e.Get("s");
      EXPECT_TRUE(scope != nullptr && (scope->str == "t" || scope->str == "p"));
      const Json* args = e.Get("args");
      EXPECT_TRUE(args != nullptr && args->Has("severity") && args->Has("code") &&
                  args->Has("message"));
    } else {
      ADD_FAILURE() << "unexpected phase " << ev.ph;
    }
    events.push_back(ev);
  }
  return events;
}

// Slices sharing a track must not partially overlap (Chrome needs proper nesting; the writer
// spreads overlapping instructions over lanes, so none may even nest).
void ExpectNoOverlapOnATrack(const std::vector<Event>& events, double cycle_in_trace_time) {
  std::map<std::string, std::vector<const Event*>> tracks;
  for (const Event& e : events) {
    if (e.ph == "X") tracks[e.track].push_back(&e);
  }
  for (auto& [track, slices] : tracks) {
    std::sort(slices.begin(), slices.end(),
              [](const Event* a, const Event* b) { return a->ts < b->ts; });
    for (size_t i = 1; i < slices.size(); ++i) {
      EXPECT_LE(slices[i - 1]->ts + slices[i - 1]->dur, slices[i]->ts + cycle_in_trace_time * 1e-3)
          << track << ": " << slices[i - 1]->name << " overlaps " << slices[i]->name;
    }
  }
}

struct FlowCheck {
  const Event* set = nullptr;
  const Event* wait = nullptr;
  std::string cat;
};

// Every "s" has exactly one "t" with the same id and cat; the s starts a set_flag slice on its
// track, the t lies inside a wait_flag slice on its track. Returns the pairs.
std::vector<FlowCheck> CheckFlows(const std::vector<Event>& events) {
  std::map<double, std::vector<const Event*>> starts, steps;  // by id
  for (const Event& e : events) {
    if (e.ph == "s") starts[e.json->Get("id")->number].push_back(&e);
    if (e.ph == "t") steps[e.json->Get("id")->number].push_back(&e);
  }
  EXPECT_EQ(starts.size(), steps.size());
  std::vector<FlowCheck> out;
  for (const auto& [id, s] : starts) {
    EXPECT_EQ(s.size(), 1u) << "flow id " << id << " starts twice";
    auto t = steps.find(id);
    if (t == steps.end()) {
      ADD_FAILURE() << "flow id " << id << " has no t";
      continue;
    }
    EXPECT_EQ(t->second.size(), 1u);
    const Event& start = *s[0];
    const Event& step = *t->second[0];
    EXPECT_EQ(start.json->Get("cat")->str, step.json->Get("cat")->str);
    FlowCheck check;
    check.cat = start.json->Get("cat")->str;
    for (const Event& e : events) {
      if (e.ph != "X") continue;
      auto ends_with = [&](const std::string& tail) {
        return e.name.size() >= tail.size() &&
               e.name.compare(e.name.size() - tail.size(), tail.size(), tail) == 0;
      };
      if (ends_with("set_flag") && e.track == start.track && e.ts == start.ts) {
        EXPECT_EQ(check.set, nullptr) << "two set_flag slices under one flow start";
        check.set = &e;
      }
      if (ends_with("wait_flag") && e.track == step.track && e.ts <= step.ts &&
          step.ts <= e.ts + e.dur) {
        EXPECT_EQ(check.wait, nullptr) << "two wait_flag slices under one flow step";
        check.wait = &e;
      }
    }
    EXPECT_NE(check.set, nullptr) << "flow " << id << ": no set_flag at its start";
    EXPECT_NE(check.wait, nullptr) << "flow " << id << ": no wait_flag around its step";
    if (check.set != nullptr && check.wait != nullptr) out.push_back(check);
  }
  for (const auto& [id, t] : steps) EXPECT_TRUE(starts.count(id)) << "t without s: " << id;
  return out;
}

// ---- a hand-built launch ----------------------------------------------------------------------

constexpr double kMhz = 1850;

// A set_flag / wait_flag record: its HardEvent value and id.
InstrRecord Flag(InstrRecord r, int32_t event, uint32_t id) {
  r.flag_event = event;
  r.flag_id = id;
  return r;
}

InstrRecord Rec(uint32_t core, const std::string& pipe, const std::string& op, uint32_t op_index,
                uint32_t line, uint64_t issue, uint64_t start, uint64_t end,
                const std::string& detail = "") {
  InstrRecord r;
  r.core = core;
  r.block_idx = core;
  r.pipe = pipe;
  r.op = op;
  r.op_index = op_index;
  r.location.file = "kernel.py";
  r.location.line = line;
  r.issue_cycle = issue;
  r.start_cycle = start;
  r.end_cycle = end;
  r.detail = detail;
  return r;
}

CoreStats Core(uint32_t core, uint64_t cycles, uint64_t v_busy, uint64_t mte2_busy) {
  CoreStats c;
  c.core = core;
  c.core_type = "aiv";
  c.block_idx = core;
  c.cycles = cycles;
  c.pipes = {{"S", 10, 20, 0, 0},
             {"V", 3, v_busy, 0, 0},
             {"MTE2", 2, mte2_busy, 0, 4096},
             {"MTE3", 1, 85, 0, 2048}};
  return c;
}

// Core 0: two copy-in rounds, each MTE2_V id=0 set/wait; two pipelined adds on V overlapping;
// a V_MTE3 pair whose detail carries extra text. Core 1: one MTE2_V id=0 pair, timed between
// core 0's (fires at 105, taken at 108) so pairing across cores would join the wrong slices.
// Waits are recorded taken-at-end, as the simulator does.
LaunchResult HandBuilt() {
  LaunchResult r;
  r.kernel_name = "add_kernel";
  r.platform = "Ascend910B1";
  r.block_dim = 2;
  r.cycles = 300;
  r.duration_us = 300 / kMhz;
  r.clock_mhz = kMhz;
  r.cores = {Core(0, 300, 95, 200), Core(1, 148, 40, 105)};
  r.timeline = {
      Rec(0, "MTE2", "data_copy", 1, 10, 0, 0, 100),
      Rec(1, "MTE2", "data_copy", 1, 10, 0, 0, 105),
      Flag(Rec(0, "MTE2", "set_flag", 2, 12, 1, 1, 100, "MTE2_V id=0"), 4, 0),
      Flag(Rec(1, "MTE2", "set_flag", 2, 12, 1, 1, 105, "MTE2_V id=0"), 4, 0),
      Flag(Rec(1, "V", "wait_flag", 4, 13, 2, 108, 108, "MTE2_V id=0"), 4, 0),
      Rec(1, "V", "add", 5, 14, 3, 108, 148, "mask=0xff, repeat=2"),
      Rec(0, "MTE2", "data_copy", 3, 11, 2, 100, 200),
      Flag(Rec(0, "MTE2", "set_flag", 2, 12, 3, 101, 200, "MTE2_V id=0"), 4, 0),
      Flag(Rec(0, "V", "wait_flag", 4, 13, 2, 110, 110, "MTE2_V id=0"), 4, 0),
      Rec(0, "V", "add", 5, 14, 3, 110, 150),
      Rec(0, "V", "add", 6, 15, 4, 120, 170),
      Flag(Rec(0, "V", "wait_flag", 4, 13, 5, 205, 205, "MTE2_V id=0"), 4, 0),
      Flag(Rec(0, "V", "set_flag", 7, 16, 6, 206, 210, "V_MTE3 id=1 (inserted by auto_sync)"), 7,
           1),
      Flag(Rec(0, "MTE3", "wait_flag", 8, 17, 7, 215, 215, "V_MTE3 id=1"), 7, 1),
      Rec(0, "MTE3", "data_copy", 9, 18, 8, 215, 300),
  };
  // Escaping: quote, backslash, tab, a control byte and an invalid UTF-8 byte in a file name.
  r.timeline[5].location.file = "we\"ird\\dir\t\x01\xff.py";
  return r;
}

std::map<std::string, std::string> Render(const LaunchResult& r) {
  auto files = RenderTrace(r, "add_kernel", kMhz);
  EXPECT_TRUE(files.ok()) << files.status().message();
  std::map<std::string, std::string> out;
  if (!files.ok()) return out;
  for (const TraceFile& f : *files) {
    EXPECT_FALSE(out.count(f.path)) << "duplicate " << f.path;
    out[f.path] = f.contents;
  }
  return out;
}

double Us(uint64_t cycles) { return static_cast<double>(cycles) / kMhz; }

std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell.push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(cell);
      cell.clear();
      rows.emplace_back();
    } else {
      cell.push_back(c);
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(TraceWriter, LaysFilesOutLikeMsprof) {
  auto files = Render(HandBuilt());
  std::vector<std::string> paths;
  for (const auto& [path, contents] : files) paths.push_back(path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "OpBasicInfo.csv",
                       "PipeUtilization.csv",
                       "simulator/core0.veccore0/core0.veccore0_code_exe.csv",
                       "simulator/core0.veccore0/core0.veccore0_instr_exe.csv",
                       "simulator/core0.veccore0/trace.json",
                       "simulator/core0.veccore1/core0.veccore1_code_exe.csv",
                       "simulator/core0.veccore1/core0.veccore1_instr_exe.csv",
                       "simulator/core0.veccore1/trace.json",
                       "simulator/trace.json",
                   }));
}

TEST(TraceWriter, TraceFilesAreValidTraceEventJson) {
  auto files = Render(HandBuilt());
  for (const char* path : {"simulator/core0.veccore0/trace.json",
                           "simulator/core0.veccore1/trace.json", "simulator/trace.json"}) {
    SCOPED_TRACE(path);
    const int schema = std::string(path) == "simulator/trace.json" ? 2 : 1;
    std::vector<Event> events = ValidateTrace(files[path], schema);
    ExpectNoOverlapOnATrack(events, Us(1));
    // Every track with slices is named, as Perfetto shows unnamed ones as bare numbers.
    std::set<std::string> named, used;
    for (const Event& e : events) {
      if (e.ph == "M" && e.name == "thread_name") named.insert(e.track);
      if (e.ph == "X") used.insert(e.track);
    }
    for (const std::string& t : used) EXPECT_TRUE(named.count(t)) << t;
  }
}

TEST(TraceWriter, PerCoreFileUsesMsprofPidsColoursAndMicroseconds) {
  auto files = Render(HandBuilt());
  std::vector<Event> events = ValidateTrace(files["simulator/core0.veccore0/trace.json"], 1);
  std::map<std::string, double> process_pid;
  int slices = 0;
  for (const Event& e : events) {
    if (e.ph == "M" && e.name == "process_name") {
      process_pid[e.json->Get("args")->Get("name")->str] = e.json->Get("pid")->number;
    }
    if (e.ph != "X") continue;
    ++slices;
    const std::string cname = e.json->Get("cname")->str;
    const double pid = e.json->Get("pid")->number;
    if (e.name == "set_flag") {
      EXPECT_EQ(cname, "black");
    } else if (e.name == "wait_flag") {
      EXPECT_EQ(cname, "yellow");
    } else if (pid == 30) {
      EXPECT_EQ(cname, "cq_build_failed");
    } else if (pid == 60) {
      EXPECT_EQ(cname, "thread_state_iowait");
    } else if (pid == 70) {
      EXPECT_EQ(cname, "rail_response");
    } else {
      ADD_FAILURE() << "slice on unexpected pid " << pid;
    }
  }
  EXPECT_EQ(slices, 11);  // core 0's records
  EXPECT_EQ(process_pid,
            (std::map<std::string, double>{{"MTE2", 60}, {"MTE3", 70}, {"VECTOR", 30}}));

  // The second copy-in: ts = 100 cycles / 1850 MHz, dur = 100 cycles; args name the source.
  const Event* copy = nullptr;
  for (const Event& e : events) {
    if (e.ph == "X" && e.name == "data_copy" && e.json->Get("args")->Get("op_index")->number == 3)
      copy = &e;
  }
  ASSERT_NE(copy, nullptr);
  EXPECT_DOUBLE_EQ(copy->ts, Us(100));
  EXPECT_DOUBLE_EQ(copy->dur, Us(100));
  EXPECT_EQ(copy->json->Get("args")->Get("code")->str, "kernel.py:11");
  EXPECT_EQ(copy->json->Get("args")->Get("cycles")->number, 100);
}

TEST(TraceWriter, DiagnosticsAreInstantEventsAtTheirInstruction) {
  // A race merged over both cores, on V, and a deadlock-free warning on a pipe core 1 lacks.
  LaunchResult r = HandBuilt();
  Diagnostic race;
  race.severity = Diagnostic::Severity::kError;
  race.kind = Diagnostic::Kind::kRace;
  race.message = "cores 0-1 PIPE_V add at kernel.py:14: race (RAW) on UB[0, 512): ...";
  race.core = 0;
  race.cores = {0, 1};
  race.pipe = "V";
  race.op = "add";
  race.location = {"kernel.py", 14, 0};
  race.cycle = 110;
  race.race = "RAW";
  race.other_location = {"kernel.py", 11, 0};
  Diagnostic warning;
  warning.severity = Diagnostic::Severity::kWarning;
  warning.kind = Diagnostic::Kind::kUninitializedRead;
  warning.message = "core 1 (block 1) PIPE_MTE3 data_copy at kernel.py:18, cycle 140: reads ...";
  warning.core = 1;
  warning.cores = {1};
  warning.pipe = "MTE3";
  warning.location = {"kernel.py", 18, 0};
  warning.cycle = 140;
  r.diagnostics = {race, warning};
  auto files = Render(r);
  struct Want {
    const char* path;
    int schema;
    std::vector<std::string> names;  // the instant events of the file, in order
  };
  for (const Want& want :
       {Want{"simulator/core0.veccore0/trace.json", 1, {"RACE"}},
        Want{"simulator/core0.veccore1/trace.json", 1, {"RACE", "UNINITIALIZED_READ"}},
        Want{"simulator/trace.json", 2, {"RACE", "RACE", "UNINITIALIZED_READ"}}}) {
    SCOPED_TRACE(want.path);
    std::vector<Event> events = ValidateTrace(files[want.path], want.schema);
    std::vector<std::string> names;
    for (const Event& e : events) {
      if (e.ph != "i") continue;
      names.push_back(e.name);
      const Json& args = *e.json->Get("args");
      if (e.name == "RACE") {
        EXPECT_DOUBLE_EQ(e.ts, Us(110));
        EXPECT_EQ(e.json->Get("s")->str, "t");  // on the V track of its core
        EXPECT_EQ(e.json->Get("cname")->str, "terrible");
        EXPECT_EQ(args.Get("severity")->str, "ERROR");
        EXPECT_EQ(args.Get("code")->str, "kernel.py:14");
        EXPECT_EQ(args.Get("other_code")->str, "kernel.py:11");
        EXPECT_EQ(args.Get("race")->str, "RAW");
        EXPECT_EQ(args.Get("message")->str, race.message);
      } else {
        // Core 1 has no MTE3 track: the finding spans its process.
        EXPECT_EQ(e.json->Get("s")->str, "p");
        EXPECT_EQ(e.json->Get("cname")->str, "bad");
        EXPECT_EQ(args.Get("severity")->str, "WARNING");
        EXPECT_DOUBLE_EQ(e.ts, Us(140));
      }
    }
    EXPECT_EQ(names, want.names);
  }
}

TEST(TraceWriter, ALaunchThatStoppedBeforeAnyInstructionStillGivesValidFiles) {
  // An operand rejected at the first instruction: no timeline, one error (a crash before).
  LaunchResult r = HandBuilt();
  r.timeline.clear();
  Diagnostic error;
  error.severity = Diagnostic::Severity::kError;
  error.kind = Diagnostic::Kind::kInvalidOperand;
  error.message = "core 0 (block 0) PIPE_MTE2 data_copy_pad at kernel.py:9: left_padding ...";
  error.core = 0;
  error.cores = {0};
  error.pipe = "MTE2";
  error.location = {"kernel.py", 9, 0};
  r.diagnostics = {error};
  auto files = Render(r);
  for (const char* path : {"simulator/core0.veccore0/trace.json", "simulator/trace.json"}) {
    SCOPED_TRACE(path);
    std::vector<Event> events =
        ValidateTrace(files[path], std::string(path) == "simulator/trace.json" ? 2 : 1);
    int markers = 0;
    for (const Event& e : events) {
      if (e.ph != "i") continue;
      ++markers;
      EXPECT_EQ(e.name, "INVALID_OPERAND");
      EXPECT_EQ(e.json->Get("s")->str, "p");
    }
    EXPECT_EQ(markers, 1);
  }
}

TEST(TraceWriter, MarkerNamesAreTheReportsKindNames) {
  for (int k = aicore::report::v1::Diagnostic::Kind_MIN + 1;
       k <= aicore::report::v1::Diagnostic::Kind_MAX; ++k) {
    EXPECT_EQ(DiagnosticKindName(static_cast<Diagnostic::Kind>(k)),
              aicore::report::v1::Diagnostic::Kind_Name(k));
  }
}

TEST(TraceWriter, OverlappingInstructionsOfOnePipeLandOnDifferentTids) {
  auto files = Render(HandBuilt());
  for (const char* path : {"simulator/core0.veccore0/trace.json", "simulator/trace.json"}) {
    SCOPED_TRACE(path);
    std::vector<Event> events =
        ValidateTrace(files[path], std::string(path) == "simulator/trace.json" ? 2 : 1);
    const Event* first = nullptr;
    const Event* second = nullptr;
    for (const Event& e : events) {
      if (e.ph != "X" || e.name != "add") continue;
      if (e.ts == Us(110)) first = &e;
      if (e.ts == Us(120)) second = &e;
    }
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_NE(first->track, second->track);
    EXPECT_EQ(first->json->Get("pid")->Scalar(), second->json->Get("pid")->Scalar());
  }
}

TEST(TraceWriter, FlowsJoinTheIthSetWithTheIthWaitOfTheSameCoreEventAndId) {
  auto files = Render(HandBuilt());
  // set fires (cycles) -> the waiting instruction resumes (cycles), per core.
  const std::map<std::string, std::map<uint64_t, uint64_t>> expected = {
      {"simulator/core0.veccore0/trace.json", {{100, 110}, {200, 205}, {210, 215}}},
      {"simulator/core0.veccore1/trace.json", {{105, 108}}},
  };
  std::set<std::string> categories;
  for (const auto& [path, pairs] : expected) {
    SCOPED_TRACE(path);
    std::vector<Event> events = ValidateTrace(files[path], 1);
    std::vector<FlowCheck> flows = CheckFlows(events);
    ASSERT_EQ(flows.size(), pairs.size());
    for (const FlowCheck& f : flows) {
      categories.insert(f.cat);
      const uint64_t fired = std::llround(f.set->ts * kMhz);
      const uint64_t resumed = std::llround((f.wait->ts + f.wait->dur) * kMhz);
      ASSERT_TRUE(pairs.count(fired)) << "flow from a set firing at " << fired;
      EXPECT_EQ(pairs.at(fired), resumed) << "set firing at " << fired;
      EXPECT_EQ(f.set->json->Get("cname")->str, "black");
      // The set is drawn as one cycle at the tick it fires.
      EXPECT_DOUBLE_EQ(f.set->dur, Us(1));
    }
  }
  EXPECT_EQ(categories, (std::set<std::string>{"MTE2ToVECTOR", "VECTORToMTE3"}));

  // The merged file carries all four, with ids unique across cores.
  std::vector<Event> merged = ValidateTrace(files["simulator/trace.json"], 2);
  EXPECT_EQ(CheckFlows(merged).size(), 4u);
}

// A cube core's cross_core_set_flag (fires at 100) releases a vector core's wait (taken at 130):
// the merged file draws the arrow between the two cores; the per-core files hold no half arrow.
TEST(TraceWriter, CrossCoreFlagArrowsJoinTheSetToTheWaitItReleasedAcrossCores) {
  LaunchResult r;
  r.kernel_name = "mixed_kernel";
  r.platform = "Ascend910B1";
  r.block_dim = 1;
  r.cycles = 200;
  r.duration_us = 200 / kMhz;
  r.clock_mhz = kMhz;
  CoreStats aic = Core(0, 200, 0, 0);
  aic.core_type = "aic";
  r.cores = {aic, Core(1, 200, 40, 60)};
  InstrRecord set = Rec(0, "FIX", "cross_core_set_flag", 3, 20, 90, 90, 100, "flag 3 mode 2");
  set.flag_id = 3;
  InstrRecord wait = Rec(1, "S", "cross_core_wait_flag", 7, 30, 50, 50, 130, "flag 3");
  wait.flag_id = 3;
  wait.released_by_core = 0;
  wait.released_by_cycle = 100;
  r.timeline = {Rec(0, "FIX", "fixpipe", 2, 19, 10, 10, 90), set, wait,
                Rec(1, "MTE2", "data_copy", 8, 31, 131, 131, 180)};
  auto files = Render(r);
  std::vector<Event> merged = ValidateTrace(files["simulator/trace.json"], 2);
  std::vector<FlowCheck> flows = CheckFlows(merged);
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].cat, "CrossCore");
  ASSERT_NE(flows[0].set, nullptr);
  ASSERT_NE(flows[0].wait, nullptr);
  EXPECT_EQ(std::llround(flows[0].set->ts * kMhz), 100);
  EXPECT_EQ(std::llround((flows[0].wait->ts + flows[0].wait->dur) * kMhz), 130);
  EXPECT_NE(flows[0].set->track, flows[0].wait->track);
  for (const auto& [path, text] : files) {
    if (path.find("/core") == std::string::npos || path.find("trace.json") == std::string::npos) {
      continue;
    }
    SCOPED_TRACE(path);
    EXPECT_TRUE(CheckFlows(ValidateTrace(text, 1)).empty());
  }
}

TEST(TraceWriter, WaitSpansTheIdleGapItExplains) {
  auto files = Render(HandBuilt());
  std::vector<Event> events = ValidateTrace(files["simulator/core0.veccore0/trace.json"], 1);
  std::vector<std::pair<double, double>> waits;  // on V, in cycles
  for (const Event& e : events) {
    if (e.ph == "X" && e.name == "wait_flag" && e.json->Get("pid")->number == 30) {
      waits.emplace_back(std::round(e.ts * kMhz), std::round((e.ts + e.dur) * kMhz));
    }
  }
  std::sort(waits.begin(), waits.end());
  // First: from its issue (cycle 2, the pipe was idle) to 110. Second: from the end of the last
  // add (170) to 205.
  EXPECT_EQ(waits, (std::vector<std::pair<double, double>>{{2, 110}, {170, 205}}));
}

TEST(TraceWriter, MergedFileNamesCoresAndLanesLikeMsprof) {
  auto files = Render(HandBuilt());
  std::vector<Event> events = ValidateTrace(files["simulator/trace.json"], 2);
  std::map<std::string, double> sort_index;
  std::set<std::string> tids;
  for (const Event& e : events) {
    if (e.ph == "M" && e.name == "process_sort_index") {
      sort_index[e.json->Get("pid")->str] = e.json->Get("args")->Get("sort_index")->number;
    }
    if (e.ph == "X") {
      EXPECT_EQ(e.json->Get("pid")->kind, Json::Kind::kString);
      tids.insert(e.json->Get("pid")->str + "/" + e.json->Get("tid")->str);
    }
  }
  EXPECT_EQ(sort_index,
            (std::map<std::string, double>{{"core0.veccore0", 2}, {"core0.veccore1", 3}}));
  EXPECT_TRUE(tids.count("core0.veccore0/VECTOR"));
  EXPECT_TRUE(tids.count("core0.veccore0/VECTOR_1"));  // the overlapping add
  EXPECT_TRUE(tids.count("core0.veccore1/MTE2"));
  // Time-sorted, as schema 2 promises.
  double last = -1;
  for (const Event& e : events) {
    if (e.ph != "X") continue;
    EXPECT_GE(e.ts, last);
    last = e.ts;
  }
}

TEST(TraceWriter, EscapesStringsAndKeepsThemRecoverable) {
  auto files = Render(HandBuilt());
  std::vector<Event> events = ValidateTrace(files["simulator/core0.veccore1/trace.json"], 1);
  bool found = false;
  for (const Event& e : events) {
    if (e.ph == "X" && e.name == "add") {
      EXPECT_EQ(e.json->Get("args")->Get("code")->str, "we\"ird\\dir\t\x01\xEF\xBF\xBD.py:14");
      EXPECT_EQ(e.json->Get("args")->Get("detail")->str, "mask=0xff, repeat=2");
      found = true;
    }
  }
  EXPECT_TRUE(found);
}

// Instruction names, details and messages are arbitrary text: quotes, backslashes, every
// control character and non-ASCII must come out as JSON that parses back to the same string.
TEST(TraceWriter, AwkwardNamesParseBackToTheSameStrings) {
  std::string awkward = "add \"q\" \\ back/slash";
  for (char c = 1; c < 0x20; ++c) awkward.push_back(c);
  awkward += "\x7f 加算 ñ \xF0\x9F\x99\x82";  // DEL, CJK, Latin-1, an emoji beyond the BMP
  LaunchResult r = HandBuilt();
  r.kernel_name = awkward;
  r.timeline[5].op = awkward;  // core 1's add
  r.timeline[5].detail = "detail " + awkward;
  Diagnostic note;
  note.severity = Diagnostic::Severity::kNote;
  note.kind = Diagnostic::Kind::kUninitializedRead;
  note.message = "message " + awkward;
  note.core = 1;
  note.cores = {1};
  note.pipe = "V";
  note.location = {awkward, 14, 0};
  note.cycle = 108;
  r.diagnostics = {note};
  auto files = Render(r);
  for (const char* path : {"simulator/core0.veccore1/trace.json", "simulator/trace.json"}) {
    SCOPED_TRACE(path);
    const std::string& text = files[path];
    ValidateTrace(text, std::string(path) == "simulator/trace.json" ? 2 : 1);
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(doc.is_discarded()) << "not JSON";
    int slices = 0;
    int markers = 0;
    for (const nlohmann::json& e : doc.at("traceEvents")) {
      if (e.at("ph") == "X" && e.at("name") == awkward) {
        ++slices;
        EXPECT_EQ(e.at("args").at("detail"), "detail " + awkward);
      }
      if (e.at("ph") == "i") {
        ++markers;
        EXPECT_EQ(e.at("args").at("message"), "message " + awkward);
        EXPECT_EQ(e.at("args").at("code"), awkward + ":14");
      }
    }
    EXPECT_EQ(slices, 1);
    EXPECT_EQ(markers, 1);
    // One event per line keeps the files greppable and diffable: no raw line break inside one.
    const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    EXPECT_EQ(lines, doc.at("traceEvents").size() + 2);
  }

  // Two writes of the same launch are byte-identical, awkward names included.
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("aicore_trace_awkward_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  SocConfig config;
  config.clock_mhz = kMhz;
  auto first = WriteTrace(r, config, dir.string());
  auto second = WriteTrace(r, config, dir.string());
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok()) << second.status().message();
  ASSERT_NE(*first, *second);
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    EXPECT_TRUE(in.good()) << p;
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto rendered = RenderTrace(r, r.kernel_name, kMhz);
  ASSERT_TRUE(rendered.ok());
  for (const TraceFile& f : *rendered) {
    SCOPED_TRACE(f.path);
    EXPECT_EQ(read(fs::path(*first) / f.path), read(fs::path(*second) / f.path));
    EXPECT_EQ(read(fs::path(*first) / f.path), f.contents);
  }
  fs::remove_all(dir);
}

// The bytes readers see: keys in msprof's order, whole microseconds as integers, other times as
// the shortest double that reads back, one event per line, and an empty event list still valid.
TEST(TraceWriter, TraceJsonHasAStableCompactForm) {
  auto files = Render(HandBuilt());
  const std::string& text = files["simulator/core0.veccore0/trace.json"];
  const std::string head =
      R"({"schemaVersion":1,"displayTimeUnit":"ns","profilingType":"op","traceEvents":[)"
      "\n"
      R"({"name":"process_name","ph":"M","ts":0,"pid":60,"tid":60000,"args":{"name":"MTE2"}},)"
      "\n";
  EXPECT_EQ(text.substr(0, head.size()), head);
  const std::string first_copy =
      R"({"name":"data_copy","ph":"X","ts":0,"dur":0.05405405405405406,"pid":60,"tid":60000,)"
      R"("cname":"thread_state_iowait","args":{"code":"kernel.py:10","detail":"",)"
      R"("pc_addr":"0x1","op_index":1,"block_idx":0,"cycles":100}},)"
      "\n";
  EXPECT_NE(text.find("\n" + first_copy), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 5), "}\n]}\n");

  LaunchResult empty = HandBuilt();
  empty.timeline.clear();
  empty.diagnostics.clear();
  auto bare = Render(empty);
  EXPECT_EQ(bare["simulator/trace.json"],
            R"({"schemaVersion":2,"displayTimeUnit":"ns","profilingType":"op","traceEvents":[)"
            "\n]}\n");
  ValidateTrace(bare["simulator/trace.json"], 2);
}

TEST(TraceWriter, InstrAndCodeCsvAggregatePerInstructionAndLine) {
  auto files = Render(HandBuilt());
  auto instr = ParseCsv(files["simulator/core0.veccore0/core0.veccore0_instr_exe.csv"]);
  ASSERT_GE(instr.size(), 2u);
  EXPECT_EQ(instr[0], (std::vector<std::string>{"instr", "addr", "pipe", "call_count", "cycles",
                                                "running_time(us)", "detail"}));
  std::map<std::string, std::vector<std::string>> by_addr;
  for (size_t i = 1; i < instr.size(); ++i) by_addr[instr[i][1]] = instr[i];
  ASSERT_TRUE(by_addr.count("0x2"));
  // Two executions of the set at op 2, one cycle each.
  EXPECT_EQ(by_addr["0x2"], (std::vector<std::string>{"set_flag", "0x2", "MTE2", "2", "2",
                                                      by_addr["0x2"][5], "MTE2_V id=0"}));
  EXPECT_DOUBLE_EQ(std::stod(by_addr["0x2"][5]), Us(2));
  // The two waits at op 4 waited 108 and 35 cycles.
  EXPECT_EQ(by_addr["0x4"][3], "2");
  EXPECT_EQ(by_addr["0x4"][4], "143");
  EXPECT_EQ(by_addr["0x9"][2], "MTE3");
  EXPECT_EQ(instr.size(), 1u + 9u);  // header + ops 1..9, each once however often it ran

  auto code = ParseCsv(files["simulator/core0.veccore0/core0.veccore0_code_exe.csv"]);
  EXPECT_EQ(code[0],
            (std::vector<std::string>{"code", "call_count", "cycles", "running_time(us)"}));
  std::map<std::string, std::vector<std::string>> by_line;
  for (size_t i = 1; i < code.size(); ++i) by_line[code[i][0]] = code[i];
  EXPECT_EQ(by_line["kernel.py:10"][1], "1");
  EXPECT_EQ(by_line["kernel.py:10"][2], "100");
  EXPECT_EQ(by_line["kernel.py:14"][2], "40");

  // A detail with a comma is quoted, so the row keeps seven cells.
  auto core1 = ParseCsv(files["simulator/core0.veccore1/core0.veccore1_instr_exe.csv"]);
  bool add = false;
  for (const auto& row : core1) {
    EXPECT_EQ(row.size(), 7u);
    if (row[0] == "add") {
      EXPECT_EQ(row[6], "mask=0xff, repeat=2");
      add = true;
    }
  }
  EXPECT_TRUE(add);
}

TEST(TraceWriter, OnBoardSummariesHaveTheColumnsProfilingScriptsRead) {
  auto files = Render(HandBuilt());
  auto info = ParseCsv(files["OpBasicInfo.csv"]);
  ASSERT_EQ(info.size(), 2u);
  std::map<std::string, std::string> row;
  for (size_t i = 0; i < info[0].size(); ++i) row[info[0][i]] = info[1][i];
  EXPECT_EQ(row["Op Name"].rfind("add_kernel", 0), 0u);
  EXPECT_DOUBLE_EQ(std::stod(row["Task Duration(us)"]), 300 / kMhz);
  EXPECT_EQ(row["Block Dim"], "2");
  EXPECT_EQ(row["Mix Block Dim"], "0");
  EXPECT_EQ(row["Current Freq"], "1850");
  EXPECT_EQ(row["Rated Freq"], "1850");
  EXPECT_EQ(row["Task Type"], "AI_VECTOR_CORE");

  auto pipes = ParseCsv(files["PipeUtilization.csv"]);
  ASSERT_EQ(pipes.size(), 3u);  // header + one row per core
  const std::vector<std::string> wanted = {"block id",
                                           "sub core type",
                                           "aiv_time(us)",
                                           "aiv_total_cycles",
                                           "aiv_vec_time(us)",
                                           "aiv_vec_ratio",
                                           "aiv_scalar_time(us)",
                                           "aiv_scalar_ratio",
                                           "aiv_mte2_time(us)",
                                           "aiv_mte2_ratio",
                                           "aiv_mte3_time(us)",
                                           "aiv_mte3_ratio",
                                           "aic_time(us)",
                                           "aic_total_cycles",
                                           "aic_cube_time(us)",
                                           "aic_cube_ratio",
                                           "aic_scalar_time(us)",
                                           "aic_scalar_ratio",
                                           "aic_mte1_time(us)",
                                           "aic_mte1_ratio",
                                           "aic_mte2_time(us)",
                                           "aic_mte2_ratio",
                                           "aic_mte3_time(us)",
                                           "aic_mte3_ratio",
                                           "aic_fixpipe_time(us)",
                                           "aic_fixpipe_ratio"};
  EXPECT_EQ(pipes[0], wanted);
  std::map<std::string, std::string> core0;
  for (size_t i = 0; i < pipes[0].size(); ++i) core0[pipes[0][i]] = pipes[1][i];
  EXPECT_EQ(core0["block id"], "0");
  EXPECT_EQ(core0["sub core type"], "core0.veccore0");
  EXPECT_EQ(core0["aiv_total_cycles"], "300");
  EXPECT_DOUBLE_EQ(std::stod(core0["aiv_vec_time(us)"]), Us(95));
  EXPECT_DOUBLE_EQ(std::stod(core0["aiv_vec_ratio"]), 0.316667);  // 95 / 300, 6 decimals
  EXPECT_DOUBLE_EQ(std::stod(core0["aiv_mte2_time(us)"]), Us(200));
  EXPECT_EQ(core0["aic_cube_time(us)"], "N/A");
}

TEST(TraceWriter, IsDeterministicAndClaimsAFreshFolderPerLaunch) {
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("aicore_trace_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  LaunchResult r = HandBuilt();
  r.kernel_name = "pkg/add kernel";  // a path separator must not escape the folder
  SocConfig config;
  config.clock_mhz = kMhz;
  auto first = WriteTrace(r, config, dir.string());
  auto second = WriteTrace(r, config, dir.string());
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(*first, (dir / "OPPROF_pkg_add_kernel_0").string());
  EXPECT_EQ(*second, (dir / "OPPROF_pkg_add_kernel_1").string());

  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto files = RenderTrace(r, r.kernel_name, kMhz);
  ASSERT_TRUE(files.ok());
  for (const TraceFile& f : *files) {
    SCOPED_TRACE(f.path);
    const std::string a = read(fs::path(*first) / f.path);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, read(fs::path(*second) / f.path));
    EXPECT_EQ(a, f.contents);
  }
  // Rendering twice gives identical bytes too.
  auto again = RenderTrace(r, r.kernel_name, kMhz);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), files->size());
  for (size_t i = 0; i < files->size(); ++i) EXPECT_EQ((*again)[i].contents, (*files)[i].contents);
  fs::remove_all(dir);
}

TEST(TraceWriter, RejectsAClockThatCannotConvertCycles) {
  auto files = RenderTrace(HandBuilt(), "k", 0);
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(files.status().message().find("clock"), std::string::npos);
}

TEST(TraceWriter, ReportsAnUnwritableFolder) {
  const fs::path file =
      fs::path(::testing::TempDir()) / ("aicore_trace_blocker_" + std::to_string(::getpid()));
  std::ofstream(file) << "not a folder";
  TraceRequest request;
  request.dir = (file / "sub").string();
  request.clock_mhz = kMhz;
  auto written = WriteTrace(HandBuilt(), request);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(written.status().message().find(file.string()), std::string::npos);
  fs::remove(file);
}

// A daemon's trace root with a folder "inside" and, next to the root, a folder "outside"; both
// removed at the end of the test.
struct TraceRootFixture {
  fs::path top =
      fs::path(::testing::TempDir()) / ("aicore_trace_confine_" + std::to_string(::getpid()));
  fs::path root = top / "root";
  fs::path outside = top / "outside";
  TraceRootFixture() {
    fs::remove_all(top);
    fs::create_directories(root / "inside");
    fs::create_directories(outside);
  }
  ~TraceRootFixture() { fs::remove_all(top); }
};

TEST(TraceWriter, AConfinedTraceIsNotWrittenThroughALinkSwappedInBelowTheRoot) {
  // The daemon checks trace_dir with symlinks resolved, then writes; a folder replaced by a
  // link to somewhere else between the two must not lead the writer out of the root.
  TraceRootFixture f;
  fs::remove_all(f.root / "inside");
  fs::create_directory_symlink(f.outside, f.root / "inside");
  TraceRequest request;
  request.dir = (f.root / "inside" / "run").string();
  request.confine_root = f.root.string();
  request.clock_mhz = kMhz;
  auto written = WriteTrace(HandBuilt(), request);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(written.status().message().find("symbolic link"), std::string::npos)
      << written.status().message();
  EXPECT_TRUE(fs::is_empty(f.outside));
}

TEST(TraceWriter, AConfinedTraceRefusesALinkedLaunchFolderAndFile) {
  TraceRootFixture f;
  // A link where the launch folder's sub-folder will go: the writer claims OPPROF_k_0 itself, so
  // plant the link one level further down, in a folder that already exists from a first trace.
  TraceRequest request;
  request.dir = (f.root / "inside").string();
  request.confine_root = f.root.string();
  request.clock_mhz = kMhz;
  request.kernel_name = "k";
  auto first = WriteTrace(HandBuilt(), request);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(fs::exists(fs::path(*first) / "simulator" / "trace.json"));
  // A second trace into the same parent claims OPPROF_k_1; make its would-be name a link.
  fs::create_directory_symlink(f.outside, f.root / "inside" / "OPPROF_k_1");
  auto second = WriteTrace(HandBuilt(), request);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("symbolic link"), std::string::npos)
      << second.status().message();
  EXPECT_TRUE(fs::is_empty(f.outside));
}

TEST(TraceWriter, AConfinedTraceMustLieBelowItsRoot) {
  TraceRootFixture f;
  TraceRequest request;
  request.dir = f.outside.string();
  request.confine_root = f.root.string();
  request.clock_mhz = kMhz;
  auto written = WriteTrace(HandBuilt(), request);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(fs::is_empty(f.outside));
}

// ---- end to end -------------------------------------------------------------------------------

TEST(TraceWriter, RealLaunchThroughTheDeviceGivesAConsistentTrace) {
  SocConfig config = Config();
  Device device(config);
  AddKernelOptions o;
  o.block_len = 1024;
  o.tile_len = 256;
  const uint32_t blocks = 2;
  const size_t n = static_cast<size_t>(o.block_len) * blocks;
  std::vector<uint16_t> ones(n, 0x3C00);  // 1.0 in fp16
  uint64_t x = Upload(device, ones), y = Upload(device, ones), z = Upload(device, ones);
  auto program = Decode(AddKernel(o));
  ASSERT_NE(program, nullptr);
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto result =
      device.Launch(*program, blocks,
                    {ArgValue::Address(x), ArgValue::Address(y), ArgValue::Address(z)}, options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->status, LaunchResult::Status::kOk);
  ExpectStrictClean(*result);
  ASSERT_FALSE(result->timeline.empty());

  const fs::path dir =
      fs::path(::testing::TempDir()) / ("aicore_trace_e2e_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto written = WriteTrace(*result, config, dir.string());
  ASSERT_TRUE(written.ok()) << written.status().message();
  const fs::path launch(*written);
  EXPECT_EQ(launch.filename().string(), "OPPROF_vadd_0");
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    EXPECT_TRUE(in.good()) << p;
    return std::string(std::istreambuf_iterator<char>(in), {});
  };

  // One X slice per timeline record in the merged file; each core's file holds its own.
  std::vector<Event> merged = ValidateTrace(read(launch / "simulator/trace.json"), 2);
  size_t slices = 0;
  for (const Event& e : merged) slices += e.ph == "X";
  EXPECT_EQ(slices, result->timeline.size());
  ExpectNoOverlapOnATrack(merged, 1 / config.clock_mhz);

  // Flows exist for every wait whose detail names its flag (the simulator fills details).
  size_t waits_with_flag = 0;
  for (const InstrRecord& r : result->timeline) {
    if (r.op == "wait_flag" && r.detail.find("id=") != std::string::npos) ++waits_with_flag;
  }
  EXPECT_EQ(CheckFlows(merged).size(), waits_with_flag);

  for (const char* core : {"core0.veccore0", "core0.veccore1"}) {
    SCOPED_TRACE(core);
    const fs::path folder = launch / "simulator" / core;
    std::vector<Event> events = ValidateTrace(read(folder / "trace.json"), 1);
    ExpectNoOverlapOnATrack(events, 1 / config.clock_mhz);
    CheckFlows(events);
    // The instruction CSV counts every execution of this core.
    auto instr = ParseCsv(read(folder / (std::string(core) + "_instr_exe.csv")));
    uint64_t calls = 0;
    for (size_t i = 1; i < instr.size(); ++i) calls += std::stoull(instr[i][3]);
    uint64_t expected = 0;
    const uint32_t index = std::string(core) == "core0.veccore0" ? 0 : 1;
    for (const InstrRecord& r : result->timeline) expected += r.core == index;
    EXPECT_EQ(calls, expected);
    EXPECT_GT(calls, 0u);
  }

  auto info = ParseCsv(read(launch / "OpBasicInfo.csv"));
  ASSERT_EQ(info.size(), 2u);
  EXPECT_EQ(info[1][0], "vadd");
  EXPECT_DOUBLE_EQ(std::stod(info[1][3]), result->duration_us);
  auto pipes = ParseCsv(read(launch / "PipeUtilization.csv"));
  EXPECT_EQ(pipes.size(), 1u + result->cores.size());
  fs::remove_all(dir);
}

// ---- through the runtime ----------------------------------------------------------------------

// The remote transport rebuilds the writer's input from the LaunchReport; the files must come out
// exactly as from the simulator's own result.
TEST(TraceWriter, ReportRoundTripGivesTheSameFiles) {
  LaunchResult r = HandBuilt();
  // Fields the trace does not read must survive the round trip too.
  Diagnostic warning;
  warning.severity = Diagnostic::Severity::kWarning;
  warning.kind = Diagnostic::Kind::kGmOverrun;
  warning.message = "overrun";
  warning.core = 1;
  warning.location = {"k.py", 7, 3};
  r.diagnostics.push_back(warning);
  r.cores[0].pipes[0].hbm_read_bytes = 4096;
  r.cores[0].pipes[0].bank_conflict_cycles = 9;
  aicore::report::v1::LaunchReport report;
  ToProto(r, &report);
  LaunchResult back = FromProto(report);
  // The inverse is complete: converting back gives the very same report.
  aicore::report::v1::LaunchReport again;
  ToProto(back, &again);
  EXPECT_EQ(again.SerializeAsString(), report.SerializeAsString());
  auto direct = RenderTrace(r, r.kernel_name, kMhz);
  auto via_report = RenderTrace(back, back.kernel_name, back.clock_mhz);
  ASSERT_TRUE(direct.ok());
  ASSERT_TRUE(via_report.ok());
  ASSERT_EQ(direct->size(), via_report->size());
  for (size_t i = 0; i < direct->size(); ++i) {
    EXPECT_EQ((*direct)[i].path, (*via_report)[i].path);
    EXPECT_EQ((*direct)[i].contents, (*via_report)[i].contents) << (*direct)[i].path;
  }
}

TEST(TraceWriter, EmbeddedRuntimeWritesTheSameTraceAndDropsTheUnaskedTimeline) {
  AddKernelOptions o;
  o.block_len = 512;
  o.tile_len = 256;
  const ir::Kernel kernel = AddKernel(o);
  std::string ir_bytes;
  ASSERT_TRUE(kernel.SerializeToString(&ir_bytes));
  const size_t n = static_cast<size_t>(o.block_len);
  std::vector<uint16_t> ones(n, 0x3C00);

  auto rt = runtime::Runtime::CreateEmbedded("Ascend910B1");
  ASSERT_TRUE(rt.ok()) << rt.status().message();
  std::vector<runtime::ArgValue> args;
  for (int i = 0; i < 3; ++i) {
    auto a = (*rt)->Malloc(n * 2);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*rt)->MemcpyToDevice(*a, ones.data(), n * 2).ok());
    args.push_back(runtime::ArgValue::Address(*a));
  }
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("aicore_trace_rt_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  runtime::LaunchSettings settings;
  settings.trace_dir = dir.string();
  auto bytes = (*rt)->Launch(ir_bytes, 1, args, 0, settings);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  aicore::report::v1::LaunchReport report;
  ASSERT_TRUE(report.ParseFromString(*bytes));
  EXPECT_EQ(report.timeline_size(), 0);  // recorded for the trace, not returned
  settings.record_timeline = true;
  bytes = (*rt)->Launch(ir_bytes, 1, args, 0, settings);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  ASSERT_TRUE(report.ParseFromString(*bytes));
  EXPECT_GT(report.timeline_size(), 0);

  // The same kernel straight on a Device renders the same bytes as both runtime launches wrote.
  SocConfig config = Config();
  Device device(config);
  std::vector<ArgValue> device_args;
  for (int i = 0; i < 3; ++i) device_args.push_back(ArgValue::Address(Upload(device, ones)));
  auto program = Decode(kernel);
  ASSERT_NE(program, nullptr);
  LaunchOptions options;
  options.record_timeline = true;
  auto result = device.Launch(*program, 1, device_args, options);
  ASSERT_TRUE(result.ok());
  auto files = RenderTrace(*result, result->kernel_name, config.clock_mhz);
  ASSERT_TRUE(files.ok());
  for (const char* launch : {"OPPROF_vadd_0", "OPPROF_vadd_1"}) {
    for (const TraceFile& f : *files) {
      std::ifstream in(dir / launch / f.path, std::ios::binary);
      ASSERT_TRUE(in.good()) << launch << "/" << f.path;
      EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), f.contents)
          << launch << "/" << f.path;
    }
  }
  EXPECT_FALSE(fs::exists(dir / "vadd_2"));
  fs::remove_all(dir);
}

TEST(TraceWriter, RuntimeSaysTheKernelRanWhenTheTraceCannotBeWritten) {
  const fs::path blocker =
      fs::path(::testing::TempDir()) / ("aicore_trace_rt_blocker_" + std::to_string(::getpid()));
  std::ofstream(blocker) << "not a folder";
  auto s = WriteLaunchTrace(HandBuilt(), (blocker / "x").string());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.status().message().find("add_kernel ran (device memory holds its results), but its "
                                      "trace was not written"),
            std::string::npos)
      << s.status().message();
  fs::remove(blocker);
}

}  // namespace
}  // namespace aicore::sim::testing
