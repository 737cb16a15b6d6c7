// FairQueue (see fair_queue.h): one mutex, one condition variable, a ring of clients.
#include "src/fair_queue.h"

#include <utility>

namespace aicore::daemon {

FairQueue::FairQueue(size_t workers) {
  for (size_t i = 0; i < workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

FairQueue::~FairQueue() { Stop(); }

void FairQueue::Post(const std::string& client, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& jobs = pending_[client];
    if (jobs.empty()) turns_.push_back(client);
    jobs.push_back(std::move(job));
    ++queued_;
  }
  wake_.notify_one();
}

size_t FairQueue::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

size_t FairQueue::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_;
}

void FairQueue::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

void FairQueue::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !turns_.empty(); });
    if (turns_.empty()) return;  // stopping and nothing left
    std::string client = std::move(turns_.front());
    turns_.pop_front();
    auto it = pending_.find(client);
    std::function<void()> job = std::move(it->second.front());
    it->second.pop_front();
    if (it->second.empty()) {
      pending_.erase(it);
    } else {
      turns_.push_back(std::move(client));  // its next job waits for the other clients' turns
    }
    --queued_;
    ++running_;
    lock.unlock();
    job();
    job = nullptr;  // what the job captured dies outside the lock, too
    lock.lock();
    --running_;
  }
}

}  // namespace aicore::daemon
