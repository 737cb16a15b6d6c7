// The race checker of one core (msSanitizer's racecheck, inside the simulator). Per byte range of
// every memory the core touches it keeps the last write and each pipe's last read, and checks
// each new access, at issue, against the core's happens-before clocks (sim/sync/
// happens_before.h): a conflicting pair that no chain of set_flag/wait_flag, barriers or queue
// events orders is a RACE, judged by the ordering rules, not by whether the simulated intervals
// happened to overlap. Across pipes every conflict (RAW, WAR, WAW) needs a flag pair; on one pipe
// RAW and WAW need a pipe_barrier (the vector pipe and the DMA engines overlap consecutive
// instructions), while WAR is ordered by in-order starts. Reads of local-memory bytes nothing
// wrote in this launch are UNINITIALIZED_READ warnings.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/check/diagnostics.h"
#include "sim/core/interval_map.h"
#include "sim/isa/core_type.h"
#include "sim/mem/mem_range.h"
#include "sim/sync/happens_before.h"

namespace aicore::sim {

class RaceChecker {
 public:
  RaceChecker(CoreType type, const HappensBefore& order, DiagnosticSink& sink);

  // A new block on this core: the previous block's accesses all ended before it (its pipes
  // drained), so only what was written is remembered.
  void StartBlock();

  // The accesses of the instruction at `site` (its pipe, which the scalar unit just issued with
  // sequence number `seq`), in issue order.
  void OnAccess(const Site& site, uint64_t seq, const MemRange* ranges, int num_ranges);

 private:
  struct Access {
    uint64_t seq = 0;  // 0: none
    const Instr* instr = nullptr;
    PipeId pipe = PipeId::kS;
    bool operator==(const Access&) const = default;
  };
  // An access as the shadow keeps it: its pipe is the read's index, or write_pipe. Two words, so
  // that the shadow a visit copies and compares per piece stays small.
  struct Stamp {
    uint64_t seq = 0;  // 0: none
    const Instr* instr = nullptr;
    bool operator==(const Stamp&) const = default;
  };
  struct Shadow {
    bool written = false;  // anything wrote these bytes in this launch
    PipeId write_pipe = PipeId::kS;
    Stamp write;
    std::array<Stamp, kNumPipes> reads{};
    bool operator==(const Shadow&) const = default;
  };
  // The first unordered earlier access found for one access, per kind.
  struct Finding {
    Access other;
    uint64_t lo = 0, hi = 0;
  };

  // Checks and records one range (every piece of a strided one).
  void Visit(const Site& site, uint64_t seq, const MemRange& r, const HappensBefore::Clock& known,
             Finding found[3], Finding* uninit);
  void Report(const Site& site, MemSpace space, int kind, const Finding& f);

  CoreType type_;
  const HappensBefore& order_;
  DiagnosticSink& sink_;
  static constexpr int kSpaces = 11;  // MemSpace values (SPR and CMPMASK included)
  std::array<IntervalMap<Shadow>, kSpaces> shadow_;
};

}  // namespace aicore::sim
