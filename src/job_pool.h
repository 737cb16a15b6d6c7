// The bounded pool that runs simulations (and the session operations serialized with them).
// Admission control counts launches and one-shot runs from acceptance to completion; past
// workers + max_queue of them new ones are refused, so a burst cannot queue unbounded work.
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <cstddef>

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

 private:
  const size_t workers_;
  const size_t capacity_;
  boost::asio::thread_pool pool_;
  std::atomic<size_t> admitted_{0};
  std::atomic<int64_t> shutdown_deadline_ns_{INT64_MAX};
};

}  // namespace aicore::daemon
