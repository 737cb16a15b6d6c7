// Where the daemon's work runs. Simulations run on `workers` threads that serve clients in turn
// (FairQueue); memory calls, copies and Synchronize run on their own small executor, so they never
// wait behind another session's simulation. Admission control counts launches and one-shot runs
// from acceptance to completion: past workers + max_queue of them, or past max_client_queue of
// one client, new ones are refused, so a burst cannot queue unbounded work nor crowd others out.
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "src/fair_queue.h"

namespace aicore::daemon {

class JobPool {
 public:
  // Memory calls are short copies: two threads keep one big copy from delaying every other one.
  static constexpr size_t kMemoryThreads = 2;

  JobPool(size_t workers, size_t max_queue, size_t max_client_queue);
  ~JobPool();

  // A slot of admitted work, released when destroyed (i.e. when the job is done).
  class Ticket {
   public:
    Ticket() = default;
    Ticket(Ticket&& other) noexcept;
    Ticket& operator=(Ticket&& other) noexcept;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    ~Ticket();
    explicit operator bool() const { return pool_ != nullptr; }

   private:
    friend class JobPool;
    Ticket(JobPool* pool, std::string client) : pool_(pool), client_(std::move(client)) {}
    void Release();
    JobPool* pool_ = nullptr;
    std::string client_;
  };

  enum class Refusal { kNone, kDaemonFull, kClientFull };
  // An empty ticket when the daemon, or this client's share of it, is full; `why` says which.
  // `client` is a session id, or the identity of a one-shot run's caller.
  Ticket TryAdmit(const std::string& client, Refusal* why = nullptr);

  // A simulation job, queued behind `client`'s earlier ones; clients take turns for workers.
  void PostSimulation(const std::string& client, std::function<void()> job);
  // A memory call, copy or Synchronize: runs at once on the memory executor.
  void PostMemory(std::function<void()> job);

  size_t workers() const { return workers_; }
  size_t capacity() const { return capacity_; }
  size_t max_client_queue() const { return max_client_queue_; }
  size_t admitted() const;
  size_t admitted_by(const std::string& client) const;
  size_t simulations_running() const { return simulations_.running(); }
  size_t simulations_queued() const { return simulations_.queued(); }

  // What a refused client is told to wait before it retries: about the time until a worker takes
  // its turn, from the recent simulations' wall times and the queue ahead.
  std::chrono::milliseconds SuggestedRetryDelay() const;

  // Shutdown: jobs that have not started by `deadline` are failed instead of run.
  void SetShutdownDeadline(std::chrono::steady_clock::time_point deadline);
  bool PastShutdownDeadline() const;

  // Waits for every posted job to finish (jobs may post more: a session's next call), then stops
  // the threads.
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

  // Every job counts from Post until it has run, so Join knows when nothing can post again.
  void JobStarted();
  void JobEnded();

  const size_t workers_;
  const size_t capacity_;
  const size_t max_client_queue_;
  FairQueue simulations_;
  boost::asio::thread_pool memory_;

  mutable std::mutex admit_mutex_;
  size_t admitted_ = 0;
  std::unordered_map<std::string, size_t> admitted_by_;  // clients with admitted work only

  std::mutex jobs_mutex_;
  std::condition_variable jobs_idle_;
  size_t outstanding_jobs_ = 0;
  bool joined_ = false;

  std::atomic<int64_t> shutdown_deadline_ns_{INT64_MAX};
  std::atomic<double> mean_simulation_ms_{50.0};  // moving average of the recent simulations
};

}  // namespace aicore::daemon
