// The helpers every handler and reactor of the Simulator service shares (see rpc_support.h).
// Their log lines and status messages are part of what clients and operators see.
#include "src/rpc_support.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "aicore/version.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpc_code_name.h"
#include "kernel.pb.h"
#include "protocol_version.h"
#include "sim/core/quote.h"
#include "src/rpc_status.h"
#include "src/service_metrics.h"

namespace aicore::daemon::detail {
namespace {

using aicore::GrpcCodeName;

const char* ReportStatusName(aicore::report::v1::LaunchReport::Status status) {
  return aicore::report::v1::LaunchReport::Status_Name(status).c_str();
}

}  // namespace

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

// The client's x-request-id, made safe for a log line and a header, or the daemon's next number.
static std::string RequestIdFor(SimulatorService* service, const grpc::CallbackServerContext* ctx) {
  constexpr size_t kMaxClientId = 64;
  const auto& metadata = ctx->client_metadata();
  auto it = metadata.find("x-request-id");
  if (it != metadata.end() && !it->second.empty()) {
    std::string id;
    for (char c : std::string(it->second.data(), it->second.size())) {
      if (id.size() >= kMaxClientId) break;
      const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                         c == '.' || c == ':' || c == '/';
      id.push_back(plain ? c : '_');
    }
    return id;
  }
  return std::to_string(service->NextRequestId());
}

RequestLog::RequestLog(SimulatorService* service, grpc::CallbackServerContext* ctx, const char* rpc,
                       Level level)
    : service_(service),
      id_(RequestIdFor(service, ctx)),
      rpc_(rpc),
      level_(level),
      start_(Clock::now()) {
  service_->RpcStarted();
  ctx->AddInitialMetadata("x-request-id", id_);
  spdlog::debug("rid={} rpc={} event=start peer={}", id_, rpc_, ctx->peer());
}

RequestLog::~RequestLog() { service_->RpcEnded(); }

void RequestLog::Done(const grpc::Status& status, const std::string& fields) const {
  service_->metrics()->CountRpc(rpc_, status.error_code());
  if (status.ok()) {
    spdlog::log(level_ == Level::kInfo ? spdlog::level::info : spdlog::level::debug,
                "rid={} rpc={} status=OK ms={:.3f}{}{}", id_, rpc_, ElapsedMs(),
                fields.empty() ? "" : " ", fields);
  } else {
    auto level = status.error_code() == grpc::StatusCode::INTERNAL ? spdlog::level::err
                                                                   : spdlog::level::warn;
    spdlog::log(level, "rid={} rpc={} status={} ms={:.3f}{}{} error={}", id_, rpc_,
                GrpcCodeName(status.error_code()), ElapsedMs(), fields.empty() ? "" : " ", fields,
                sim::Quoted(status.error_message(), 512));
  }
}

grpc::Status CheckParsed(const google::protobuf::Message& request) {
  std::optional<std::string> failure = aicore::service::ParseFailure(request);
  if (!failure) return grpc::Status::OK;
  return {grpc::StatusCode::INVALID_ARGUMENT, *failure};
}

grpc::Status CheckVersions(uint32_t protocol_version, int ir_version) {
  using aicore::service::kMinProtocolVersion;
  using aicore::service::kProtocolVersion;
  const uint32_t protocol = protocol_version == 0 ? 1 : protocol_version;
  const std::string daemon = std::string("this daemon (aicore-simd ") + AICORE_SIM_VERSION +
                             ") serves protocol versions " + std::to_string(kMinProtocolVersion) +
                             ".." + std::to_string(kProtocolVersion);
  if (protocol > kProtocolVersion) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "the client speaks protocol version " + std::to_string(protocol) + ", but " + daemon +
                "; upgrade the daemon, or use a client of its version"};
  }
  if (protocol < kMinProtocolVersion) {
    return {grpc::StatusCode::FAILED_PRECONDITION, "the client speaks protocol version " +
                                                       std::to_string(protocol) + ", but " +
                                                       daemon + "; upgrade the client"};
  }
  if (ir_version != 0 && ir_version != aicore::ir::v1::IR_VERSION_1) {
    return {grpc::StatusCode::FAILED_PRECONDITION,
            "the client's kernels are IR version " + std::to_string(ir_version) +
                ", but this daemon (aicore-simd " + AICORE_SIM_VERSION +
                ") decodes IR version 1 only; upgrade the daemon"};
  }
  return grpc::Status::OK;
}

