// Handlers and reactors of the Simulator service (see simulator_service.h). Each RPC gets a
// request id that appears in every log line about it and in the `x-request-id` response header.
// Every job body runs under Guarded(): whatever a client sends, an exception becomes a status,
// never a crashed daemon.
#include "src/simulator_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "grpc_code_name.h"
#include "sim/bridge/bridge.h"
#include "sim/host/device_host.h"
#include "src/rpc_status.h"

namespace aicore::daemon {
namespace {

using Clock = std::chrono::steady_clock;
using aicore::GrpcCodeName;

constexpr uint64_t kDefaultChunkBytes = 1 << 20;
// Clients keep gRPC's default 4 MiB receive limit; stay well below it.
constexpr uint64_t kMaxChunkBytes = 2 << 20;

// Runs `body` and turns any exception into a status, so a malformed request or a simulator bug
// fails one RPC instead of the process.
grpc::Status Guarded(const std::function<grpc::Status()>& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            "the daemon ran out of host memory serving this request"};
  } catch (const std::exception& e) {
    return {grpc::StatusCode::INTERNAL, std::string("simulator error: ") + e.what()};
  } catch (...) {
    return {grpc::StatusCode::INTERNAL, "simulator error: unknown exception"};
  }
}

// One log line per finished RPC: request id, rpc, outcome, wall time, plus RPC-specific fields.
class RequestLog {
 public:
  RequestLog(SimulatorService* service, grpc::CallbackServerContext* ctx, const char* rpc)
      : service_(service), id_(service->NextRequestId()), rpc_(rpc), start_(Clock::now()) {
    service_->RpcStarted();
    ctx->AddInitialMetadata("x-request-id", std::to_string(id_));
    spdlog::debug("rid={} rpc={} event=start peer={}", id_, rpc_, ctx->peer());
  }
  ~RequestLog() { service_->RpcEnded(); }
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  uint64_t id() const { return id_; }
  double ElapsedMs() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }

  void Done(const grpc::Status& status, const std::string& fields = "") const {
    if (status.ok()) {
      spdlog::info("rid={} rpc={} status=OK ms={:.3f}{}{}", id_, rpc_, ElapsedMs(),
                   fields.empty() ? "" : " ", fields);
    } else {
      auto level = status.error_code() == grpc::StatusCode::INTERNAL ? spdlog::level::err
                                                                     : spdlog::level::warn;
      spdlog::log(level, "rid={} rpc={} status={} ms={:.3f}{}{} error=\"{}\"", id_, rpc_,
                  GrpcCodeName(status.error_code()), ElapsedMs(), fields.empty() ? "" : " ", fields,
                  status.error_message());
    }
  }

 private:
  SimulatorService* const service_;
  const uint64_t id_;
  const char* const rpc_;
  const Clock::time_point start_;
};

sim::StatusOr<SessionUse> AcquireSession(SimulatorService* service, const std::string& id) {
  if (id.empty()) return sim::InvalidArgument("session_id is empty; call CreateSession first");
  return service->sessions()->Acquire(id);
}

uint64_t EffectiveMaxCycles(uint64_t server_max, uint64_t requested) {
  if (requested == 0) return server_max;
  if (server_max == 0) return requested;
  return std::min(server_max, requested);
}

// The time limits of a launch that arrived at `arrival`: the client's gRPC deadline and the
// wall-time budget (server --max-wall-ms, or the client's smaller one). Check() is applied when
// the job is about to run; while it runs, ExecuteWatched's watchdog probe enforces the same.
struct StartDeadline {
  std::chrono::system_clock::time_point client_deadline;
  Clock::time_point arrival;
  uint32_t wall_budget_ms = 0;  // 0 = none

  static StartDeadline For(const grpc::CallbackServerContext* ctx, uint32_t server_ms,
                           uint32_t client_ms) {
    uint32_t budget = server_ms;
    if (client_ms != 0) budget = budget == 0 ? client_ms : std::min(budget, client_ms);
    return {ctx->deadline(), Clock::now(), budget};
  }

  // Checked when the job is about to run: queueing may have eaten the budget.
  grpc::Status Check(const JobPool* pool) const {
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
                  " ms for a worker, over its wall-time budget of " +
                  std::to_string(wall_budget_ms) + " ms (max_wall_ms / --max-wall-ms)"};
    }
    return grpc::Status::OK;
  }
};

