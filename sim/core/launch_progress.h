// How far a running launch has got, for a host that shows progress (the daemon streams it; see
// docs/daemon.md "Progress"). The launch engine publishes a snapshot every few thousand events
// and once when the launch stops; any thread may read the latest one while the launch runs.
// Publishing copies a few words per core and never changes what the launch computes.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace aicore::sim {

struct CoreProgress {
  enum class State : uint8_t { kIdle, kRunning, kFinished };
  bool cube = false;           // an AIC core; false: AIV
  State state = State::kIdle;  // kIdle: no block assigned yet, or none at all
  uint32_t block = 0;          // the block running (kRunning) or last run
  uint32_t blocks_done = 0;
  uint32_t blocks_assigned = 0;
};

struct ProgressSnapshot {
  uint64_t cycle = 0;   // the simulated cycle reached
  uint64_t events = 0;  // events processed so far
  uint32_t block_dim = 0;
  uint32_t blocks_done = 0;  // summed over the cores
  bool stopped = false;      // the last snapshot of the launch (finished, faulted or cancelled)
  std::vector<CoreProgress> cores;
};

class LaunchProgress {
 public:
  void Publish(const ProgressSnapshot& snapshot) {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot_ = snapshot;
    ++publications_;
  }
  // The latest snapshot; `publications` (if given) counts how many were published so far, so a
  // reader can tell a fresh one from the one it already saw.
  ProgressSnapshot Read(uint64_t* publications = nullptr) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (publications != nullptr) *publications = publications_;
    return snapshot_;
  }

 private:
  mutable std::mutex mutex_;
  ProgressSnapshot snapshot_;
  uint64_t publications_ = 0;
};

}  // namespace aicore::sim
