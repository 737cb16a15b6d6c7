// The Simulator service's unary handlers (see simulator_service.h); the streaming RPCs are served
// by the reactors in src/reactors/. Each RPC gets a request id that appears in every log line
// about it and in the `x-request-id` response header. Every job body runs under Guarded():
// whatever a client sends, an exception becomes a status, never a crashed daemon.
#include "src/simulator_service.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aicore/version.h"
#include "protocol_version.h"
#include "sim/core/quote.h"
#include "sim/soc/device.h"
#include "src/launch_execution.h"
#include "src/reactors/launch_progress_reactor.h"
#include "src/reactors/read_memory_reactor.h"
#include "src/reactors/run_reactor.h"
#include "src/reactors/write_memory_reactor.h"
#include "src/rpc_status.h"
#include "src/rpc_support.h"

namespace aicore::daemon {

using detail::AcquireSession;
using detail::AdmitLaunch;
using detail::CheckParsed;
using detail::DrainingStatus;
using detail::ExecuteWatched;
using detail::Guarded;
using detail::LaunchFields;
using detail::RequestLog;

SimulatorService::SimulatorService(const DaemonOptions& options, JobPool* pool,
                                   SessionManager* sessions, MemoryBudget* budget, TokenSet tokens)
    : options_(options),
      pool_(pool),
      sessions_(sessions),
      budget_(budget),
      tokens_(std::move(tokens)),
      programs_(kProgramCacheEntries, options.program_cache_bytes),
      metrics_(pool, budget, &programs_, sessions) {}

grpc::ServerUnaryReactor* SimulatorService::CreateSession(grpc::CallbackServerContext* ctx,
                                                          const svc::CreateSessionRequest* request,
                                                          svc::CreateSessionResponse* response) {
  auto* reactor = ctx->DefaultReactor();
  RequestLog log(this, ctx, "CreateSession");
  std::string session_id;
  grpc::Status status = Guarded([&] {
    if (grpc::Status parsed = CheckParsed(*request); !parsed.ok()) return parsed;
    std::string caller;
    if (grpc::Status s = detail::Authenticate(this, ctx, &caller); !s.ok()) return s;
    if (grpc::Status v = detail::CheckVersions(request->protocol_version(), request->ir_version());
        !v.ok()) {
      return v;
    }
    if (draining()) return DrainingStatus();
    auto session = sessions_->Create(request->platform(), request->client_name(), caller,
                                     request->config_overrides());
    if (!session.ok()) return ToGrpcStatus(session.status());
    session_id = (*session)->id();
    response->set_session_id(session_id);
    response->set_protocol_version(aicore::service::kProtocolVersion);
    response->set_daemon_version(AICORE_SIM_VERSION);
    *response->mutable_config() = (*session)->host().config_proto();
    return grpc::Status::OK;
  });
  log.Done(status, "session=" + ShortId(session_id) +
                       " platform=" + sim::Quoted(request->platform()) +
                       " client=" + sim::Quoted(request->client_name()) +
                       " client_version=" + sim::Quoted(request->client_version()) +
                       " protocol=" + std::to_string(request->protocol_version()));
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* SimulatorService::CloseSession(grpc::CallbackServerContext* ctx,
                                                         const svc::CloseSessionRequest* request,
                                                         svc::CloseSessionResponse* response) {
  auto* reactor = ctx->DefaultReactor();
  RequestLog log(this, ctx, "CloseSession");
  grpc::Status status = Guarded([&] {
    if (grpc::Status parsed = CheckParsed(*request); !parsed.ok()) return parsed;
    std::string caller;
    if (grpc::Status s = detail::Authenticate(this, ctx, &caller); !s.ok()) return s;
    if (request->session_id().empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "session_id is empty");
    }
    return ToGrpcStatus(sessions_->Close(request->session_id(), caller));
  });
  log.Done(status, "session=" + ShortId(request->session_id()));
  reactor->Finish(status);
  return reactor;
}

// Posts `body` onto the session's lane (as memory work) and finishes the unary RPC with its status;
// the session stays in use (cannot expire) until the body has run.
template <typename Body>
static grpc::ServerUnaryReactor* RunOnSession(SimulatorService* service,
                                              grpc::CallbackServerContext* ctx, const char* rpc,
                                              const google::protobuf::Message& request,
                                              const std::string& session_id, Body body) {
  auto* reactor = ctx->DefaultReactor();
  auto log = std::make_shared<RequestLog>(service, ctx, rpc, RequestLog::Level::kDebugWhenOk);
  SessionUse use;
  grpc::Status status = CheckParsed(request);
  if (status.ok()) status = AcquireSession(service, ctx, session_id, &use);
  if (!status.ok()) {
    log->Done(status, "session=" + ShortId(session_id));
    reactor->Finish(status);
    return reactor;
  }
  auto session = std::make_shared<SessionUse>(std::move(use));
  (*session)->lane().Post(SessionLane::Work::kMemory, [reactor, log, session, body] {
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
      this, ctx, "Malloc", *request, request->session_id(),
      [request, response, limit, service_draining](Session& session, std::string* fields) {
        if (service_draining) return DrainingStatus();
        const uint64_t used = session.device().bytes_allocated();
        *fields += " bytes=" + std::to_string(request->bytes());
        if (request->bytes() > limit || used > limit - request->bytes()) {
          return grpc::Status(
              grpc::StatusCode::RESOURCE_EXHAUSTED,
              "session memory limit: " + std::to_string(used) + " bytes allocated + " +
                  std::to_string(request->bytes()) + " requested > " + std::to_string(limit) +
                  " bytes (--session-memory-limit); free buffers or use another session");
        }
        auto address = session.Malloc(request->bytes());
        if (!address.ok()) return ToGrpcStatus(address.status());
        response->set_address(*address);
        return grpc::Status::OK;
      });
}

grpc::ServerUnaryReactor* SimulatorService::Free(grpc::CallbackServerContext* ctx,
                                                 const svc::FreeRequest* request,
                                                 svc::FreeResponse* response) {
  return RunOnSession(this, ctx, "Free", *request, request->session_id(),
                      [request](Session& session, std::string*) {
                        return ToGrpcStatus(session.Free(request->address()));
                      });
}

grpc::ServerUnaryReactor* SimulatorService::Synchronize(grpc::CallbackServerContext* ctx,
                                                        const svc::SynchronizeRequest* request,
                                                        svc::SynchronizeResponse* response) {
  // Everything of a session runs in order on its lane: reaching the lane's head means every earlier
  // launch and copy of the session (whatever its stream) has finished.
  return RunOnSession(this, ctx, "Synchronize", *request, request->session_id(),
                      [](Session&, std::string*) { return grpc::Status::OK; });
}

grpc::ServerReadReactor<svc::MemoryChunk>* SimulatorService::WriteMemory(
    grpc::CallbackServerContext* ctx, svc::WriteMemoryResponse* response) {
  return NewWriteMemoryReactor(this, ctx, response);
}

grpc::ServerWriteReactor<svc::MemoryChunk>* SimulatorService::ReadMemory(
    grpc::CallbackServerContext* ctx, const svc::ReadMemoryRequest* request) {
  return NewReadMemoryReactor(this, ctx, request);
}

grpc::ServerBidiReactor<svc::RunRequest, svc::RunResponse>* SimulatorService::Run(
    grpc::CallbackServerContext* ctx) {
  return NewRunReactor(this, ctx);
}

grpc::ServerUnaryReactor* SimulatorService::Launch(grpc::CallbackServerContext* ctx,
                                                   const svc::LaunchRequest* request,
                                                   svc::LaunchResponse* response) {
  auto* reactor = ctx->DefaultReactor();
  auto log = std::make_shared<RequestLog>(this, ctx, "Launch");
  auto fail = [&](const grpc::Status& status) {
    log->Done(status, "session=" + ShortId(request->session_id()) +
                          " kernel=" + sim::Quoted(request->kernel().name()));
    reactor->Finish(status);
    return reactor;
  };

  auto launch = std::make_shared<detail::AdmittedLaunch>();
  if (grpc::Status s = AdmitLaunch(this, ctx, *request, launch.get()); !s.ok()) return fail(s);
  (*launch->session)
      ->lane()
      .Post(SessionLane::Work::kSimulation, [this, ctx, reactor, log, launch, request, response] {
        Session& session = **launch->session;
        grpc::Status status = Guarded([&] {
          return ExecuteWatched(this, ctx, launch->deadline, &session.host(), request->kernel(),
                                request->block_dim(), launch->args, request->options(),
                                response->mutable_report(), &session.trace_bytes());
        });
        std::string fields = "session=" + ShortId(session.id()) + " ";
        fields += status.ok() ? LaunchFields(response->report())
                              : "kernel=" + sim::Quoted(request->kernel().name());
        log->Done(status, fields);
        launch->Release();
        reactor->Finish(status);
      });
  return reactor;
}

grpc::ServerWriteReactor<svc::LaunchEvent>* SimulatorService::LaunchWithProgress(
    grpc::CallbackServerContext* ctx, const svc::LaunchRequest* request) {
  return NewLaunchProgressReactor(this, ctx, request);
}

}  // namespace aicore::daemon
