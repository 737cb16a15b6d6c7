// The drawing plan every trace format renders from: a launch's timeline placed on per-core,
// per-pipe lanes, with set/wait flag pairs joined into flows. Computed once per launch so the
// formats agree on cores, pipes, lanes and times.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/launch_result.h"

namespace aicore::sim::trace {

// Shortest round-trip decimal in fixed notation: deterministic across runs and libcs, and plain
// enough for CSV readers that dislike exponents. Shared so a time reads alike in every CSV (the
// JSON files print numbers through nlohmann-json, see chrome_json.cc).
std::string FormatDouble(double v);

// msprof's pc_addr form ("0x1f"); the JSON args and the instruction CSV must print it alike.
std::string Hex(uint64_t v);

// One row per msprof pipe lane: the simulator's name, msprof's name, the per-core pid, the lane
// order of the merged file (SCALAR, FLOWCTRL, MTE1, CUBE, FIXP, MTE2, VECTOR, MTE3) and colour.
struct PipeStyle {
  std::string sim_name;
  std::string msprof_name;
  int pid = 0;
  int lane_order = 0;
  std::string cname;
};

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

enum class SyncKind { kNone, kSet, kWait };

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

// A checker finding drawn as an instant event at its instruction: one per core that reported
// it, at the cycle of the first (identical findings of several cores are merged in the report).
struct Marker {
  const Diagnostic* diag = nullptr;
  size_t core = 0;             // index into Layout::cores
  std::optional<size_t> pipe;  // index into Layout::pipes; none: the core has no such track
  uint64_t cycle = 0;
};

struct Layout {
  std::vector<CoreId> cores;     // sorted by SortIndex
  std::vector<PipeStyle> pipes;  // the pipes that occur, sorted by lane order
  std::vector<Slice> slices;     // timeline order
  std::vector<uint32_t> lanes;   // per (core, pipe): lanes used, index core * pipes + pipe
  std::vector<Flow> flows;       // by id
  std::vector<Marker> markers;   // the report's diagnostics, in report order
  double mhz = 0;

  uint32_t Lanes(size_t core, size_t pipe) const { return lanes[core * pipes.size() + pipe]; }
  std::string Us(uint64_t cycles) const { return FormatDouble(static_cast<double>(cycles) / mhz); }
};

// `result` must outlive the layout: slices point into its timeline. `mhz` must be positive.
Layout BuildLayout(const LaunchResult& result, double mhz);

}  // namespace aicore::sim::trace
