// A shared bandwidth channel (an HBM read or write channel, the L2): transfers are granted in
// event order as a first-come-first-served server at the configured bytes/cycle, so contention
// between cores is deterministic and costs one arithmetic step per transfer instead of
// per-cycle arbitration.
#pragma once

#include <algorithm>
#include <cstdint>

namespace aicore::sim {

class BandwidthChannel {
 public:
  // `per_transfer_cycles` is occupancy every transfer adds on top of bytes / bytes_per_cycle.
  explicit BandwidthChannel(double bytes_per_cycle, double per_transfer_cycles = 0)
      : bytes_per_cycle_(bytes_per_cycle), per_transfer_cycles_(per_transfer_cycles) {}

  // A transfer of `bytes` (already scaled by any efficiency loss) that can begin at `earliest`
  // (fractional cycles); returns the time its last byte has passed the channel. Requests arrive
  // in non-decreasing time (event order), so an idle gap before `earliest` is simply lost.
  double Grant(double earliest, double bytes) {
    double start = std::max(earliest, free_at_);
    free_at_ = start + bytes / bytes_per_cycle_ + per_transfer_cycles_;
    return free_at_;
  }
  double free_at() const { return free_at_; }
  void Reset() { free_at_ = 0; }

 private:
  double bytes_per_cycle_;
  double per_transfer_cycles_;
  double free_at_ = 0;
};

}  // namespace aicore::sim