grpc::Status BusyStatus(const JobPool* pool, const DaemonOptions& options) {
  return {grpc::StatusCode::RESOURCE_EXHAUSTED,
          "the daemon is busy: " + std::to_string(pool->admitted()) +
              " launches/runs are running or queued, its capacity (--workers " +
              std::to_string(options.workers) + " + --max-queue " +
              std::to_string(options.max_queue) +
              "); retry with backoff or send the work to another daemon"};
}

grpc::Status DrainingStatus() {
  return {grpc::StatusCode::UNAVAILABLE,
          "the daemon is shutting down and accepts no new sessions, launches or runs; retry on "
          "another daemon"};
}

const char* ReportStatusName(aicore::report::v1::LaunchReport::Status status) {
  return aicore::report::v1::LaunchReport::Status_Name(status).c_str();
}

// Where LaunchOptions.trace_dir points on this host. A daemon serves many clients, so it writes
// only below the operator's --trace-root: relative paths are taken from there, absolute ones
// must lie inside it, and ".." cannot climb out.
grpc::Status ResolveTraceDir(const std::string& root, const std::string& requested,
                             std::string* out) {
  namespace fs = std::filesystem;
  if (root.empty()) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "LaunchOptions.trace_dir asks this daemon to write a trace, but it was started "
            "without --trace-root; restart it with --trace-root DIR, or write the trace on the "
            "client (LaunchSettings.trace_dir / AICORE_SIM_TRACE)"};
  }
  const fs::path base = fs::absolute(fs::path(root)).lexically_normal();
  const fs::path path = fs::path(requested).is_absolute() ? fs::path(requested).lexically_normal()
                                                          : (base / requested).lexically_normal();
  const fs::path inside = path.lexically_relative(base);
  if (inside.empty() || *inside.begin() == "..") {
    return {grpc::StatusCode::INVALID_ARGUMENT, "LaunchOptions.trace_dir '" + requested +
                                                    "' lies outside this daemon's --trace-root " +
                                                    base.string() + "; give a path relative to it"};
  }
  *out = path.string();
  return grpc::Status::OK;
}

// Runs one launch on `host` through the launch path the embedded runtime shares (decode once per
// distinct kernel, launch, trace, report); fills `report`.
grpc::Status ExecuteKernel(SimulatorService* service, sim::DeviceHost* host,
                           const aicore::ir::v1::Kernel& kernel, uint32_t block_dim,
                           const std::vector<sim::ArgValue>& args,
                           const svc::LaunchOptions& requested, const std::atomic<bool>* cancel,
                           aicore::report::v1::LaunchReport* report) {
  sim::HostLaunch launch;
  if (!requested.trace_dir().empty()) {
    // Checked before the launch, which changes device memory.
    grpc::Status where =
        ResolveTraceDir(service->options().trace_root, requested.trace_dir(), &launch.trace_dir);
    if (!where.ok()) return where;
  }
  launch.block_dim = block_dim;
  launch.args = args;
  launch.max_cycles = EffectiveMaxCycles(service->options().max_cycles, requested.max_cycles());
  launch.record_timeline = requested.record_timeline();
  launch.trace_failure = "the daemon could not write its trace";
  launch.cancel = cancel;
  std::string folder;
  sim::Status status = host->Launch(*service->programs(), sim::SerializeKernelForCache(kernel),
                                    &kernel, launch, report, &folder);
  if (!status.ok()) return ToGrpcStatus(status);
  if (!folder.empty()) spdlog::info("kernel={} trace={}", kernel.name(), folder);
  return grpc::Status::OK;
}

// Why the watchdog stopped a running simulation (JobPool::Watch reasons).
enum CancelReason : int {
  kNotCancelled = 0,
  kWallTime = 1,
  kClientDeadline = 2,
  kClientCancelled = 3,
  kShutdown = 4,
};

