// The remote transport: every Runtime call becomes an RPC to an aicore-simd daemon. One session is
// created at construction and closed in the destructor; device memory lives in that session.
// Buffers travel in 1 MiB chunks on streaming RPCs. Launch blocks until the daemon has run the
// kernel, so Synchronize only asks the daemon to drain the session's queue.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aicore/runtime.h"
#include "aicore/version.h"
#include "deep_parse.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpc_code_name.h"
#include "protocol_version.h"
#include "runtime/src/check_level.h"
#include "runtime/src/daemon_addresses.h"
#include "runtime/src/rpc_status.h"
#include "runtime/src/stream_table.h"
#include "sim/host/trace_output.h"
#include "simulator.grpc.pb.h"

namespace aicore::runtime {
namespace {

namespace svc = aicore::service::v1;

constexpr uint64_t kChunkBytes = 1 << 20;
// A daemon that refuses a launch for being busy says how long to wait (google.rpc.RetryInfo);
// the client waits about that long, growing, until the work is admitted or kMaxBusyWait has
// passed in waits, and only then reports the refusal.
constexpr auto kMaxBusyWait = std::chrono::seconds(60);
constexpr auto kMaxOneWait = std::chrono::seconds(2);
constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr auto kCloseTimeout = std::chrono::seconds(2);

// The wait a RESOURCE_EXHAUSTED status asks for, if it carries a google.rpc.RetryInfo; the limits
// that have no such hint (session memory, --max-sessions) are not retried.
std::optional<std::chrono::milliseconds> RetryDelay(const grpc::Status& status) {
  if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) return std::nullopt;
  google::rpc::Status details;
  if (status.error_details().empty() || !details.ParseFromString(status.error_details())) {
    return std::nullopt;
  }
  for (const google::protobuf::Any& any : details.details()) {
    google::rpc::RetryInfo retry;
    if (any.UnpackTo(&retry)) {
      return std::chrono::milliseconds(retry.retry_delay().seconds() * 1000 +
                                       retry.retry_delay().nanos() / 1'000'000);
    }
  }
  return std::nullopt;
}

// Runs `call` (one RPC with a fresh ClientContext each time) and retries it while the daemon
// answers busy with a retry hint: the hint, doubled each time up to kMaxOneWait, with jitter so
// clients refused together do not come back together. The last answer is returned either way.
template <typename Call>
grpc::Status CallRetryingWhenBusy(Call call) {
  thread_local std::minstd_rand jitter(std::random_device{}());
  auto waited = std::chrono::milliseconds(0);
  for (int attempt = 0;; ++attempt) {
    grpc::Status status = call();
    std::optional<std::chrono::milliseconds> hint = RetryDelay(status);
    if (!hint) return status;
    const auto grown = std::min<std::chrono::milliseconds>(
        *hint * (int64_t{1} << std::min(attempt, 8)),
        std::chrono::duration_cast<std::chrono::milliseconds>(kMaxOneWait));
    // Between half and all of the grown wait.
    const auto wait = std::chrono::milliseconds(
        grown.count() / 2 + static_cast<int64_t>(jitter() % (grown.count() / 2 + 1)));
    if (waited + wait > kMaxBusyWait) return status;
    std::this_thread::sleep_for(wait);
    waited += wait;
  }
}

class RemoteRuntime final : public Runtime {
 public:
  RemoteRuntime(std::string address, std::shared_ptr<grpc::Channel> channel, std::string token)
      : address_(std::move(address)),
        channel_(std::move(channel)),
        stub_(svc::Simulator::NewStub(channel_)),
        token_(std::move(token)) {}

  ~RemoteRuntime() override {
    if (session_id_.empty()) return;
    // Best effort: if the daemon is gone the session expires there by itself.
    grpc::ClientContext ctx;
    Authorize(&ctx);
    ctx.set_deadline(std::chrono::system_clock::now() + kCloseTimeout);
    svc::CloseSessionRequest request;
    request.set_session_id(session_id_);
    svc::CloseSessionResponse response;
    stub_->CloseSession(&ctx, request, &response);
  }

