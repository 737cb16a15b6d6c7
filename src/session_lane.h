// The order of one session's work. A session's calls (memory calls, copies, launches,
// Synchronize) run one at a time in arrival order, because its Device is not thread-safe and a
// client expects a copy after a launch to see the launch's results. Each call runs where its kind
// belongs: simulations on the fair simulation workers, everything else on the memory executor,
// so an idle session's Malloc never waits behind other sessions' launches.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "src/job_pool.h"

namespace aicore::daemon {

class SessionLane : public std::enable_shared_from_this<SessionLane> {
 public:
  enum class Work { kMemory, kSimulation };

  // `client` names the session to the fair queue (its id).
  static std::shared_ptr<SessionLane> Create(JobPool* pool, std::string client);

  // Runs `job` after every earlier job of this lane has finished.
  void Post(Work work, std::function<void()> job);

 private:
  SessionLane(JobPool* pool, std::string client) : pool_(pool), client_(std::move(client)) {}
  struct Pending {
    Work work;
    std::function<void()> job;
  };
  void Dispatch(Pending next);
  void Finished();

  JobPool* const pool_;
  const std::string client_;
  std::mutex mu_;
  std::deque<Pending> waiting_;
  bool busy_ = false;  // a job of this lane is queued in the pool or running
};

}  // namespace aicore::daemon