grpc::Status Authenticate(SimulatorService* service, const grpc::CallbackServerContext* ctx,
                          std::string* identity) {
  return service->tokens().Authenticate(ctx, identity);
}

grpc::Status AcquireSession(SimulatorService* service, const grpc::CallbackServerContext* ctx,
                            const std::string& id, SessionUse* out) {
  std::string caller;
  if (grpc::Status s = Authenticate(service, ctx, &caller); !s.ok()) return s;
  if (id.empty()) {
    return {grpc::StatusCode::INVALID_ARGUMENT, "session_id is empty; call CreateSession first"};
  }
  auto use = service->sessions()->Acquire(id, caller);
  if (!use.ok()) return ToGrpcStatus(use.status());
  *out = std::move(*use);
  return grpc::Status::OK;
}

grpc::Status BusyStatus(const JobPool* pool, const DaemonOptions& options, JobPool::Refusal why) {
  const auto delay = pool->SuggestedRetryDelay();
  std::string message =
      why == JobPool::Refusal::kClientFull
          ? "this client already has " + std::to_string(pool->max_client_queue()) +
                " launches/runs running or queued, its share of the daemon (--max-client-queue); "
                "retry in about " +
                std::to_string(delay.count()) + " ms, after some of them finish"
          : "the daemon is busy: " + std::to_string(pool->admitted()) +
                " launches/runs are running or queued, its capacity (--workers " +
                std::to_string(options.workers) + " + --max-queue " +
                std::to_string(options.max_queue) + "); retry in about " +
                std::to_string(delay.count()) + " ms or send the work to another daemon";
  google::rpc::RetryInfo retry;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(delay);
  retry.mutable_retry_delay()->set_seconds(seconds.count());
  retry.mutable_retry_delay()->set_nanos(static_cast<int32_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(delay - seconds).count()));
  google::rpc::Status details;
  details.set_code(static_cast<int32_t>(grpc::StatusCode::RESOURCE_EXHAUSTED));
  details.set_message(message);
  details.add_details()->PackFrom(retry);
  return {grpc::StatusCode::RESOURCE_EXHAUSTED, message, details.SerializeAsString()};
}

std::string RunClient(const grpc::CallbackServerContext* ctx, const std::string& identity) {
  // With tokens, one credential is one client however many connections it opens.
  return identity == TokenSet::kAnonymous ? "run:" + ctx->peer() : "run:" + identity;
}

grpc::Status DrainingStatus() {
  return {grpc::StatusCode::UNAVAILABLE,
          "the daemon is shutting down and accepts no new sessions, allocations, launches or "
          "runs; retry on another daemon"};
}

std::string LaunchFields(const aicore::report::v1::LaunchReport& report) {
  std::string fields = "kernel=" + sim::Quoted(report.kernel_name()) +
                       " block_dim=" + std::to_string(report.block_dim()) +
                       " report=" + ReportStatusName(report.status()) +
                       " cycles=" + std::to_string(report.cycles()) + " check=\"" +
                       report.check().summary() + "\"";
  // A failed launch names its first finding, so one log line says what went wrong and where.
  if (report.status() != aicore::report::v1::LaunchReport::OK && report.diagnostics_size() > 0) {
    const aicore::report::v1::Diagnostic& first = report.diagnostics(0);
    fields += " finding=" + aicore::report::v1::Diagnostic::Kind_Name(first.kind()) + "@" +
              first.location().file() + ":" + std::to_string(first.location().line());
  }
  return fields;
}

}  // namespace aicore::daemon::detail