  Status Open(const std::string& platform, const std::string& config_overrides) {
    grpc::ClientContext ctx;
    Authorize(&ctx);
    ctx.set_deadline(std::chrono::system_clock::now() + kConnectTimeout);
    svc::CreateSessionRequest request;
    request.set_platform(platform);
    request.set_client_name("aicore-runtime");
    request.set_protocol_version(aicore::service::kProtocolVersion);
    request.set_ir_version(aicore::ir::v1::IR_VERSION_1);
    request.set_client_version(AICORE_SIM_VERSION);
    request.set_config_overrides(config_overrides);
    svc::CreateSessionResponse response;
    grpc::Status status = stub_->CreateSession(&ctx, request, &response);
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
        status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      unreachable_ = true;
      return Status(StatusCode::kFailedPrecondition,
                    "cannot reach the simulator daemon at " + address_ +
                        " (AICORE_SIM_ADDRESS; gRPC " + GrpcCodeName(status.error_code()) + ": " +
                        status.error_message() + "). Start one with `aicore-simd --listen " +
                        address_ + "`, or unset AICORE_SIM_ADDRESS to simulate in this process.");
    }
    if (!status.ok()) return FromGrpcStatus(status);
    if (response.session_id().empty()) {
      return Status(StatusCode::kInternal,
                    "daemon at " + address_ + " returned an empty session id");
    }
    session_id_ = response.session_id();
    platform_ = response.config().name().empty() ? platform : response.config().name();
    return Status::Ok();
  }

  // Open failed because no daemon answered at this address (another one may).
  bool unreachable() const { return unreachable_; }

  std::string transport() const override { return "remote " + address_; }
  const std::string& platform() const override { return platform_; }

  StatusOr<uint64_t> Malloc(uint64_t bytes) override {
    grpc::ClientContext ctx;
    Authorize(&ctx);
    svc::MallocRequest request;
    request.set_session_id(session_id_);
    request.set_bytes(bytes);
    svc::MallocResponse response;
    grpc::Status status = stub_->Malloc(&ctx, request, &response);
    if (!status.ok()) return Annotate(status);
    return static_cast<uint64_t>(response.address());
  }

  Status Free(uint64_t address) override {
    grpc::ClientContext ctx;
    Authorize(&ctx);
    svc::FreeRequest request;
    request.set_session_id(session_id_);
    request.set_address(address);
    svc::FreeResponse response;
    return Annotate(stub_->Free(&ctx, request, &response));
  }

  Status MemcpyToDevice(uint64_t dst, const void* src, uint64_t bytes) override {
    if (bytes == 0) return Status::Ok();
    grpc::ClientContext ctx;
    Authorize(&ctx);
    svc::WriteMemoryResponse response;
    std::unique_ptr<grpc::ClientWriter<svc::MemoryChunk>> writer =
        stub_->WriteMemory(&ctx, &response);
    const auto* bytes_in = static_cast<const char*>(src);
    svc::MemoryChunk chunk;
    chunk.set_session_id(session_id_);
    for (uint64_t offset = 0; offset < bytes; offset += kChunkBytes) {
      const uint64_t n = std::min(kChunkBytes, bytes - offset);
      chunk.set_address(dst + offset);
      chunk.set_data(bytes_in + offset, n);
      // A failed Write means the daemon ended the call early; Finish tells why.
      if (!writer->Write(chunk)) break;
    }
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (!status.ok()) return Annotate(status);
    if (response.bytes_written() != bytes) {
      return Status(StatusCode::kInternal, "daemon wrote " +
                                               std::to_string(response.bytes_written()) + " of " +
                                               std::to_string(bytes) + " bytes");
    }
    return Status::Ok();
  }

