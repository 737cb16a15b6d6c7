// The daemon-wide memory budget (--memory-budget): device memory of every session and one-shot run
// plus the program cache's bound, so the daemon's memory stays within what its host can give it
// however many sessions are open. The per-session limit (--session-memory-limit) still applies
// on top; this one is what keeps 64 sessions x 1 GiB from meaning 64 GiB.
#pragma once

#include <cstdint>
#include <mutex>

#include "sim/core/status.h"

namespace aicore::daemon {

class MemoryBudget {
 public:
  // `reserved` (the program cache's bound) is taken from `total` for good.
  MemoryBudget(uint64_t total, uint64_t reserved);

  // Takes `bytes` for `what` ("Malloc of 4096 bytes"), or RESOURCE_EXHAUSTED saying how much the
  // daemon holds and what the client can do.
  sim::Status Take(uint64_t bytes, const std::string& what);
  // Gives back what a Take took. More than is held is the daemon's own accounting bug: logged as
  // INTERNAL, and the budget goes to zero rather than wrapping.
  void Give(uint64_t bytes);

  uint64_t total() const { return total_; }
  uint64_t device_bytes() const;  // taken by sessions and runs now

 private:
  const uint64_t total_;
  const uint64_t reserved_;
  mutable std::mutex mu_;
  uint64_t used_ = 0;
};

}  // namespace aicore::daemon
