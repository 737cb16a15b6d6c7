// Sessions of the daemon: each owns one sim::DeviceHost (its GM and allocations) and a lane
// (session_lane.h), so everything that touches that Device (memory copies, launches) runs one at a
// time and in arrival order without blocking any gRPC thread. Ids are 128 random bits; a session is
// reachable only by its id, so one client can never touch another's memory.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/status.h"
#include "sim/host/device_host.h"
#include "src/job_pool.h"
#include "src/memory_budget.h"
#include "src/session_lane.h"

namespace aicore::daemon {

class Session {
 public:
  Session(std::string id, std::string client_name, std::string owner, sim::SocConfig config,
          std::shared_ptr<SessionLane> lane, MemoryBudget* budget);
  ~Session();  // gives the device memory it still holds back to the daemon's budget
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& id() const { return id_; }
  const std::string& client_name() const { return client_name_; }
  const std::string& owner() const { return owner_; }  // the identity that opened it
  const sim::SocConfig& config() const { return host_.config(); }
  SessionLane& lane() { return *lane_; }
  // Only from jobs running on lane(): the Device is not thread-safe.
  sim::DeviceHost& host() { return host_; }
  sim::Device& device() { return host_.device(); }

  // Only from jobs running on lane(): Malloc and Free through the daemon's memory budget.
  sim::StatusOr<uint64_t> Malloc(uint64_t bytes);
  sim::Status Free(uint64_t address);

  // Only from jobs running on lane(): trace bytes its launches wrote (--trace-quota).
  uint64_t& trace_bytes() { return trace_bytes_; }

  int users() const { return users_.load(); }
  std::chrono::steady_clock::duration IdleFor(std::chrono::steady_clock::time_point now) const;

 private:
  friend class SessionUse;
  const std::string id_;
  const std::string client_name_;
  const std::string owner_;
  sim::DeviceHost host_;
  std::shared_ptr<SessionLane> lane_;
  MemoryBudget* const budget_;
  uint64_t trace_bytes_ = 0;
  std::atomic<int> users_{0};
  std::atomic<int64_t> last_used_ns_;
};

// Marks a session in use (it cannot expire) for as long as the guard lives; refreshes its idle
// clock when released.
class SessionUse {
 public:
  SessionUse() = default;
  explicit SessionUse(std::shared_ptr<Session> session);
  SessionUse(SessionUse&& other) noexcept = default;
  SessionUse& operator=(SessionUse&& other) noexcept;
  SessionUse(const SessionUse&) = delete;
  SessionUse& operator=(const SessionUse&) = delete;
  ~SessionUse();

  Session* operator->() const { return session_.get(); }
  Session& operator*() const { return *session_; }
  explicit operator bool() const { return session_ != nullptr; }

 private:
  void Release();
  std::shared_ptr<Session> session_;
};

class SessionManager {
 public:
  SessionManager(JobPool* pool, MemoryBudget* budget, uint32_t max_sessions,
                 std::chrono::seconds idle_timeout);

  // A one-shot Run holds one of the max_sessions slots while it exists.
  class RunSlot {
   public:
    RunSlot() = default;
    explicit RunSlot(SessionManager* manager) : manager_(manager) {}
    RunSlot(RunSlot&& other) noexcept : manager_(other.manager_) { other.manager_ = nullptr; }
    RunSlot& operator=(RunSlot&&) = delete;
    RunSlot(const RunSlot&) = delete;
    ~RunSlot();

   private:
    SessionManager* manager_ = nullptr;
  };

  // `config_overrides`: the session's figures over the platform's (CreateSessionRequest).
  sim::StatusOr<std::shared_ptr<Session>> Create(const std::string& platform,
                                                 const std::string& client_name,
                                                 const std::string& owner,
                                                 const std::string& config_overrides = "");
  // NOT_FOUND for an unknown id and for another owner's session alike.
  sim::StatusOr<SessionUse> Acquire(const std::string& id, const std::string& owner);
  sim::Status Close(const std::string& id, const std::string& owner);
  sim::StatusOr<RunSlot> ReserveRunSlot();

  // Closes sessions idle longer than the timeout and not in use; returns their ids.
  std::vector<std::string> ExpireIdle();
  size_t size() const;

 private:
  sim::Status CapacityError() const;  // called with mu_ held
  static std::string NewSessionId();

  JobPool* const pool_;
  MemoryBudget* const budget_;
  const uint32_t max_sessions_;
  const std::chrono::seconds idle_timeout_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Session>> sessions_;
  uint32_t reserved_ = 0;  // sessions being created plus one-shot runs
};

// For logs: enough of an id to correlate lines, never the whole secret.
std::string ShortId(const std::string& id);

}  // namespace aicore::daemon
