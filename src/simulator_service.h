// The aicore.service.v1.Simulator service on gRPC's callback API. Handlers never simulate on a
// gRPC thread: work that touches a session's Device runs in order on that session's lane
// (session_lane.h), one-shot runs on the fair simulation workers, so gRPC threads only move bytes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "sim/host/program_cache.h"
#include "simulator.grpc.pb.h"
#include "src/auth.h"
#include "src/job_pool.h"
#include "src/memory_budget.h"
#include "src/options.h"
#include "src/service_metrics.h"
#include "src/session_manager.h"

namespace aicore::daemon {

namespace svc = aicore::service::v1;

class SimulatorService final : public svc::Simulator::CallbackService {
 public:
  // Distinct kernels kept decoded; the byte bound (--program-cache-bytes) usually binds first.
  static constexpr size_t kProgramCacheEntries = 4096;

  SimulatorService(const DaemonOptions& options, JobPool* pool, SessionManager* sessions,
                   MemoryBudget* budget, TokenSet tokens = TokenSet());

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* ctx,
                                          const svc::CreateSessionRequest* request,
                                          svc::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* ctx,
                                         const svc::CloseSessionRequest* request,
                                         svc::CloseSessionResponse* response) override;
  grpc::ServerUnaryReactor* Malloc(grpc::CallbackServerContext* ctx,
                                   const svc::MallocRequest* request,
                                   svc::MallocResponse* response) override;
  grpc::ServerUnaryReactor* Free(grpc::CallbackServerContext* ctx, const svc::FreeRequest* request,
                                 svc::FreeResponse* response) override;
  grpc::ServerReadReactor<svc::MemoryChunk>* WriteMemory(
      grpc::CallbackServerContext* ctx, svc::WriteMemoryResponse* response) override;
  grpc::ServerWriteReactor<svc::MemoryChunk>* ReadMemory(
      grpc::CallbackServerContext* ctx, const svc::ReadMemoryRequest* request) override;
  grpc::ServerUnaryReactor* Launch(grpc::CallbackServerContext* ctx,
                                   const svc::LaunchRequest* request,
                                   svc::LaunchResponse* response) override;
  grpc::ServerWriteReactor<svc::LaunchEvent>* LaunchWithProgress(
      grpc::CallbackServerContext* ctx, const svc::LaunchRequest* request) override;
  grpc::ServerUnaryReactor* Synchronize(grpc::CallbackServerContext* ctx,
                                        const svc::SynchronizeRequest* request,
                                        svc::SynchronizeResponse* response) override;
  grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse>* Run(
      grpc::CallbackServerContext* ctx) override;

  // Shared by the handlers, the reactors (src/reactors/) and the launch path (launch_execution.h).
  const DaemonOptions& options() const { return options_; }
  JobPool* pool() { return pool_; }
  SessionManager* sessions() { return sessions_; }
  MemoryBudget* budget() { return budget_; }
  const TokenSet& tokens() const { return tokens_; }
  sim::ProgramCache* programs() { return &programs_; }
  ServiceMetrics* metrics() { return &metrics_; }
  uint64_t NextRequestId() { return next_request_id_.fetch_add(1); }

  // Graceful shutdown, first phase: new sessions, launches and runs are refused with UNAVAILABLE;
  // copies, frees and closes still work so clients can fetch the results of finished launches.
  void BeginDrain() { draining_.store(true); }
  bool draining() const { return draining_.load(); }
  // RPCs of this service that have started and not yet completed.
  int active_rpcs() const { return active_rpcs_.load(); }
  void RpcStarted() {
    active_rpcs_.fetch_add(1);
    last_rpc_start_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  // When the last RPC started (steady clock): shutdown waits for clients to go quiet.
  std::chrono::steady_clock::time_point last_rpc_start() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_rpc_start_ns_.load()));
  }
  void RpcEnded() { active_rpcs_.fetch_sub(1); }

 private:
  const DaemonOptions options_;
  JobPool* const pool_;
  SessionManager* const sessions_;
  MemoryBudget* const budget_;
  const TokenSet tokens_;
  sim::ProgramCache programs_;
  ServiceMetrics metrics_;  // after what it reads
  std::atomic<uint64_t> next_request_id_{1};
  std::atomic<bool> draining_{false};
  std::atomic<int> active_rpcs_{0};
  std::atomic<int64_t> last_rpc_start_ns_{0};
};

}  // namespace aicore::daemon
