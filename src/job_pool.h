// The bounded pool that runs simulations (and the session operations serialized with them).
// Admission control counts launches and one-shot runs from acceptance to completion; past
// workers + max_queue of them new ones are refused, so a burst cannot queue unbounded work.
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace aicore::daemon {

class JobPool {
 public:
  using Executor = boost::asio::thread_pool::executor_type;

  JobPool(size_t workers, size_t max_queue);
  ~JobPool();

  // A slot of admitted work, released when destroyed (i.e. when the job is done).
  class Ticket {
   public:
    Ticket() = default;
    explicit Ticket(JobPool* pool) : pool_(pool) {}
    Ticket(Ticket&& other) noexcept : pool_(other.pool_) { other.pool_ = nullptr; }
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket();
    explicit operator bool() const { return pool_ != nullptr; }

   private:
    JobPool* pool_ = nullptr;
  };

  // Empty ticket when the pool is full.
  Ticket TryAdmit();

  Executor executor() { return pool_.get_executor(); }
  size_t workers() const { return workers_; }
  size_t capacity() const { return capacity_; }
  size_t admitted() const { return admitted_.load(); }

  // Shutdown: jobs that have not started by `deadline` are failed instead of run.
  void SetShutdownDeadline(std::chrono::steady_clock::time_point deadline);
  bool PastShutdownDeadline() const;

  // Waits for every posted job to finish.
  void Join();

  // The shared watchdog of running simulations: one thread for the whole pool (not one per job)
  // that, while any job is registered, calls each job's probe every kWatchPeriod. The first
  // non-zero answer is stored as the job's reason and raises its cancel flag, which the
  // simulator polls (sim::LaunchOptions::cancel). Registration ends when the Watch is destroyed;
  // after that the probe is never called again, so it may capture objects that die with the job.
  static constexpr std::chrono::milliseconds kWatchPeriod{10};

  class Watch {
   public:
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;
    ~Watch();
    const std::atomic<bool>* cancel_flag() const { return &job_->cancel; }
    bool cancelled() const { return job_->cancel.load(); }
    int reason() const { return job_->reason.load(); }  // 0 until cancelled

   private:
    friend class JobPool;
    struct Job {
      std::function<int()> probe;
      std::atomic<bool> cancel{false};
      std::atomic<int> reason{0};
    };
    Watch(JobPool* pool, std::shared_ptr<Job> job) : pool_(pool), job_(std::move(job)) {}
    JobPool* pool_;
    std::shared_ptr<Job> job_;
  };

  // `probe` runs on the watchdog thread (under its lock: keep it cheap and non-blocking) and
  // returns 0 to let the job run, or a caller-defined non-zero reason to cancel it.
  std::unique_ptr<Watch> StartWatch(std::function<int()> probe);

 private:
  void WatchLoop();

  mutable std::mutex watch_mutex_;
  std::condition_variable watch_cv_;
  std::vector<std::shared_ptr<Watch::Job>> watched_;
  bool watch_stop_ = false;
  std::thread watchdog_;

  const size_t workers_;
  const size_t capacity_;
  boost::asio::thread_pool pool_;
  std::atomic<size_t> admitted_{0};
  std::atomic<int64_t> shutdown_deadline_ns_{INT64_MAX};
};

}  // namespace aicore::daemon
