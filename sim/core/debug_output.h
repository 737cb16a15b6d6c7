// Collects a launch's device output (printf, dump_tensor, print_time_stamp) within the chip's
// per-core dump space and a per-launch bound, so no kernel can make a report grow without limit:
// what does not fit is dropped and one note per core says how much.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/launch_result.h"

namespace aicore::sim {

class DebugSink {
 public:
  DebugSink(uint64_t bytes_per_core, uint64_t bytes_per_launch)
      : per_core_(bytes_per_core), per_launch_(bytes_per_launch) {}

  // Keeps `r` if its text fits in what is left of its core's and the launch's space; otherwise
  // counts it as dropped. Returns false when it was dropped.
  bool Add(DebugRecord r);
  // Bytes core `core` may still add (what a formatter needs to produce at most).
  uint64_t Room(uint32_t core) const;
  // The records ordered by core, then cycle, then emission order, each dropping core's note
  // after its last record. Leaves the sink empty.
  std::vector<DebugRecord> Take();

 private:
  struct CoreUse {
    uint64_t bytes = 0;
    uint64_t dropped_records = 0;
    uint64_t dropped_bytes = 0;
    DebugRecord first_dropped;  // where the note points
  };

  uint64_t per_core_;
  uint64_t per_launch_;
  uint64_t total_ = 0;
  std::vector<DebugRecord> records_;
  std::vector<CoreUse> use_;  // by core
};

}  // namespace aicore::sim
