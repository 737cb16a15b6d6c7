// MemoryBudget (see memory_budget.h).
#include "src/memory_budget.h"

#include <spdlog/spdlog.h>

#include <string>

namespace aicore::daemon {

MemoryBudget::MemoryBudget(uint64_t total, uint64_t reserved)
    : total_(total), reserved_(reserved < total ? reserved : total) {}

sim::Status MemoryBudget::Take(uint64_t bytes, const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t available = total_ - reserved_ - used_;
  if (bytes > available) {
    return sim::ResourceExhausted(
        what + " does not fit in the daemon's memory budget: " + std::to_string(used_) +
        " bytes are held by all sessions and runs, " + std::to_string(reserved_) +
        " by the program cache, of " + std::to_string(total_) +
        " (--memory-budget); free buffers, close sessions, retry later, or use another daemon");
  }
  used_ += bytes;
  return sim::Status::Ok();
}

void MemoryBudget::Give(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > used_) {
    // Our bug, not a client's: something gave back more than it took. Said loudly, but called
    // from clean-up paths (a session closing, a run ending) that must not fail, so it is not
    // thrown; the budget stays usable at zero.
    spdlog::error(
        "INTERNAL: the memory budget was given back {} bytes while it held {}; the daemon's "
        "accounting is wrong, please report this with the daemon's log",
        bytes, used_);
    used_ = 0;
    return;
  }
  used_ -= bytes;
}

uint64_t MemoryBudget::device_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

}  // namespace aicore::daemon
