// One launch of the daemon, from its time limits to its status (see launch_execution.h). The
// simulation itself is the launch path the embedded runtime shares (sim/host/device_host.h);
// what is here is only what a daemon adds: limits, the --trace-root sandbox and the watchdog.
#include "src/launch_execution.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "sim/core/quote.h"
#include "sim/host/program_cache.h"
#include "src/launch_request.h"
#include "src/rpc_status.h"

namespace aicore::daemon::detail {
namespace {

// Runs one launch on `host` through the launch path the embedded runtime shares (decode once per
// distinct kernel, launch, trace, report); fills `report`.
grpc::Status ExecuteKernel(SimulatorService* service, sim::DeviceHost* host,
                           const aicore::ir::v1::Kernel& kernel, uint32_t block_dim,
                           const std::vector<sim::ArgValue>& args,
                           const svc::LaunchOptions& requested, const std::atomic<bool>* cancel,
                           sim::LaunchProgress* progress, aicore::report::v1::LaunchReport* report,
                           uint64_t* trace_bytes) {
  sim::HostLaunch launch;
  if (!requested.trace_dir().empty()) {
    // Checked before the launch, which changes device memory.
    grpc::Status where = ResolveTraceDir(service->options().trace_root, requested.trace_dir(),
                                         &launch.trace_dir, &launch.trace_root);
    if (!where.ok()) return where;
    const uint64_t quota = service->options().trace_quota;
    if (*trace_bytes >= quota) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "this session has written " + std::to_string(*trace_bytes) +
                  " bytes of traces, its quota (--trace-quota " + std::to_string(quota) +
                  "); launch without LaunchOptions.trace_dir, or write traces on the client "
                  "(AICORE_SIM_TRACE)"};
    }
  }
  launch.block_dim = block_dim;
  launch.args = args;
  const LaunchDefaults defaults{service->options().max_cycles, service->options().check};
  if (sim::Status s = ToHostLaunch(requested, defaults, &launch); !s.ok()) return ToGrpcStatus(s);
  launch.trace_failure = "the daemon could not write its trace";
  launch.cancel = cancel;
  launch.progress = progress;
  std::string folder;
  const std::string key = sim::SerializeKernelForCache(kernel);
  sim::Status status = host->Launch(*service->programs(), key, &kernel, launch, report, &folder);
  if (!status.ok()) return ToGrpcStatus(status);
  service->metrics()->CountLaunch(report->cycles(), report->simulated_instructions());
  if (!folder.empty()) {
    std::error_code error;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder, error)) {
      if (entry.is_regular_file(error)) *trace_bytes += entry.file_size(error);
    }
    spdlog::info("kernel={} trace={} session_trace_bytes={}", sim::Quoted(kernel.name()), folder,
                 *trace_bytes);
  }
  return grpc::Status::OK;
}

// Turns the simulator's progress snapshots into LaunchProgress messages for a sink, on the
// watchdog's ticks: at most one per interval, none before the first interval has passed, and
// none when the simulation published nothing new.
class ProgressTicker {
 public:
  ProgressTicker(const ProgressSink* sink, const sim::LaunchProgress* progress)
      : sink_(sink), progress_(progress), start_(Clock::now()) {
    if (sink_ != nullptr) next_ = start_ + sink_->interval;
  }

  void Tick() {
    if (sink_ == nullptr) return;
    const Clock::time_point now = Clock::now();
    if (now < next_) return;
    uint64_t publications = 0;
    const sim::ProgressSnapshot snapshot = progress_->Read(&publications);
    if (publications == seen_) return;
    seen_ = publications;
    next_ = now + sink_->interval;
    svc::LaunchProgress message;
    message.set_cycle(snapshot.cycle);
    message.set_block_dim(snapshot.block_dim);
    message.set_blocks_done(snapshot.blocks_done);
    message.set_wall_ms(
        std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count());
    for (size_t i = 0; i < snapshot.cores.size(); ++i) {
      const sim::CoreProgress& from = snapshot.cores[i];
      svc::LaunchProgress::Core* core = message.add_cores();
      core->set_core(static_cast<uint32_t>(i));
      core->set_cube(from.cube);
      core->set_state(kCoreStates[static_cast<int>(from.state)]);
      core->set_block(from.block);
      core->set_blocks_done(from.blocks_done);
      core->set_blocks_assigned(from.blocks_assigned);
    }
    sink_->send(message);
  }