// Runs one launch (session Launch or one-shot Run) under the pool's shared watchdog, which
// cancels the simulation when the wall-time budget runs out, the client's deadline passes, the
// client cancels the call, or the daemon shuts down past its grace period. `ctx` must stay valid
// until this returns (the watch is removed before that, so the watchdog never sees a dead ctx).
//
// A cancelled launch leaves its device usable: the session keeps serving copies, launches and
// frees, and GM holds whatever the partial run had written when it stopped (outputs may be
// partly updated; the client must not rely on them).
grpc::Status ExecuteWatched(SimulatorService* service, grpc::CallbackServerContext* ctx,
                            const StartDeadline& deadline, sim::DeviceHost* host,
                            const aicore::ir::v1::Kernel& kernel, uint32_t block_dim,
                            const std::vector<sim::ArgValue>& args,
                            const svc::LaunchOptions& requested,
                            aicore::report::v1::LaunchReport* report) {
  JobPool* pool = service->pool();
  if (grpc::Status s = deadline.Check(pool); !s.ok()) return s;
  const Clock::time_point wall_end =
      deadline.wall_budget_ms == 0
          ? Clock::time_point::max()
          : deadline.arrival + std::chrono::milliseconds(deadline.wall_budget_ms);
  const auto client_deadline = deadline.client_deadline;
  std::unique_ptr<JobPool::Watch> watch = pool->StartWatch([=]() -> int {
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
                                      watch->cancel_flag(), report);
  // A launch that finished as the flag went up keeps its own outcome.
  if (!watch->cancelled() || status.error_code() != grpc::StatusCode::FAILED_PRECONDITION) {
    return status;
  }
  const auto ran_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - deadline.arrival)
          .count();
  const std::string name = "kernel " + kernel.name();
  switch (watch->reason()) {
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

std::string LaunchFields(const aicore::report::v1::LaunchReport& report) {
  return "kernel=" + report.kernel_name() + " block_dim=" + std::to_string(report.block_dim()) +
         " report=" + ReportStatusName(report.status()) +
         " cycles=" + std::to_string(report.cycles());
}

// ---- WriteMemory ------------------------------------------------------------------------------

class WriteMemoryReactor final : public grpc::ServerReadReactor<svc::MemoryChunk> {
 public:
  WriteMemoryReactor(SimulatorService* service, grpc::CallbackServerContext* ctx,
                     svc::WriteMemoryResponse* response)
      : service_(service), response_(response), log_(service, ctx, "WriteMemory") {
    StartRead(&chunk_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // client finished (or went away): report what was written
      response_->set_bytes_written(written_);
      FinishWith(grpc::Status::OK);
      return;
    }
    if (!session_) {
      auto use = AcquireSession(service_, chunk_.session_id());
      if (!use.ok()) return FinishWith(ToGrpcStatus(use.status()));
      session_ = std::move(*use);
    } else if (chunk_.session_id() != session_->id()) {
      return FinishWith({grpc::StatusCode::INVALID_ARGUMENT,
                         "every chunk of one WriteMemory call must name the same session"});
    }
    boost::asio::post(session_->strand(), [this] {
      grpc::Status status = Guarded([&] {
        const std::string& data = chunk_.data();
        return ToGrpcStatus(session_->device().Write(chunk_.address(), data.data(), data.size()));
      });
      if (!status.ok()) return FinishWith(status);
      written_ += chunk_.data().size();
      StartRead(&chunk_);
    });
  }

  void OnDone() override {
    log_.Done(status_, "session=" + (session_ ? ShortId(session_->id()) : std::string("-")) +
                           " bytes=" + std::to_string(written_));
    delete this;
  }

 private:
  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  SimulatorService* const service_;
  svc::WriteMemoryResponse* const response_;
  RequestLog log_;
  svc::MemoryChunk chunk_;
  SessionUse session_;
  uint64_t written_ = 0;
  grpc::Status status_;
};

// ---- ReadMemory -------------------------------------------------------------------------------

class ReadMemoryReactor final : public grpc::ServerWriteReactor<svc::MemoryChunk> {
 public:
  ReadMemoryReactor(SimulatorService* service, grpc::CallbackServerContext* ctx,
                    const svc::ReadMemoryRequest* request)
      : request_(request), log_(service, ctx, "ReadMemory") {
    auto use = AcquireSession(service, request->session_id());
    if (!use.ok()) {
      FinishWith(ToGrpcStatus(use.status()));
      return;
    }
    session_ = std::move(*use);
    if (request->address() + request->bytes() < request->address()) {
      FinishWith({grpc::StatusCode::INVALID_ARGUMENT, "address + bytes overflows 64 bits"});
      return;
    }
    chunk_bytes_ = request->chunk_bytes() == 0
                       ? kDefaultChunkBytes
                       : std::min<uint64_t>(request->chunk_bytes(), kMaxChunkBytes);
    NextChunk();
  }

  void OnWriteDone(bool ok) override {
    if (!ok) return FinishWith({grpc::StatusCode::CANCELLED, "the client stopped reading"});
    NextChunk();
  }

  void OnDone() override {
    log_.Done(status_, "session=" + (session_ ? ShortId(session_->id()) : std::string("-")) +
                           " bytes=" + std::to_string(offset_));
    delete this;
  }

 private:
  void NextChunk() {
    if (offset_ >= request_->bytes()) return FinishWith(grpc::Status::OK);
    boost::asio::post(session_->strand(), [this] {
      const uint64_t n = std::min(chunk_bytes_, request_->bytes() - offset_);
      grpc::Status status = Guarded([&] {
        chunk_.set_address(request_->address() + offset_);
        std::string* data = chunk_.mutable_data();
        data->resize(n);
        return ToGrpcStatus(session_->device().Read(chunk_.address(), data->data(), n));
      });
      if (!status.ok()) return FinishWith(status);
      offset_ += n;
      StartWrite(&chunk_);
    });
  }

  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  const svc::ReadMemoryRequest* const request_;
  RequestLog log_;
  SessionUse session_;
  svc::MemoryChunk chunk_;
  uint64_t chunk_bytes_ = kDefaultChunkBytes;
  uint64_t offset_ = 0;
  grpc::Status status_;
};

// ---- Run (one-shot) ---------------------------------------------------------------------------

class RunReactor final : public grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse> {
 public:
  RunReactor(SimulatorService* service, grpc::CallbackServerContext* ctx)
      : service_(service), ctx_(ctx), log_(service, ctx, "Run") {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      if (!host_) {
        return FinishWith(
            {grpc::StatusCode::INVALID_ARGUMENT, "the Run stream ended before its header"});
      }
      return StartRun();  // all inputs received
    }
    grpc::Status status = Guarded([&] {
      if (!host_) {
        if (!request_.has_header()) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "the first message of a Run stream must be its header");
        }
        return AcceptHeader(request_.header());
      }
      if (!request_.has_chunk()) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "a Run stream carries one header, then only data chunks");
      }
      return WriteInput(request_.chunk());
    });
    if (!status.ok()) return FinishWith(status);
    StartRead(&request_);
  }

  void OnWriteDone(bool ok) override {
    if (!ok) return FinishWith({grpc::StatusCode::CANCELLED, "the client stopped reading"});
    grpc::Status status = Guarded([&] { return SendNextOutput(); });
    if (!status.ok()) FinishWith(status);
  }

  void OnDone() override {
    log_.Done(status_, report_sent_ ? LaunchFields(report_) : "kernel=" + header_.kernel().name());
    delete this;
  }

 private:
  struct Buffer {
    bool is_buffer = false;  // false for scalar arguments
    uint64_t address = 0;
    uint64_t bytes = 0;
    bool output = false;
  };

  grpc::Status AcceptHeader(const svc::RunHeader& header) {
    if (service_->draining()) return DrainingStatus();
    auto slot = service_->sessions()->ReserveRunSlot();
    if (!slot.ok()) return ToGrpcStatus(slot.status());
    slot_.emplace(std::move(*slot));

    uint64_t total = 0;
    for (int i = 0; i < header.args_size(); ++i) {
      const svc::RunArg& arg = header.args(i);
      if (arg.value_case() == svc::RunArg::kBufferBytes) {
        if (arg.buffer_bytes() > std::numeric_limits<uint64_t>::max() - total) {
          total = std::numeric_limits<uint64_t>::max();
        } else {
          total += arg.buffer_bytes();
        }
      }
    }
    const uint64_t limit = service_->options().session_memory_limit;
    if (total > limit) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              "the run's buffers need " + std::to_string(total) + " bytes, over the limit of " +
                  std::to_string(limit) + " bytes per run (--session-memory-limit)"};
    }
    auto config = sim::LoadSocConfig(header.platform());
    if (!config.ok()) return ToGrpcStatus(config.status());
    host_ = std::make_unique<sim::DeviceHost>(std::move(*config));

    buffers_.assign(header.args_size(), Buffer{});
    for (int i = 0; i < header.args_size(); ++i) {
      const svc::RunArg& arg = header.args(i);
      const std::string where = "args[" + std::to_string(i) + "]";
      if (arg.output() && arg.value_case() != svc::RunArg::kBufferBytes) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                where + " is a scalar marked as output; only buffers can be outputs"};
      }
      switch (arg.value_case()) {
        case svc::RunArg::kIntValue:
          args_.push_back(sim::ArgValue::Int(arg.int_value()));
          break;
        case svc::RunArg::kFloatValue:
          args_.push_back(sim::ArgValue::Float(arg.float_value()));
          break;
        case svc::RunArg::kBufferBytes: {
          auto address = host_->device().Malloc(arg.buffer_bytes());
          if (!address.ok()) {
            return ToGrpcStatus(
                sim::Status(address.status().code(), where + ": " + address.status().message()));
          }
          buffers_[i] = {true, *address, arg.buffer_bytes(), arg.output()};
          args_.push_back(sim::ArgValue::Address(*address));
          break;
        }
        default:
          return {grpc::StatusCode::INVALID_ARGUMENT,
                  where + " has no value: set int_value, float_value or buffer_bytes"};
      }
    }
    header_ = header;
    deadline_ =
        StartDeadline::For(ctx_, service_->options().max_wall_ms, header.options().max_wall_ms());
    return grpc::Status::OK;
  }

  grpc::Status WriteInput(const svc::RunChunk& chunk) {
    if (chunk.arg_index() >= buffers_.size() || !buffers_[chunk.arg_index()].is_buffer) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "data chunk for args[" +
                                                      std::to_string(chunk.arg_index()) +
                                                      "], which is not a buffer argument"};
    }
    const Buffer& buffer = buffers_[chunk.arg_index()];
    const uint64_t n = chunk.data().size();
    if (chunk.offset() > buffer.bytes || n > buffer.bytes - chunk.offset()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "data chunk [" + std::to_string(chunk.offset()) +
                                                      ", " + std::to_string(chunk.offset() + n) +
                                                      ") is outside args[" +
                                                      std::to_string(chunk.arg_index()) + "] of " +
                                                      std::to_string(buffer.bytes) + " bytes"};
    }
    return ToGrpcStatus(
        host_->device().Write(buffer.address + chunk.offset(), chunk.data().data(), n));
  }

  void StartRun() {
    auto ticket = std::make_shared<JobPool::Ticket>(service_->pool()->TryAdmit());
    if (!*ticket) return FinishWith(BusyStatus(service_->pool(), service_->options()));
    boost::asio::post(service_->pool()->executor(), [this, ticket] {
      grpc::Status status = Guarded([&] {
        return ExecuteWatched(service_, ctx_, deadline_, host_.get(), header_.kernel(),
                              header_.block_dim(), args_, header_.options(), &report_);
      });
      *ticket = JobPool::Ticket();  // streaming the outputs back is not simulation work
      if (!status.ok()) return FinishWith(status);
      *response_.mutable_report() = report_;
      report_sent_ = true;
      StartWrite(&response_);
    });
  }

  // Output buffers in argument order, each in chunks; Finish after the last one.
  grpc::Status SendNextOutput() {
    while (next_output_ < buffers_.size()) {
      const Buffer& buffer = buffers_[next_output_];
      if (!buffer.output || output_offset_ >= buffer.bytes) {
        ++next_output_;
        output_offset_ = 0;
        continue;
      }
      const uint64_t n = std::min(kDefaultChunkBytes, buffer.bytes - output_offset_);
      svc::RunChunk* chunk = response_.mutable_chunk();
      chunk->set_arg_index(static_cast<uint32_t>(next_output_));
      chunk->set_offset(output_offset_);
      std::string* data = chunk->mutable_data();
      data->resize(n);
      if (sim::Status s = host_->device().Read(buffer.address + output_offset_, data->data(), n);
          !s.ok()) {
        return ToGrpcStatus(s);
      }
      output_offset_ += n;
      StartWrite(&response_);
      return grpc::Status::OK;
    }
    FinishWith(grpc::Status::OK);
    return grpc::Status::OK;
  }

  void FinishWith(const grpc::Status& status) {
    status_ = status;
    Finish(status);
  }

  SimulatorService* const service_;
  grpc::CallbackServerContext* const ctx_;
  RequestLog log_;
  svc::RunRequest request_;
  svc::RunResponse response_;
  svc::RunHeader header_;
  std::optional<SessionManager::RunSlot> slot_;
  std::unique_ptr<sim::DeviceHost> host_;
  std::vector<Buffer> buffers_;  // one per argument
  std::vector<sim::ArgValue> args_;
  StartDeadline deadline_;
  aicore::report::v1::LaunchReport report_;
  bool report_sent_ = false;
  size_t next_output_ = 0;
  uint64_t output_offset_ = 0;
  grpc::Status status_;
};

}  // namespace

