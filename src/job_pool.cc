// JobPool: a Boost.Asio thread_pool plus an admission counter (see job_pool.h).
#include "src/job_pool.h"

namespace aicore::daemon {

JobPool::JobPool(size_t workers, size_t max_queue)
    : workers_(workers), capacity_(workers + max_queue), pool_(workers) {}

JobPool::~JobPool() { Join(); }

JobPool::Ticket& JobPool::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    if (pool_ != nullptr) pool_->admitted_.fetch_sub(1);
    pool_ = other.pool_;
    other.pool_ = nullptr;
  }
  return *this;
}

JobPool::Ticket::~Ticket() {
  if (pool_ != nullptr) pool_->admitted_.fetch_sub(1);
}

JobPool::Ticket JobPool::TryAdmit() {
  size_t current = admitted_.load();
  while (current < capacity_) {
    if (admitted_.compare_exchange_weak(current, current + 1)) return Ticket(this);
  }
  return Ticket();
}

void JobPool::SetShutdownDeadline(std::chrono::steady_clock::time_point deadline) {
  shutdown_deadline_ns_.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count());
}

bool JobPool::PastShutdownDeadline() const {
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::steady_clock::now().time_since_epoch())
                 .count();
  return now >= shutdown_deadline_ns_.load();
}

void JobPool::Join() { pool_.join(); }

}  // namespace aicore::daemon