 private:
  // By sim::CoreProgress::State.
  static constexpr svc::LaunchProgress::Core::State kCoreStates[] = {
      svc::LaunchProgress::Core::IDLE, svc::LaunchProgress::Core::RUNNING,
      svc::LaunchProgress::Core::FINISHED};

  const ProgressSink* const sink_;
  const sim::LaunchProgress* const progress_;
  const Clock::time_point start_;
  Clock::time_point next_;
  uint64_t seen_ = 0;
};

// Why the watchdog stopped a running simulation (JobPool::Watch reasons).
enum CancelReason : int {
  kNotCancelled = 0,
  kWallTime = 1,
  kClientDeadline = 2,
  kClientCancelled = 3,
  kShutdown = 4,
};

}  // namespace

grpc::Status ResolveTraceDir(const std::string& root, const std::string& requested,
                             std::string* out, std::string* canonical_root) {
  namespace fs = std::filesystem;
  if (root.empty()) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "LaunchOptions.trace_dir asks this daemon to write a trace, but it was started "
            "without --trace-root; restart it with --trace-root DIR, or write the trace on the "
            "client (LaunchSettings.trace_dir / AICORE_SIM_TRACE)"};
  }
  // weakly_canonical resolves the symlinks of the part that exists: a link inside the root that
  // points elsewhere is seen where it points. The trace writer then walks down from the root
  // with O_NOFOLLOW (sim/trace/confined_dir.h), so a link swapped in after this check is refused
  // rather than followed.
  std::error_code error;
  const fs::path base = fs::weakly_canonical(fs::absolute(fs::path(root)), error);
  fs::path path = fs::path(requested).is_absolute() ? fs::path(requested) : base / requested;
  if (!error) path = fs::weakly_canonical(path, error);
  const fs::path inside = path.lexically_relative(base);
  if (error || inside.empty() || *inside.begin() == "..") {
    return {grpc::StatusCode::INVALID_ARGUMENT,
            "LaunchOptions.trace_dir " + sim::Quoted(requested, 256) +
                " lies outside this daemon's --trace-root " + base.string() +
                " (symlinks resolved); give a path relative to it"};
  }
  *out = path.string();
  if (canonical_root != nullptr) *canonical_root = base.string();
  return grpc::Status::OK;
}

StartDeadline StartDeadline::For(const grpc::CallbackServerContext* ctx, uint32_t server_ms,
                                 uint32_t client_ms) {
  uint32_t budget = server_ms;
  if (client_ms != 0) budget = budget == 0 ? client_ms : std::min(budget, client_ms);
  return {ctx->deadline(), Clock::now(), budget};
}

grpc::Status StartDeadline::Check(const JobPool* pool) const {
  if (pool->PastShutdownDeadline()) {
    return {grpc::StatusCode::UNAVAILABLE,
            "the daemon is shutting down; this work was not started, retry on another daemon"};
  }
  const auto waited_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - arrival).count();
  if (std::chrono::system_clock::now() >= client_deadline) {
    return {grpc::StatusCode::DEADLINE_EXCEEDED,
            "the client's deadline passed while the work waited " + std::to_string(waited_ms) +
                " ms for a worker; it was not run"};
  }
  if (wall_budget_ms != 0 && waited_ms >= wall_budget_ms) {
    return {grpc::StatusCode::DEADLINE_EXCEEDED,
            "the work waited " + std::to_string(waited_ms) +
                " ms for a worker, over its wall-time budget of " + std::to_string(wall_budget_ms) +
                " ms (max_wall_ms / --max-wall-ms)"};
  }
  return grpc::Status::OK;
}

