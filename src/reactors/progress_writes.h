// The write side of a streaming reactor that sends progress while a launch runs, then its
// answer. gRPC allows one write in flight per call; progress is offered from the watchdog thread
// and the answer from the job, so the two meet here. Progress is lossy: a tick that finds a write
// in flight is skipped (the next one carries fresher numbers). The answer waits for the progress
// write in flight, if any, to complete.
#pragma once

#include <functional>
#include <mutex>
#include <utility>

namespace aicore::daemon {

class ProgressWrites {
 public:
  // From the watchdog: true when the caller may start a progress write now (and must).
  bool TryBegin() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closed_ || in_flight_) return false;
    in_flight_ = true;
    return true;
  }

  // From OnWriteDone: true when the write that completed was a progress write, and then `*next`
  // holds what Close deferred meanwhile (empty if the launch still runs). False: the write was
  // one of the reactor's own.
  bool Complete(std::function<void()>* next) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!in_flight_) return false;
    in_flight_ = false;
    *next = std::move(after_close_);
    after_close_ = nullptr;
    return true;
  }

  // From the job, once the launch has ended: no more progress; `then` (which writes or finishes
  // the answer) runs now when no progress write is in flight, else when it completes.
  void Close(std::function<void()> then) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
      if (in_flight_) {
        after_close_ = std::move(then);
        return;
      }
    }
    then();
  }

 private:
  std::mutex mutex_;
  bool in_flight_ = false;
  bool closed_ = false;
  std::function<void()> after_close_;
};

}  // namespace aicore::daemon