SimulatorService::SimulatorService(const DaemonOptions& options, JobPool* pool,
                                   SessionManager* sessions)
    : options_(options), pool_(pool), sessions_(sessions) {}

grpc::ServerUnaryReactor* SimulatorService::CreateSession(grpc::CallbackServerContext* ctx,
                                                          const svc::CreateSessionRequest* request,
                                                          svc::CreateSessionResponse* response) {
  auto* reactor = ctx->DefaultReactor();
  RequestLog log(this, ctx, "CreateSession");
  std::string session_id;
  grpc::Status status = Guarded([&] {
    if (draining()) return DrainingStatus();
    auto session = sessions_->Create(request->platform(), request->client_name());
    if (!session.ok()) return ToGrpcStatus(session.status());
    session_id = (*session)->id();
    response->set_session_id(session_id);
    *response->mutable_config() = (*session)->host().config_proto();
    return grpc::Status::OK;
  });
  log.Done(status, "session=" + ShortId(session_id) + " platform=" + request->platform() +
                       " client=" + request->client_name());
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* SimulatorService::CloseSession(grpc::CallbackServerContext* ctx,
                                                         const svc::CloseSessionRequest* request,
                                                         svc::CloseSessionResponse* response) {
  auto* reactor = ctx->DefaultReactor();
  RequestLog log(this, ctx, "CloseSession");
  grpc::Status status = Guarded([&] {
    if (request->session_id().empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "session_id is empty");
    }
    return ToGrpcStatus(sessions_->Close(request->session_id()));
  });
  log.Done(status, "session=" + ShortId(request->session_id()));
  reactor->Finish(status);
  return reactor;
}

