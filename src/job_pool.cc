// JobPool: a Boost.Asio thread_pool plus an admission counter (see job_pool.h).
#include "src/job_pool.h"

namespace aicore::daemon {

JobPool::JobPool(size_t workers, size_t max_queue)
    : workers_(workers), capacity_(workers + max_queue), pool_(workers) {
  watchdog_ = std::thread([this] { WatchLoop(); });
}

JobPool::~JobPool() {
  Join();
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    watch_stop_ = true;
  }
  watch_cv_.notify_all();
  watchdog_.join();
}

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

std::unique_ptr<JobPool::Watch> JobPool::StartWatch(std::function<int()> probe) {
  auto job = std::make_shared<Watch::Job>();
  job->probe = std::move(probe);
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    watched_.push_back(job);
  }
  watch_cv_.notify_all();  // the watchdog sleeps without a timeout while nothing is watched
  return std::unique_ptr<Watch>(new Watch(this, std::move(job)));
}

JobPool::Watch::~Watch() {
  std::lock_guard<std::mutex> lock(pool_->watch_mutex_);
  auto& jobs = pool_->watched_;
  for (auto it = jobs.begin(); it != jobs.end(); ++it) {
    if (it->get() == job_.get()) {
      jobs.erase(it);
      break;
    }
  }
}

void JobPool::WatchLoop() {
  std::unique_lock<std::mutex> lock(watch_mutex_);
  while (!watch_stop_) {
    if (watched_.empty()) {
      watch_cv_.wait(lock, [this] { return watch_stop_ || !watched_.empty(); });
      continue;
    }
    for (const auto& job : watched_) {
      if (job->cancel.load()) continue;
      if (const int reason = job->probe(); reason != 0) {
        job->reason.store(reason);
        job->cancel.store(true);
      }
    }
    watch_cv_.wait_for(lock, kWatchPeriod, [this] { return watch_stop_; });
  }
}

}  // namespace aicore::daemon
