// GM across the cores of one launch, checked as copies execute: a core reading or writing bytes
// another core writes (or reads) in the same launch is a RACE, since nothing orders cores yet
// (no sync_all or cross-core flags exist in the IR); two cores writing identical bytes, as
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

namespace aicore::sim {

// One side of a copy in GM: `chunks` pieces of `chunk` bytes, `pitch` bytes apart, from `addr`.
struct GmSpan {
  uint64_t addr = 0;
  uint64_t chunk = 0;
  uint64_t pitch = 0;
  uint64_t chunks = 0;
};

// The two lowest cores of a set: enough to name, for any core, the lowest other member, which is
// all a conflict needs. Unbounded in the number of cores, and as cheap to copy and compare as a
// bit mask (the shadow holds one per byte range).
class LowestCores {
 public:
  void Add(uint32_t core);
  // The lowest core of the set other than `self`, or -1.
  int32_t Other(uint32_t self) const {
    return first_ >= 0 && first_ != static_cast<int32_t>(self) ? first_ : second_;
  }
  bool operator==(const LowestCores&) const = default;

 private:
  int32_t first_ = -1;   // the lowest, -1: none
  int32_t second_ = -1;  // the next, -1: none
};

class GmChecker {
 public:
  GmChecker(GlobalMemory& gm, DiagnosticSink& sink) : gm_(gm), sink_(sink) {}

  // A copy reads `span` as it starts.
  void OnRead(const Site& site, const GmSpan& span);
  // A copy's bytes land: `data` holds them chunk after chunk; GM still holds the old bytes.
  // `atomic`: the store combines with GM under an atomic mode.
  void OnWrite(const Site& site, const GmSpan& span, const uint8_t* data, bool atomic = false);

 private:
  struct Shadow {
    int32_t writer = -1;  // core of the last plain write in this launch, -1: none
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

  GlobalMemory& gm_;
  DiagnosticSink& sink_;
  IntervalMap<Shadow> shadow_;
};

}  // namespace aicore::sim
