// SessionLane (see session_lane.h): at most one job of a lane is in the pool at a time; the next
// is handed over when it finishes.
#include "src/session_lane.h"

#include <utility>

namespace aicore::daemon {

std::shared_ptr<SessionLane> SessionLane::Create(JobPool* pool, std::string client) {
  return std::shared_ptr<SessionLane>(new SessionLane(pool, std::move(client)));
}

void SessionLane::Post(Work work, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_) {
      waiting_.push_back({work, std::move(job)});
      return;
    }
    busy_ = true;
  }
  Dispatch({work, std::move(job)});
}

void SessionLane::Dispatch(Pending next) {
  // The lane outlives its session while a job of it is in flight.
  auto run = [self = shared_from_this(), job = std::move(next.job)]() mutable {
    job();
    job = nullptr;
    self->Finished();
  };
  if (next.work == Work::kSimulation) {
    pool_->PostSimulation(client_, std::move(run));
  } else {
    pool_->PostMemory(std::move(run));
  }
}

void SessionLane::Finished() {
  Pending next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waiting_.empty()) {
      busy_ = false;
      return;
    }
    next = std::move(waiting_.front());
    waiting_.pop_front();
  }
  Dispatch(std::move(next));
}

}  // namespace aicore::daemon
