// Tag state of a die's L2: set-associative, LRU, write-back, 512-byte lines on C220. Only tags
// and dirty bits are kept (data lives in GM); the timing model (sim/mem/gm_path) asks it which
// lines of a transfer hit and what a miss evicts. Deterministic: LRU ages come from a counter
// advanced in event order, and the state starts cold for every launch. The tag arrays of a
// 192 MB L2 take megabytes: they are reused from launch to launch on the same host thread, and a
// set is cleared when a launch first touches it, so a launch pays for the sets it uses only.
//
// A line's set comes from a hash of its index, as sliced last-level caches spread addresses
// (A2's hash is not public: an assumption, docs/timing-model.md 8.3). With `line % sets` a
// contiguous footprint fills every set evenly and stays whole up to the last byte of capacity;
// hashed, the sets fill unevenly, so a footprint near capacity loses some lines to conflicts,
// as Ascend C's L2-split sample expects when it keeps a round under ~100 MiB of a 192 MB L2.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/config.h"

namespace aicore::sim {

class L2Cache {
 public:
  struct Access {
    uint64_t hits = 0;             // lines present
    uint64_t misses = 0;           // lines installed by this access
    uint64_t dirty_evictions = 0;  // dirty lines pushed out (HBM writebacks)
  };

  L2Cache(uint64_t capacity_bytes, uint32_t line_bytes, uint32_t ways);
  ~L2Cache();
  L2Cache(const L2Cache&) = delete;
  L2Cache& operator=(const L2Cache&) = delete;

  // Looks up every line of [addr, addr + bytes) and installs the missing ones; `write` marks
  // them dirty. A line shared by two chunks of a strided copy is looked up twice and counts as
  // a hit the second time, as the second request would on the chip.
  void Touch(uint64_t addr, uint64_t bytes, bool write, Access* out);
  // Touch of `chunks` pieces of `chunk` bytes, `pitch` bytes apart from `addr`, in turn (a
  // strided copy's rows): the same lookups in the same order, the set of a run hashed once for
  // all the pieces that fall in it.
  void TouchStrided(uint64_t addr, uint64_t chunk, uint64_t pitch, uint64_t chunks, bool write,
                    Access* out);

  uint32_t line_bytes() const { return line_bytes_; }
  // The set that line index `line` (address / line_bytes) maps to.
  uint64_t SetOf(uint64_t line) const;

  static constexpr uint64_t kRunLines = 64;  // lines hashed together (32 KiB of 512 B lines)

 private:
  // `set` is SetOf(line).
  void TouchLine(uint64_t line, uint64_t set, bool write, Access* out);

  // The set of `line`, from the hashed start of its run when the run is `run` (else hashed).
  uint64_t SetIn(uint64_t line, uint64_t& run, uint64_t& run_set) const {
    if (line / kRunLines != run) {
      run = line / kRunLines;
      run_set = SetOf(run * kRunLines);
    }
    const uint64_t set = run_set + line % kRunLines;
    return set < sets_ ? set : set % sets_;
  }

  uint64_t sets_;
  uint32_t line_bytes_;
  uint32_t ways_;
  uint64_t clock_ = 0;

 public:
  // One way of a set. A set's ways sit side by side, so a lookup reads one contiguous block
  // (16 ways: 256 bytes) instead of three arrays megabytes apart.
  struct Way {
    uint64_t tag = 0;  // line index + 1, with kDirty; 0 = invalid
    uint64_t age = 0;  // last use, from clock_
  };
  static constexpr uint64_t kDirty = 1ull << 63;  // line indices stay far below it

  // The tag array of one L2, reusable by the next L2 of the same shape on this thread.
  struct Store {
    std::vector<Way> ways;            // set s holds ways [s * ways_, (s + 1) * ways_)
    std::vector<uint64_t> set_epoch;  // the epoch whose L2 last cleared the set
    uint64_t epoch = 0;               // of the L2 using the store
  };

 private:
  // Taken at the first access: a launch that never touches GM pays nothing.
  Store* store_ = nullptr;
};

}  // namespace aicore::sim
