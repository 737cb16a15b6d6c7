// What every handler and reactor of the Simulator service shares: the exception guard around job
// bodies, the per-RPC request log, session lookup, and the statuses that refuse work. Kept in one
// place so every RPC fails, logs and answers the same way.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "report.pb.h"
#include "service_parse_traits.h"
#include "sim/core/status.h"
#include "src/job_pool.h"
#include "src/options.h"
#include "src/session_manager.h"
#include "src/simulator_service.h"

namespace aicore::daemon::detail {

using Clock = std::chrono::steady_clock;

inline constexpr uint64_t kDefaultChunkBytes = 1 << 20;
// Clients keep gRPC's default 4 MiB receive limit; stay well below it.
inline constexpr uint64_t kMaxChunkBytes = 2 << 20;

// Runs `body` and turns any exception into a status, so a malformed request or a simulator bug
// fails one RPC instead of the process.
grpc::Status Guarded(const std::function<grpc::Status()>& body);

// One log line per finished RPC: request id, rpc, outcome, wall time, plus RPC-specific fields;
// and the RPC counted in the metrics. The request id is the client's `x-request-id` header when
// it sends one (escaped, at most 64 bytes), else a number of the daemon's; either way it is
// echoed in the response's `x-request-id` header. Memory calls (`Level::kDebugWhenOk`) log
// successes at debug, so an info log holds one line per launch, not one per copied chunk.
class RequestLog {
 public:
  enum class Level { kInfo, kDebugWhenOk };
  RequestLog(SimulatorService* service, grpc::CallbackServerContext* ctx, const char* rpc,
             Level level = Level::kInfo);
  ~RequestLog();
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  const std::string& id() const { return id_; }
  double ElapsedMs() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }

  void Done(const grpc::Status& status, const std::string& fields = "") const;

 private:
  SimulatorService* const service_;
  const std::string id_;
  const char* const rpc_;
  const Level level_;
  const Clock::time_point start_;
};

// OK, or INVALID_ARGUMENT when gRPC could not parse the request (service_parse_traits.h).
grpc::Status CheckParsed(const google::protobuf::Message& request);

// OK when this daemon serves the client's protocol version (0 = before versioning, taken as 1)
// and decodes its IR version (0 = not said); else FAILED_PRECONDITION saying which side to
// upgrade (docs/versions.md).
grpc::Status CheckVersions(uint32_t protocol_version, int ir_version);

// The caller (its token's name, "anonymous" without --token-file), or UNAUTHENTICATED.
grpc::Status Authenticate(SimulatorService* service, const grpc::CallbackServerContext* ctx,
                          std::string* identity);

// The caller's session `id` in `*out`, or the error to answer: UNAUTHENTICATED, or NOT_FOUND for
// an id that is unknown or belongs to another caller (the two look the same from outside).
grpc::Status AcquireSession(SimulatorService* service, const grpc::CallbackServerContext* ctx,
                            const std::string& id, SessionUse* out);

// RESOURCE_EXHAUSTED for refused admission, with a google.rpc.RetryInfo in its details that says
// how long to wait (the runtime's client honours it with bounded backoff).
grpc::Status BusyStatus(const JobPool* pool, const DaemonOptions& options, JobPool::Refusal why);

// Who a one-shot run belongs to, for the fair queue and admission: its caller's identity.
std::string RunClient(const grpc::CallbackServerContext* ctx, const std::string& identity);

grpc::Status DrainingStatus();

std::string LaunchFields(const aicore::report::v1::LaunchReport& report);

}  // namespace aicore::daemon::detail
