// JobPool: the fair simulation queue, the memory executor, admission and the watchdog
// (see job_pool.h).
#include "src/job_pool.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <utility>

namespace aicore::daemon {

JobPool::JobPool(size_t workers, size_t max_queue, size_t max_client_queue)
    : workers_(workers),
      capacity_(workers + max_queue),
      max_client_queue_(max_client_queue),
      simulations_(workers),
      memory_(kMemoryThreads) {
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

JobPool::Ticket::Ticket(Ticket&& other) noexcept
    : pool_(other.pool_), client_(std::move(other.client_)) {
  other.pool_ = nullptr;
}

JobPool::Ticket& JobPool::Ticket::operator=(Ticket&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    client_ = std::move(other.client_);
    other.pool_ = nullptr;
  }
  return *this;
}

JobPool::Ticket::~Ticket() { Release(); }

void JobPool::Ticket::Release() {
  if (pool_ == nullptr) return;
  {
    std::lock_guard<std::mutex> lock(pool_->admit_mutex_);
    --pool_->admitted_;
    auto it = pool_->admitted_by_.find(client_);
    if (--it->second == 0) pool_->admitted_by_.erase(it);
  }
  pool_ = nullptr;
}

JobPool::Ticket JobPool::TryAdmit(const std::string& client, Refusal* why) {
  std::lock_guard<std::mutex> lock(admit_mutex_);
  Refusal refusal = Refusal::kNone;
  auto it = admitted_by_.find(client);
  if (admitted_ >= capacity_) {
    refusal = Refusal::kDaemonFull;
  } else if (it != admitted_by_.end() && it->second >= max_client_queue_) {
    refusal = Refusal::kClientFull;
  }
  if (why != nullptr) *why = refusal;
  if (refusal != Refusal::kNone) return Ticket();
  ++admitted_;
  ++admitted_by_[client];
  return Ticket(this, client);
}

size_t JobPool::admitted() const {
  std::lock_guard<std::mutex> lock(admit_mutex_);
  return admitted_;
}

size_t JobPool::admitted_by(const std::string& client) const {
  std::lock_guard<std::mutex> lock(admit_mutex_);
  auto it = admitted_by_.find(client);
  return it == admitted_by_.end() ? 0 : it->second;
}

void JobPool::JobStarted() {
  std::lock_guard<std::mutex> lock(jobs_mutex_);
  ++outstanding_jobs_;
}

void JobPool::JobEnded() {
  std::lock_guard<std::mutex> lock(jobs_mutex_);
  if (--outstanding_jobs_ == 0) jobs_idle_.notify_all();
}

void JobPool::PostSimulation(const std::string& client, std::function<void()> job) {
  JobStarted();
  simulations_.Post(client, [this, job = std::move(job)]() mutable {
    const auto start = std::chrono::steady_clock::now();
    job();
    job = nullptr;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // Races between workers lose an update at worst; the hint only needs the right magnitude.
    mean_simulation_ms_.store(0.8 * mean_simulation_ms_.load() + 0.2 * ms);
    JobEnded();
  });
}

std::chrono::milliseconds JobPool::SuggestedRetryDelay() const {
  constexpr double kMinMs = 10;
  constexpr double kMaxMs = 5000;
  const double ahead = static_cast<double>(simulations_.queued() + 1);
  const double ms = mean_simulation_ms_.load() * ahead / static_cast<double>(workers_);
  return std::chrono::milliseconds(static_cast<int64_t>(std::clamp(ms, kMinMs, kMaxMs)));
}

void JobPool::PostMemory(std::function<void()> job) {
  JobStarted();
  boost::asio::post(memory_, [this, job = std::move(job)]() mutable {
    job();
    job = nullptr;
    JobEnded();
  });
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

void JobPool::Join() {
  {
    std::unique_lock<std::mutex> lock(jobs_mutex_);
    if (joined_) return;
    jobs_idle_.wait(lock, [this] { return outstanding_jobs_ == 0; });
    joined_ = true;
  }
  simulations_.Stop();
  memory_.join();
}

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
