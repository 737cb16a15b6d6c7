// What the daemon's end-to-end tests share: a raw gRPC client of one daemon with helpers that
// assert on transport-level success, log waits (order of events, not timing), and the spin
// calibration that keeps a simulation in flight long enough for a test to act on it.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "health.grpc.pb.h"
#include "report.pb.h"
#include "simulator.grpc.pb.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/test_kernels.h"

namespace aicore::testing {

namespace svc = aicore::service::v1;
namespace ir = aicore::ir::v1;
using aicore::report::v1::LaunchReport;
using grpc::StatusCode;

inline std::vector<float> Iota(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

inline std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

inline size_t CountOf(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// Waits until the daemon's log contains `needle` at least `count` times (at --log-level debug
// the daemon logs each RPC as it starts); false after `timeout`.
inline bool WaitForLog(const DaemonProcess& daemon, const std::string& needle, size_t count = 1,
                       std::chrono::seconds timeout = std::chrono::seconds(30)) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < give_up) {
    if (CountOf(daemon.Stderr(), needle) >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A gRPC client of one daemon with helpers that assert on transport-level success.
class Client {
 public:
  explicit Client(const std::string& address)
      : channel_(grpc::CreateChannel(address, grpc::InsecureChannelCredentials())),
        stub_(svc::Simulator::NewStub(channel_)),
        health_(grpc::health::v1::Health::NewStub(channel_)) {}

  svc::Simulator::Stub* stub() { return stub_.get(); }

  grpc::Status Health(grpc::health::v1::HealthCheckResponse* response) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::health::v1::HealthCheckRequest request;
    return health_->Check(&ctx, request, response);
  }

  grpc::Status CreateSession(std::string* id, const std::string& platform = "") {
    grpc::ClientContext ctx;
    svc::CreateSessionRequest request;
    request.set_platform(platform);
    request.set_client_name("daemon_test");
    svc::CreateSessionResponse response;
    grpc::Status status = stub_->CreateSession(&ctx, request, &response);
    *id = response.session_id();
    return status;
  }

  grpc::Status Malloc(const std::string& session, uint64_t bytes, uint64_t* address) {
    grpc::ClientContext ctx;
    svc::MallocRequest request;
    request.set_session_id(session);
    request.set_bytes(bytes);
    svc::MallocResponse response;
    grpc::Status status = stub_->Malloc(&ctx, request, &response);
    *address = response.address();
    return status;
  }

  grpc::Status Write(const std::string& session, uint64_t address, const std::string& data,
                     size_t chunk_bytes = 1 << 20) {
    grpc::ClientContext ctx;
    svc::WriteMemoryResponse response;
    auto writer = stub_->WriteMemory(&ctx, &response);
    for (size_t offset = 0; offset < data.size(); offset += chunk_bytes) {
      svc::MemoryChunk chunk;
      chunk.set_session_id(session);
      chunk.set_address(address + offset);
      chunk.set_data(data.substr(offset, chunk_bytes));
      if (!writer->Write(chunk)) break;
    }
    writer->WritesDone();
    grpc::Status status = writer->Finish();
    if (status.ok() && response.bytes_written() != data.size()) {
      return {StatusCode::INTERNAL, "short write"};
    }
    return status;
  }

  // Reads `bytes` at `address`; `chunks` counts the messages received.
  grpc::Status Read(const std::string& session, uint64_t address, uint64_t bytes, std::string* out,
                    int* chunks = nullptr, uint32_t chunk_bytes = 0) {
    grpc::ClientContext ctx;
    svc::ReadMemoryRequest request;
    request.set_session_id(session);
    request.set_address(address);
    request.set_bytes(bytes);
    request.set_chunk_bytes(chunk_bytes);
    auto reader = stub_->ReadMemory(&ctx, request);
    out->assign(bytes, '\0');
    svc::MemoryChunk chunk;
    int count = 0;
    while (reader->Read(&chunk)) {
      ++count;
      EXPECT_GE(chunk.address(), address);
      EXPECT_LE(chunk.address() - address + chunk.data().size(), bytes);
      if (chunk.address() >= address && chunk.address() - address + chunk.data().size() <= bytes) {
        out->replace(chunk.address() - address, chunk.data().size(), chunk.data());
      }
    }
    if (chunks != nullptr) *chunks = count;
    return reader->Finish();
  }

  grpc::Status Launch(const std::string& session, const ir::Kernel& kernel, uint32_t block_dim,
                      const std::vector<uint64_t>& addresses, LaunchReport* report) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    svc::LaunchRequest request;
    request.set_session_id(session);
    *request.mutable_kernel() = kernel;
    request.set_block_dim(block_dim);
    for (uint64_t a : addresses) request.add_args()->set_address(a);
    // The standing rule: the test kernels run clean under strict checking.
    request.mutable_options()->set_check(aicore::report::v1::CHECK_STRICT);
    svc::LaunchResponse response;
    grpc::Status status = stub_->Launch(&ctx, request, &response);
    if (status.ok() && response.report().status() == LaunchReport::OK) {
      EXPECT_FALSE(response.report().check().failed()) << response.report().check().summary();
    }
    if (report != nullptr) *report = response.report();
    return status;
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<svc::Simulator::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

// Iterations of SpinKernel that keep one simulation busy for about `seconds` on this machine,
// measured rather than assumed so the tests that need a launch in flight hold whatever the
// simulator's speed. Daemons running such launches use --max-cycles 0.
inline int64_t CalibrateSpin(Client* client, const std::string& session, double seconds) {
  constexpr int64_t kProbe = 100'000;
  const auto start = std::chrono::steady_clock::now();
  LaunchReport report;
  EXPECT_TRUE(client->Launch(session, SpinKernel(kProbe), 1, {}, &report).ok());
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double iterations = kProbe * seconds / std::max(elapsed, 1e-4);
  return static_cast<int64_t>(std::clamp(iterations, 1e5, 1e9));
}

// GET http://127.0.0.1:port/path with a plain socket; the whole response (status line, headers,
// body), or "" when the connection fails.
std::string HttpGet(int port, const std::string& path);

// The port of the daemon's metrics endpoint, from its `event=metrics listen=` log line; 0 if the
// line did not appear.
int MetricsPort(const DaemonProcess& daemon);

// The value of the sample `series` (e.g. `aicore_inflight_launches` or
// `aicore_memory_bytes{kind="device"}`) in a Prometheus text scrape; NaN when absent.
double MetricValue(const std::string& scrape, const std::string& series);

}  // namespace aicore::testing
