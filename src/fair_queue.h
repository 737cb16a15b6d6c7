// The simulation workers: a fixed set of threads that take jobs from per-client queues in
// round-robin order, so one client's flood of queued launches delays another client's single
// launch by at most one job per other client, never by the whole flood.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace aicore::daemon {

class FairQueue {
 public:
  explicit FairQueue(size_t workers);
  ~FairQueue();  // Stop()
  FairQueue(const FairQueue&) = delete;
  FairQueue& operator=(const FairQueue&) = delete;

  // Queues `job` behind the earlier jobs of `client`; clients take turns for the workers.
  void Post(const std::string& client, std::function<void()> job);

  // Jobs executing now / waiting for a worker.
  size_t running() const;
  size_t queued() const;

  // Lets the workers finish what is queued, then ends them. Posting after Stop is a bug.
  void Stop();

 private:
  void WorkerLoop();

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::unordered_map<std::string, std::deque<std::function<void()>>> pending_;
  std::deque<std::string> turns_;  // clients with pending jobs, each once, next first
  size_t queued_ = 0;
  size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace aicore::daemon
