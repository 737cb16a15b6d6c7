// HBM bandwidth shared by every core's MTE traffic. Transfers are granted in event order as a
// first-come-first-served server at the configured bytes/cycle, so contention between cores is
// deterministic and costs one arithmetic step per transfer instead of per-cycle arbitration.
#pragma once

#include <algorithm>
#include <cstdint>

namespace aicore::sim {

class HbmArbiter {
 public:
  explicit HbmArbiter(double bytes_per_cycle) : bytes_per_cycle_(bytes_per_cycle) {}

  // A transfer of `bytes` that can begin at `earliest` (fractional cycles); returns the time its
  // last byte has passed HBM.
  double Grant(double earliest, uint64_t bytes) {
    double start = std::max(earliest, free_at_);
    free_at_ = start + static_cast<double>(bytes) / bytes_per_cycle_;
    return free_at_;
  }
  void Reset() { free_at_ = 0; }

 private:
  double bytes_per_cycle_;
  double free_at_ = 0;
};

}  // namespace aicore::sim
