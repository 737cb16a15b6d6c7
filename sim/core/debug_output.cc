// Bounded device output (see debug_output.h).
#include "sim/core/debug_output.h"

#include <algorithm>
#include <utility>

namespace aicore::sim {

bool DebugSink::Add(DebugRecord r) {
  if (use_.size() <= r.core) use_.resize(r.core + 1);
  CoreUse& use = use_[r.core];
  uint64_t bytes = r.text.size();
  if (use.dropped_records == 0 && use.bytes + bytes <= per_core_ && total_ + bytes <= per_launch_) {
    use.bytes += bytes;
    total_ += bytes;
    records_.push_back(std::move(r));
    return true;
  }
  // Once a core has overflowed it stays silent, as the chip's dump space stays full.
  if (use.dropped_records++ == 0) use.first_dropped = r;
  use.dropped_bytes += bytes;
  return false;
}

uint64_t DebugSink::Room(uint32_t core) const {
  uint64_t used = core < use_.size() ? use_[core].bytes : 0;
  if (core < use_.size() && use_[core].dropped_records != 0) return 0;
  uint64_t core_room = per_core_ > used ? per_core_ - used : 0;
  uint64_t launch_room = per_launch_ > total_ ? per_launch_ - total_ : 0;
  return core_room < launch_room ? core_room : launch_room;
}

std::vector<DebugRecord> DebugSink::Take() {
  for (uint32_t core = 0; core < use_.size(); ++core) {
    const CoreUse& use = use_[core];
    if (use.dropped_records == 0) continue;
    DebugRecord note = use.first_dropped;
    note.kind = DebugRecord::Kind::kTruncated;
    bool launch_full = total_ + use.dropped_bytes > per_launch_;
    note.text = "[aicore-sim] core " + std::to_string(core) + ": debug output truncated at " +
                note.location.file + ":" + std::to_string(note.location.line) + ": " +
                std::to_string(use.dropped_records) + " more record(s), " +
                std::to_string(use.dropped_bytes) + " bytes dropped (limit " +
                (launch_full && use.bytes + use.dropped_bytes <= per_core_
                     ? std::to_string(per_launch_) + " bytes per launch"
                     : std::to_string(per_core_) + " bytes per core, the chip's dump space") +
                ")\n";
    note.cycle = ~uint64_t{0};  // after the core's last kept record
    records_.push_back(std::move(note));
  }
  // Stable: records of one core at one cycle keep the order the core produced them in.
  std::stable_sort(records_.begin(), records_.end(),
                   [](const DebugRecord& a, const DebugRecord& b) {
                     return a.core != b.core ? a.core < b.core : a.cycle < b.cycle;
                   });
  for (DebugRecord& r : records_) {
    if (r.kind == DebugRecord::Kind::kTruncated) r.cycle = use_[r.core].first_dropped.cycle;
  }
  use_.clear();
  total_ = 0;
  return std::move(records_);
}

}  // namespace aicore::sim