  Status MemcpyToHost(void* dst, uint64_t src, uint64_t bytes) override {
    if (bytes == 0) return Status::Ok();
    grpc::ClientContext ctx;
    Authorize(&ctx);
    svc::ReadMemoryRequest request;
    request.set_session_id(session_id_);
    request.set_address(src);
    request.set_bytes(bytes);
    request.set_chunk_bytes(kChunkBytes);
    std::unique_ptr<grpc::ClientReader<svc::MemoryChunk>> reader = stub_->ReadMemory(&ctx, request);
    auto* out = static_cast<char*>(dst);
    uint64_t received = 0;
    svc::MemoryChunk chunk;
    std::string protocol_error;
    while (reader->Read(&chunk)) {
      const uint64_t offset = chunk.address() - src;
      if (chunk.address() < src || offset > bytes || chunk.data().size() > bytes - offset) {
        protocol_error = "daemon sent a chunk outside the requested range";
        ctx.TryCancel();
        continue;  // drain until Finish
      }
      std::memcpy(out + offset, chunk.data().data(), chunk.data().size());
      received += chunk.data().size();
    }
    grpc::Status status = reader->Finish();
    if (!protocol_error.empty()) return Status(StatusCode::kInternal, protocol_error);
    if (!status.ok()) return Annotate(status);
    if (received != bytes) {
      return Status(StatusCode::kInternal, "daemon returned " + std::to_string(received) + " of " +
                                               std::to_string(bytes) + " bytes");
    }
    return Status::Ok();
  }

  StatusOr<uint32_t> CreateStream() override { return streams_.Create(); }
  Status DestroyStream(uint32_t stream) override { return streams_.Destroy(stream); }

  StatusOr<std::string> Launch(const std::string& kernel_ir, uint32_t block_dim,
                               const std::vector<ArgValue>& args, uint32_t stream,
                               const LaunchSettings& settings) override {
    if (Status s = streams_.Check(stream); !s.ok()) return s;
    StatusOr<CheckLevel> check = ResolveCheckLevel(settings.check);
    if (!check.ok()) return check.status();
    svc::LaunchRequest request;
    request.set_session_id(session_id_);
    request.set_stream_id(stream);
    if (!aicore::ir::ParseDeep(kernel_ir, request.mutable_kernel())) {
      return Status(
          StatusCode::kInvalidArgument,
          "kernel IR is not a valid serialized aicore.ir.v1.Kernel message (protobuf parse "
          "failed; " +
              std::to_string(kernel_ir.size()) + " bytes)");
    }
    request.set_block_dim(block_dim);
    for (const ArgValue& arg : args) {
      svc::KernelArg* out = request.add_args();
      switch (arg.kind) {
        case ArgValue::Kind::kInt:
          out->set_int_value(arg.int_value);
          break;
        case ArgValue::Kind::kFloat:
          out->set_float_value(arg.float_value);
          break;
        case ArgValue::Kind::kAddress:
          out->set_address(arg.address);
          break;
      }
    }
    request.mutable_options()->set_max_cycles(settings.max_cycles);
    request.mutable_options()->set_timing_only(settings.timing_only);
    // kDefault stays unspecified: the daemon's --check decides (runtime levels are the proto's).
    static_assert(static_cast<int>(CheckLevel::kStrictAll) == aicore::report::v1::CHECK_STRICT_ALL);
    request.mutable_options()->set_check(static_cast<aicore::report::v1::CheckLevel>(*check));
    // settings.trace_dir is a folder on this host: the daemon only returns the timeline, and the
    // files are written here (LaunchOptions.trace_dir would write on the daemon's host).
    request.mutable_options()->set_record_timeline(settings.record_timeline ||
                                                   !settings.trace_dir.empty());
    svc::LaunchResponse response;
    grpc::Status status = CallRetryingWhenBusy([&] {
      grpc::ClientContext ctx;
      Authorize(&ctx);
      response.Clear();
      return stub_->Launch(&ctx, request, &response);
    });
    if (!status.ok()) return Annotate(status);
    if (!settings.trace_dir.empty()) {
      auto written = sim::WriteLaunchTrace(response.report(), settings.trace_dir);
      if (!written.ok()) {
        return Status(static_cast<StatusCode>(written.status().code()), written.status().message());
      }
      if (!settings.record_timeline) response.mutable_report()->clear_timeline();
    }
    std::string bytes;
    if (!response.report().SerializeToString(&bytes)) {
      return Status(StatusCode::kInternal, "cannot serialize LaunchReport");
    }
    return bytes;
  }