grpc::Status ExecuteWatched(SimulatorService* service, grpc::CallbackServerContext* ctx,
                            const StartDeadline& deadline, sim::DeviceHost* host,
                            const aicore::ir::v1::Kernel& kernel, uint32_t block_dim,
                            const std::vector<sim::ArgValue>& args,
                            const svc::LaunchOptions& requested,
                            aicore::report::v1::LaunchReport* report, uint64_t* trace_bytes,
                            const ProgressSink* sink) {
  JobPool* pool = service->pool();
  if (grpc::Status s = deadline.Check(pool); !s.ok()) return s;
  const Clock::time_point wall_end =
      deadline.wall_budget_ms == 0
          ? Clock::time_point::max()
          : deadline.arrival + std::chrono::milliseconds(deadline.wall_budget_ms);
  const auto client_deadline = deadline.client_deadline;
  sim::LaunchProgress progress;
  ProgressTicker ticker(sink, &progress);
  std::unique_ptr<JobPool::Watch> watch = pool->StartWatch([=, &ticker]() -> int {
    ticker.Tick();
    if (pool->PastShutdownDeadline()) return kShutdown;
    if (Clock::now() >= wall_end) return kWallTime;
    // A passed deadline also marks the call cancelled: test the deadline first.
    const auto now = std::chrono::system_clock::now();
    if (now >= client_deadline) return kClientDeadline;
    if (ctx->IsCancelled()) {
      // The server learns the deadline as a rounded-up timeout counted from when the request
      // arrived, so the client's own deadline timer (which cancels the call) usually fires
      // first. A cancel this close to the deadline is the deadline.
      constexpr auto kDeadlineSlack = std::chrono::milliseconds(500);
      return client_deadline - now <= kDeadlineSlack ? kClientDeadline : kClientCancelled;
    }
    return kNotCancelled;
  });
  grpc::Status status = ExecuteKernel(service, host, kernel, block_dim, args, requested,
                                      watch->cancel_flag(), &progress, report, trace_bytes);
  const bool cancelled = watch->cancelled();
  const int reason = watch->reason();
  watch.reset();  // no more ticks: from here the sink's stream may carry the answer
  // A launch that finished as the flag went up keeps its own outcome.
  if (!cancelled || status.error_code() != grpc::StatusCode::FAILED_PRECONDITION) {
    return status;
  }
  const auto ran_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - deadline.arrival)
          .count();
  // The last snapshot holds the cycle the simulation reached when it stopped.
  const std::string at_cycle = " at simulated cycle " + std::to_string(progress.Read().cycle);
  const std::string name = "kernel " + sim::Quoted(kernel.name()) + at_cycle;
  switch (reason) {
    case kWallTime: {
      const uint32_t server_ms = service->options().max_wall_ms;
      const bool server_bound = server_ms != 0 && server_ms == deadline.wall_budget_ms;
      return {grpc::StatusCode::DEADLINE_EXCEEDED,
              name + " was cancelled after " + std::to_string(ran_ms) +
                  " ms: it exceeded its wall-time limit of " +
                  std::to_string(deadline.wall_budget_ms) + " ms (" +
                  (server_bound ? "the daemon's --max-wall-ms; restart the daemon with a larger "
                                  "--max-wall-ms (0 = none) to allow longer runs"
                                : "LaunchOptions.max_wall_ms; raise it, or set 0 to use the "
                                  "daemon's --max-wall-ms") +
                  "). Device memory holds the partial results of the cancelled run"};
    }
    case kClientDeadline:
      return {grpc::StatusCode::DEADLINE_EXCEEDED,
              name + " was cancelled after " + std::to_string(ran_ms) +
                  " ms: the client's deadline passed while it ran"};
    case kClientCancelled:
      return {grpc::StatusCode::CANCELLED, name + " was cancelled after " + std::to_string(ran_ms) +
                                               " ms: the client cancelled the call"};
    case kShutdown:
      return {grpc::StatusCode::UNAVAILABLE,
              name + " was cancelled after " + std::to_string(ran_ms) +
                  " ms: the daemon is shutting down and its grace period (--shutdown-grace-ms) "
                  "is over; retry on another daemon"};
    default:
      return status;
  }
}

grpc::Status AdmitLaunch(SimulatorService* service, grpc::CallbackServerContext* ctx,
                         const svc::LaunchRequest& request, AdmittedLaunch* out) {
  if (grpc::Status parsed = CheckParsed(request); !parsed.ok()) return parsed;
  if (service->draining()) return DrainingStatus();
  SessionUse use;
  if (grpc::Status s = AcquireSession(service, ctx, request.session_id(), &use); !s.ok()) {
    return s;
  }
  if (sim::Status s = ToArgValues(request.args(), &out->args); !s.ok()) return ToGrpcStatus(s);
  JobPool::Refusal refusal = JobPool::Refusal::kNone;
  out->ticket = std::make_shared<JobPool::Ticket>(service->pool()->TryAdmit(use->id(), &refusal));
  if (!*out->ticket) return BusyStatus(service->pool(), service->options(), refusal);
  out->session = std::make_shared<SessionUse>(std::move(use));
  out->deadline =
      StartDeadline::For(ctx, service->options().max_wall_ms, request.options().max_wall_ms());
  return grpc::Status::OK;
}

}  // namespace aicore::daemon::detail
