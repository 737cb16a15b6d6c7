// The launch path under the watchdog, shared by the session Launch handler and the one-shot Run
// reactor, so both enforce the same time limits and explain a cancelled launch the same way.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kernel.pb.h"
#include "report.pb.h"
#include "sim/host/device_host.h"
#include "sim/soc/device.h"
#include "simulator.pb.h"
#include "src/job_pool.h"
#include "src/rpc_support.h"
#include "src/session_manager.h"
#include "src/simulator_service.h"

namespace aicore::daemon::detail {

// Where LaunchOptions.trace_dir `requested` points on this host: below `root` (--trace-root),
// relative paths taken from there, with "..", and symlinks in the part that exists, resolved
// before the check, so neither can lead out. FAILED_PRECONDITION without a root, else
// INVALID_ARGUMENT for a path outside it.
// `*canonical_root`, when given, receives the root as resolved (TraceRequest::confine_root).
grpc::Status ResolveTraceDir(const std::string& root, const std::string& requested,
                             std::string* out, std::string* canonical_root = nullptr);

// The time limits of a launch that arrived at `arrival`: the client's gRPC deadline and the
// wall-time budget (server --max-wall-ms, or the client's smaller one). Check() is applied when
// the job is about to run; while it runs, ExecuteWatched's watchdog probe enforces the same.
struct StartDeadline {
  std::chrono::system_clock::time_point client_deadline;
  Clock::time_point arrival;
  uint32_t wall_budget_ms = 0;  // 0 = none

  static StartDeadline For(const grpc::CallbackServerContext* ctx, uint32_t server_ms,
                           uint32_t client_ms);

  // Checked when the job is about to run: queueing may have eaten the budget.
  grpc::Status Check(const JobPool* pool) const;
};

// Where a launch's progress goes while it runs (LaunchWithProgress, or Run with
// progress_interval_ms): `send` is called on the watchdog thread at most every `interval`, so it
// must be cheap and never block (start a write, or skip the tick while one is in flight). It is
// never called after ExecuteWatched returns.
struct ProgressSink {
  std::chrono::milliseconds interval{500};
  std::function<void(const svc::LaunchProgress&)> send;
};

// Runs one launch (session Launch or one-shot Run) under the pool's shared watchdog, which
// cancels the simulation when the wall-time budget runs out, the client's deadline passes, the
// client cancels the call, or the daemon shuts down past its grace period. `ctx` must stay valid
// until this returns (the watch is removed before that, so the watchdog never sees a dead ctx).
//
// A cancelled launch leaves its device usable: the session keeps serving copies, launches and
// frees, and GM holds whatever the partial run had written when it stopped (outputs may be
// partly updated; the client must not rely on them).
//
// `*trace_bytes` counts what the session's (or run's) launches have written below --trace-root;
// a launch asking for a trace once it has reached --trace-quota is refused before it runs.
// `sink`, when given, receives the launch's progress while it runs.
grpc::Status ExecuteWatched(SimulatorService* service, grpc::CallbackServerContext* ctx,
                            const StartDeadline& deadline, sim::DeviceHost* host,
                            const aicore::ir::v1::Kernel& kernel, uint32_t block_dim,
                            const std::vector<sim::ArgValue>& args,
                            const svc::LaunchOptions& requested,
                            aicore::report::v1::LaunchReport* report, uint64_t* trace_bytes,
                            const ProgressSink* sink = nullptr);

// A session launch admitted to run: the session held in use (it cannot expire), its slot in the
// job pool, its arguments and time limits. Shared so the lambdas posted on the session's lane can
// release the slot and the session before the client sees the answer.
struct AdmittedLaunch {
  std::shared_ptr<SessionUse> session;
  std::shared_ptr<JobPool::Ticket> ticket;
  std::vector<sim::ArgValue> args;
  StartDeadline deadline;

  // Frees the pool slot and the session, or the client's next launch could find them taken.
  void Release() {
    *ticket = JobPool::Ticket();
    *session = SessionUse();
  }
};

// The checks of a session launch before it is queued (parse, draining, caller and session,
// arguments, admission), shared by Launch and LaunchWithProgress; the status to answer if any
// fails.
grpc::Status AdmitLaunch(SimulatorService* service, grpc::CallbackServerContext* ctx,
                         const svc::LaunchRequest& request, AdmittedLaunch* out);

}  // namespace aicore::daemon::detail
