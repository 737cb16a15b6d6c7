// Session bookkeeping (see session_manager.h). Devices of closed or expired sessions are
// destroyed outside the map lock, so freeing a large GM never stalls other clients.
#include "src/session_manager.h"

#include <random>

#include "sim/bridge/bridge.h"

namespace aicore::daemon {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::string ShortId(const std::string& id) { return id.substr(0, 8); }

Session::Session(std::string id, std::string client_name, std::string owner, sim::SocConfig config,
                 std::shared_ptr<SessionLane> lane, MemoryBudget* budget)
    : id_(std::move(id)),
      client_name_(std::move(client_name)),
      owner_(std::move(owner)),
      host_(std::move(config)),
      lane_(std::move(lane)),
      budget_(budget),
      last_used_ns_(NowNs()) {}

Session::~Session() { budget_->Give(host_.device().bytes_allocated()); }

sim::StatusOr<uint64_t> Session::Malloc(uint64_t bytes) {
  sim::Device& device = host_.device();
  if (sim::Status s = budget_->Take(bytes, "a Malloc of " + std::to_string(bytes) + " bytes");
      !s.ok()) {
    return s;
  }
  const uint64_t before = device.bytes_allocated();
  auto address = device.Malloc(bytes);
  const uint64_t taken = device.bytes_allocated() - before;
  // The budget holds what the device really took: nothing on failure, more if it rounded up.
  if (taken <= bytes) {
    budget_->Give(bytes - taken);
  } else if (sim::Status s = budget_->Take(taken - bytes, "a Malloc"); !s.ok()) {
    budget_->Give(bytes);
    (void)device.Free(*address);
    return s;
  }
  return address;
}

sim::Status Session::Free(uint64_t address) {
  sim::Device& device = host_.device();
  const uint64_t before = device.bytes_allocated();
  sim::Status status = device.Free(address);
  const uint64_t after = device.bytes_allocated();
  if (before > after) budget_->Give(before - after);
  return status;
}

std::chrono::steady_clock::duration Session::IdleFor(
    std::chrono::steady_clock::time_point now) const {
  auto now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  return std::chrono::nanoseconds(now_ns - last_used_ns_.load());
}

SessionUse::SessionUse(std::shared_ptr<Session> session) : session_(std::move(session)) {
  if (session_) session_->users_.fetch_add(1);
}

SessionUse& SessionUse::operator=(SessionUse&& other) noexcept {
  if (this != &other) {
    Release();
    session_ = std::move(other.session_);
  }
  return *this;
}

SessionUse::~SessionUse() { Release(); }

void SessionUse::Release() {
  if (!session_) return;
  session_->last_used_ns_.store(NowNs());
  session_->users_.fetch_sub(1);
  session_.reset();
}

SessionManager::SessionManager(JobPool* pool, MemoryBudget* budget, uint32_t max_sessions,
                               std::chrono::seconds idle_timeout)
    : pool_(pool), budget_(budget), max_sessions_(max_sessions), idle_timeout_(idle_timeout) {}

SessionManager::RunSlot::~RunSlot() {
  if (manager_ == nullptr) return;
  std::lock_guard<std::mutex> lock(manager_->mu_);
  --manager_->reserved_;
}

sim::Status SessionManager::CapacityError() const {
  return sim::ResourceExhausted(
      "the daemon is at its limit of " + std::to_string(max_sessions_) +
      " sessions and one-shot runs (--max-sessions); close unused sessions, retry later, or use "
      "another daemon");
}

std::string SessionManager::NewSessionId() {
  // std::random_device reads the kernel's CSPRNG on Linux: ids cannot be guessed from others.
  std::random_device random;
  static const char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 4; ++i) {
    uint32_t word = random();
    for (int nibble = 0; nibble < 8; ++nibble) {
      id.push_back(kHex[word & 0xf]);
      word >>= 4;
    }
  }
  return id;
}

sim::StatusOr<std::shared_ptr<Session>> SessionManager::Create(
    const std::string& platform, const std::string& client_name, const std::string& owner,
    const std::string& config_overrides) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (sessions_.size() + reserved_ >= max_sessions_) return CapacityError();
    ++reserved_;
  }
  RunSlot reservation(this);  // gives the slot back however we leave

  auto config = sim::LoadSocConfig(platform, config_overrides);
  if (!config.ok()) return config.status();
  std::string id = NewSessionId();
  auto lane = SessionLane::Create(pool_, id);
  auto session = std::make_shared<Session>(std::move(id), client_name, owner, std::move(*config),
                                           std::move(lane), budget_);
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.emplace(session->id(), session);
  return session;
}

sim::StatusOr<SessionUse> SessionManager::Acquire(const std::string& id, const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->owner() != owner) {
    return sim::NotFound("unknown session '" + ShortId(id) +
                         "...': never created, closed, or expired after " +
                         std::to_string(idle_timeout_.count()) + " s idle");
  }
  return SessionUse(it->second);
}

sim::Status SessionManager::Close(const std::string& id, const std::string& owner) {
  std::shared_ptr<Session> doomed;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second->owner() != owner) {
    return sim::NotFound("unknown session '" + ShortId(id) +
                         "...': never created or already closed");
  }
  doomed = std::move(it->second);
  sessions_.erase(it);
  return sim::Status::Ok();
}

sim::StatusOr<SessionManager::RunSlot> SessionManager::ReserveRunSlot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (sessions_.size() + reserved_ >= max_sessions_) return CapacityError();
  ++reserved_;
  return RunSlot(this);
}

std::vector<std::string> SessionManager::ExpireIdle() {
  std::vector<std::shared_ptr<Session>> doomed;
  std::vector<std::string> ids;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = sessions_.begin(); it != sessions_.end();) {
      if (it->second->users() == 0 && it->second->IdleFor(now) > idle_timeout_) {
        ids.push_back(it->first);
        doomed.push_back(std::move(it->second));
        it = sessions_.erase(it);
      } else {
        ++it;
      }
    }
  }
  return ids;
}

size_t SessionManager::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

}  // namespace aicore::daemon