  Status Synchronize(uint32_t stream) override {
    if (Status s = streams_.Check(stream); !s.ok()) return s;
    grpc::ClientContext ctx;
    Authorize(&ctx);
    svc::SynchronizeRequest request;
    request.set_session_id(session_id_);
    request.set_stream_id(stream);
    svc::SynchronizeResponse response;
    return Annotate(stub_->Synchronize(&ctx, request, &response));
  }

 private:
  // Losing the daemon mid-session deserves the same hint as failing to reach it at start.
  Status Annotate(const grpc::Status& status) {
    if (status.ok()) return Status::Ok();
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      return Status(StatusCode::kFailedPrecondition,
                    "lost the simulator daemon at " + address_ + " (gRPC UNAVAILABLE: " +
                        status.error_message() + "); its session and device memory are gone");
    }
    return FromGrpcStatus(status);
  }

  // A daemon started with --token-file wants `authorization: Bearer <token>` on every call
  // (set per call: gRPC sends channel call-credentials only over TLS).
  void Authorize(grpc::ClientContext* ctx) const {
    if (!token_.empty()) ctx->AddMetadata("authorization", "Bearer " + token_);
  }

  const std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<svc::Simulator::Stub> stub_;
  const std::string token_;  // AICORE_SIM_TOKEN
  std::string session_id_;
  std::string platform_;
  StreamTable streams_;
  bool unreachable_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<Runtime>> Runtime::CreateRemote(const std::string& platform,
                                                         const std::string& address,
                                                         const std::string& config_overrides) {
  StatusOr<std::vector<std::string>> daemons = ParseDaemonAddresses(address);
  if (!daemons.ok()) return daemons.status();
  grpc::ChannelArguments args;
  // Buffers are chunked at 1 MiB, but a launch carries the whole kernel IR and report.
  args.SetMaxReceiveMessageSize(64 << 20);
  args.SetMaxSendMessageSize(64 << 20);
  // AICORE_SIM_TLS_CA=FILE: talk TLS, trusting the daemon's certificate chain in FILE (PEM).
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (const char* ca = std::getenv("AICORE_SIM_TLS_CA"); ca != nullptr && *ca != '\0') {
    std::ifstream in(ca, std::ios::binary);
    if (!in) {
      return Status(StatusCode::kInvalidArgument,
                    std::string("AICORE_SIM_TLS_CA names ") + ca +
                        ", which cannot be read; give the PEM file of the daemon's CA");
    }
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    credentials = grpc::SslCredentials(ssl);
  }
  const char* token = std::getenv("AICORE_SIM_TOKEN");
  // The session goes to the next daemon of the round robin, or the first after it that answers.
  Status first_failure = Status::Ok();
  std::vector<std::string> unreachable;
  for (const std::string& daemon : SessionOrder(*daemons)) {
    auto channel = grpc::CreateCustomChannel(daemon, credentials, args);
    auto runtime =
        std::make_unique<RemoteRuntime>(daemon, std::move(channel), token == nullptr ? "" : token);
    Status s = runtime->Open(platform, config_overrides);
    if (s.ok()) return std::unique_ptr<Runtime>(std::move(runtime));
    if (!runtime->unreachable()) return s;  // the daemon answered: its answer stands
    if (first_failure.ok()) first_failure = s;
    unreachable.push_back(daemon);
  }
  if (unreachable.size() == 1) return first_failure;
  std::string list;
  for (const std::string& d : unreachable) list += (list.empty() ? "" : ", ") + d;
  return Status(StatusCode::kFailedPrecondition,
                "none of the " + std::to_string(unreachable.size()) +
                    " simulator daemons in AICORE_SIM_ADDRESS answers (" + list +
                    "); the first said: " + first_failure.message());
}

}  // namespace aicore::runtime