// Posts `body` onto the session's strand and finishes the unary RPC with its status; the session
// stays in use (cannot expire) until the body has run.
template <typename Body>
static grpc::ServerUnaryReactor* RunOnSession(SimulatorService* service,
                                              grpc::CallbackServerContext* ctx, const char* rpc,
                                              const std::string& session_id, Body body) {
  auto* reactor = ctx->DefaultReactor();
  auto log = std::make_shared<RequestLog>(service, ctx, rpc);
  auto use = AcquireSession(service, session_id);
  if (!use.ok()) {
    grpc::Status status = ToGrpcStatus(use.status());
    log->Done(status, "session=" + ShortId(session_id));
    reactor->Finish(status);
    return reactor;
  }
  auto session = std::make_shared<SessionUse>(std::move(*use));
  boost::asio::post((*session)->strand(), [reactor, log, session, body] {
    std::string fields = "session=" + ShortId((*session)->id());
    grpc::Status status = Guarded([&] { return body(**session, &fields); });
    log->Done(status, fields);
    *session = SessionUse();  // idle clock restarts before the client sees the answer
    reactor->Finish(status);
  });
  return reactor;
}

grpc::ServerUnaryReactor* SimulatorService::Malloc(grpc::CallbackServerContext* ctx,
                                                   const svc::MallocRequest* request,
                                                   svc::MallocResponse* response) {
  const uint64_t limit = options_.session_memory_limit;
  const bool service_draining = draining();
  return RunOnSession(
      this, ctx, "Malloc", request->session_id(),
      [request, response, limit, service_draining](Session& session, std::string* fields) {
        if (service_draining) return DrainingStatus();
        sim::Device& device = session.device();
        const uint64_t used = device.bytes_allocated();
        *fields += " bytes=" + std::to_string(request->bytes());
        if (request->bytes() > limit || used > limit - request->bytes()) {
          return grpc::Status(
              grpc::StatusCode::RESOURCE_EXHAUSTED,
              "session memory limit: " + std::to_string(used) + " bytes allocated + " +
                  std::to_string(request->bytes()) + " requested > " + std::to_string(limit) +
                  " bytes (--session-memory-limit); free buffers or use another session");
        }
        auto address = device.Malloc(request->bytes());
        if (!address.ok()) return ToGrpcStatus(address.status());
        response->set_address(*address);
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* SimulatorService::Free(grpc::CallbackServerContext* ctx,
                                                 const svc::FreeRequest* request,
                                                 svc::FreeResponse* response) {
  return RunOnSession(this, ctx, "Free", request->session_id(),
                      [request](Session& session, std::string*) {
                        return ToGrpcStatus(session.device().Free(request->address()));
                      });
}

grpc::ServerUnaryReactor* SimulatorService::Synchronize(grpc::CallbackServerContext* ctx,
                                                        const svc::SynchronizeRequest* request,
                                                        svc::SynchronizeResponse* response) {
  // Everything of a session runs in order on its strand: reaching the strand means every earlier
  // launch and copy of the session (whatever its stream) has finished.
  return RunOnSession(this, ctx, "Synchronize", request->session_id(),
                      [](Session&, std::string*) { return grpc::Status::OK; });
}

grpc::ServerReadReactor<svc::MemoryChunk>* SimulatorService::WriteMemory(
    grpc::CallbackServerContext* ctx, svc::WriteMemoryResponse* response) {
  return new WriteMemoryReactor(this, ctx, response);
}

grpc::ServerWriteReactor<svc::MemoryChunk>* SimulatorService::ReadMemory(
    grpc::CallbackServerContext* ctx, const svc::ReadMemoryRequest* request) {
  return new ReadMemoryReactor(this, ctx, request);
}

grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse>* SimulatorService::Run(
    grpc::CallbackServerContext* ctx) {
  return new RunReactor(this, ctx);
}

grpc::ServerUnaryReactor* SimulatorService::Launch(grpc::CallbackServerContext* ctx,
                                                   const svc::LaunchRequest* request,
                                                   svc::LaunchResponse* response) {
  auto* reactor = ctx->DefaultReactor();
  auto log = std::make_shared<RequestLog>(this, ctx, "Launch");
  auto fail = [&](const grpc::Status& status) {
    log->Done(status,
              "session=" + ShortId(request->session_id()) + " kernel=" + request->kernel().name());
    reactor->Finish(status);
    return reactor;
  };

  if (draining()) return fail(DrainingStatus());
  auto use = AcquireSession(this, request->session_id());
  if (!use.ok()) return fail(ToGrpcStatus(use.status()));
  std::vector<sim::ArgValue> args;
  for (int i = 0; i < request->args_size(); ++i) {
    const svc::KernelArg& arg = request->args(i);
    switch (arg.value_case()) {
      case svc::KernelArg::kIntValue:
        args.push_back(sim::ArgValue::Int(arg.int_value()));
        break;
      case svc::KernelArg::kFloatValue:
        args.push_back(sim::ArgValue::Float(arg.float_value()));
        break;
      case svc::KernelArg::kAddress:
        args.push_back(sim::ArgValue::Address(arg.address()));
        break;
      default:
        return fail({grpc::StatusCode::INVALID_ARGUMENT,
                     "args[" + std::to_string(i) +
                         "] has no value: set int_value, float_value or address"});
    }
  }
  auto ticket = std::make_shared<JobPool::Ticket>(pool_->TryAdmit());
  if (!*ticket) return fail(BusyStatus(pool_, options_));

  auto session = std::make_shared<SessionUse>(std::move(*use));
  const StartDeadline deadline =
      StartDeadline::For(ctx, options_.max_wall_ms, request->options().max_wall_ms());
  boost::asio::post((*session)->strand(), [this, ctx, reactor, log, session, ticket, deadline,
                                           request, response, args = std::move(args)] {
    grpc::Status status = Guarded([&] {
      return ExecuteWatched(this, ctx, deadline, &(*session)->host(), request->kernel(),
                            request->block_dim(), args, request->options(),
                            response->mutable_report());
    });
    std::string fields = "session=" + ShortId((*session)->id()) + " ";
    fields += status.ok() ? LaunchFields(response->report()) : "kernel=" + request->kernel().name();
    log->Done(status, fields);
    // Free the pool slot and the session before the client can see the answer, or its next
    // launch could find them still taken.
    *ticket = JobPool::Ticket();
    *session = SessionUse();
    reactor->Finish(status);
  });
  return reactor;
}

}  // namespace aicore::daemon
