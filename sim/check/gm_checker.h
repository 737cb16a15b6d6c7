// GM across the cores of one launch, checked as copies execute: a core reading or writing bytes
// another core writes (or reads) in the same launch is a RACE unless cross-core synchronisation
// orders the two accesses (the cores' vector clocks, sim/sync/core_clocks.h: a cross-core set and
// the wait that consumes it, sync_all, a GM wait on the other core's bytes); two cores writing
// identical bytes, as
// whole-tile tail kernels do, is a GM_SHARED_WRITE note instead. A read of GM bytes that
// neither the host nor a kernel wrote is an UNINITIALIZED_READ warning. Blocks of one core run
// one after another and so are ordered; within a core, the race checker judges GM accesses by
// the core's flags like any other memory. Stores under an atomic mode (set_atomic_add ...) of
// several cores into one range are not a race, as accumulating is their point; an atomic store
// and a plain store or a read of another core still are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/check/diagnostics.h"
#include "sim/core/interval_map.h"
#include "sim/mem/global_memory.h"
#include "sim/sync/core_clocks.h"

namespace aicore::sim {

// One side of a copy in GM: `chunks` pieces of `chunk` bytes, `pitch` bytes apart, from `addr`.
struct GmSpan {
  uint64_t addr = 0;
  uint64_t chunk = 0;
  uint64_t pitch = 0;
  uint64_t chunks = 0;
};

// The two lowest cores of a set, each with the latest epoch it accessed at: enough to name, for
// any core, the lowest other member its access is not ordered with, which is all a conflict
// needs. Unbounded in the number of cores, and cheap to copy and compare (the shadow holds one
// per byte range).
class LowestCores {
 public:
  void Add(uint32_t core, uint32_t epoch = 0);
  // The lowest core of the set other than `self` whose access `self` does not know of (by
  // `clocks`), or -1.
  int32_t Unordered(uint32_t self, const CoreClocks* clocks) const;
  bool operator==(const LowestCores&) const = default;

 private:
  int32_t first_ = -1;   // the lowest, -1: none
  int32_t second_ = -1;  // the next, -1: none
  uint32_t first_epoch_ = 0;
  uint32_t second_epoch_ = 0;
};

class GmChecker {
 public:
  GmChecker(GlobalMemory& gm, DiagnosticSink& sink) : gm_(gm), sink_(sink) {}
  // The cores' clocks that order accesses of different cores; none: nothing is ordered.
  void set_clocks(const CoreClocks* clocks) { clocks_ = clocks; }

  // The cores whose plain writes last touched [lo, hi) in this launch (a GM wait learns from
  // them), lowest first, without duplicates.
  std::vector<uint32_t> Writers(uint64_t lo, uint64_t hi);

  // A copy reads `span` as it starts.
  void OnRead(const Site& site, const GmSpan& span);
  // A copy's bytes land: `data` holds them chunk after chunk; GM still holds the old bytes.
  // `atomic`: the store combines with GM under an atomic mode.
  void OnWrite(const Site& site, const GmSpan& span, const uint8_t* data, bool atomic = false);

 private:
  struct Shadow {
    int32_t writer = -1;       // core of the last plain write in this launch, -1: none
    uint32_t write_epoch = 0;  // the writer's epoch then
    const Instr* write_instr = nullptr;
    PipeId write_pipe = PipeId::kS;
    LowestCores atomic_writers;  // cores that stored atomically since then
    const Instr* atomic_instr = nullptr;
    PipeId atomic_pipe = PipeId::kS;
    LowestCores readers;  // cores that read since that write
    const Instr* read_instr = nullptr;
    PipeId read_pipe = PipeId::kS;
    bool operator==(const Shadow&) const = default;
  };

  // What one access of this core does to bytes another core's access touched (in the order of
  // the texts in gm_checker.cc).
  enum class Conflict {
    kReadsWrite,       // RAW: a read of another core's plain write
    kReadsAtomic,      // RAW: a read of another core's atomic stores
    kAtomicOverWrite,  // WAW: an atomic store over another core's plain write
    kSameWrite,        // GM_SHARED_WRITE: a plain write of identical bytes
    kDifferentWrite,   // WAW: a plain write of different bytes
    kWriteOverRead,    // WAR: a write over bytes another core read
    kWriteOverAtomic,  // WAW: a plain write over another core's atomic stores
  };
  // One conflict of one copy with one other core's access, over the hull of the pieces found.
  struct Found {
    Conflict conflict;
    int32_t other_core;
    PipeId other_pipe;
    const Instr* other;
    uint64_t lo, hi;
  };
  static void Note(std::vector<Found>* found, const Found& f);
  void Report(const Site& site, const Found& f);

  // Whether `self` knows of `other`'s access at `epoch` (it happened before).
  bool Ordered(uint32_t self, int32_t other, uint32_t epoch) const {
    return clocks_ != nullptr && clocks_->Knows(self, static_cast<uint32_t>(other), epoch);
  }
  uint32_t EpochOf(uint32_t core) const { return clocks_ != nullptr ? clocks_->Epoch(core) : 0; }

  GlobalMemory& gm_;
  DiagnosticSink& sink_;
  const CoreClocks* clocks_ = nullptr;
  IntervalMap<Shadow> shadow_;
};

}  // namespace aicore::sim
