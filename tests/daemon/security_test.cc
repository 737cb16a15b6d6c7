// End-to-end tests of the daemon's authentication and transport security (issue 21): bearer
// tokens from --token-file, sessions bound to the token that opened them, the runtime's
// AICORE_SIM_TOKEN, and TLS from --tls-cert/--tls-key with the runtime's AICORE_SIM_TLS_CA.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "aicore/runtime.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/test_client.h"
#include "tests/daemon/test_kernels.h"

namespace aicore::testing {
namespace {

constexpr char kAliceToken[] = "alice-0123456789abcdef";
constexpr char kBobToken[] = "bob-fedcba9876543210";

std::filesystem::path TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

grpc::Status CreateSessionAs(svc::Simulator::Stub* stub, const std::string& token,
                             std::string* id) {
  grpc::ClientContext ctx;
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  svc::CreateSessionRequest request;
  svc::CreateSessionResponse response;
  grpc::Status status = stub->CreateSession(&ctx, request, &response);
  *id = response.session_id();
  return status;
}

grpc::Status MallocAs(svc::Simulator::Stub* stub, const std::string& token,
                      const std::string& session, uint64_t* address) {
  grpc::ClientContext ctx;
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  svc::MallocRequest request;
  request.set_session_id(session);
  request.set_bytes(4096);
  svc::MallocResponse response;
  grpc::Status status = stub->Malloc(&ctx, request, &response);
  *address = response.address();
  return status;
}

grpc::Status ReadAs(svc::Simulator::Stub* stub, const std::string& token,
                    const std::string& session, uint64_t address) {
  grpc::ClientContext ctx;
  if (!token.empty()) ctx.AddMetadata("authorization", "Bearer " + token);
  svc::ReadMemoryRequest request;
  request.set_session_id(session);
  request.set_address(address);
  request.set_bytes(64);
  auto reader = stub->ReadMemory(&ctx, request);
  svc::MemoryChunk chunk;
  while (reader->Read(&chunk)) {
  }
  return reader->Finish();
}

TEST(SecurityTest, TokensAuthenticateAndASessionBelongsToItsToken) {
  const auto dir = TempDir("aicore_tokens");
  const auto file = dir / "tokens";
  std::ofstream(file) << "# farm tokens\nalice:" << kAliceToken << "\nbob:" << kBobToken << "\n";
  DaemonProcess daemon({"--token-file", file.string()});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  auto channel = grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials());
  auto stub = svc::Simulator::NewStub(channel);

  std::string id;
  grpc::Status none = CreateSessionAs(stub.get(), "", &id);
  EXPECT_EQ(none.error_code(), StatusCode::UNAUTHENTICATED) << none.error_message();
  EXPECT_NE(none.error_message().find("AICORE_SIM_TOKEN"), std::string::npos);
  grpc::Status wrong = CreateSessionAs(stub.get(), "not-a-token-of-this-daemon", &id);
  EXPECT_EQ(wrong.error_code(), StatusCode::UNAUTHENTICATED) << wrong.error_message();

  std::string alices;
  ASSERT_TRUE(CreateSessionAs(stub.get(), kAliceToken, &alices).ok());
  uint64_t address = 0;
  ASSERT_TRUE(MallocAs(stub.get(), kAliceToken, alices, &address).ok());
  EXPECT_TRUE(ReadAs(stub.get(), kAliceToken, alices, address).ok());
  // Bob's valid token does not reach Alice's session: it looks like no session at all.
  EXPECT_EQ(ReadAs(stub.get(), kBobToken, alices, address).error_code(), StatusCode::NOT_FOUND);
  uint64_t ignored = 0;
  EXPECT_EQ(MallocAs(stub.get(), kBobToken, alices, &ignored).error_code(), StatusCode::NOT_FOUND);
  EXPECT_EQ(ReadAs(stub.get(), "", alices, address).error_code(), StatusCode::UNAUTHENTICATED);

  // The runtime sends AICORE_SIM_TOKEN.
  ::setenv("AICORE_SIM_TOKEN", kBobToken, 1);
  auto runtime = runtime::Runtime::CreateRemote("", daemon.address());
  ::unsetenv("AICORE_SIM_TOKEN");
  ASSERT_TRUE(runtime.ok()) << runtime.status().message();
  std::string ir_bytes;
  ASSERT_TRUE(SpinKernel(10).SerializeToString(&ir_bytes));
  auto report = (*runtime)->Launch(ir_bytes, 1, {}, 0, runtime::LaunchSettings{});
  EXPECT_TRUE(report.ok()) << report.status().message();
  std::filesystem::remove_all(dir);
}

TEST(SecurityTest, TlsServesClientsThatTrustItsCertificateOnly) {
  const auto dir = TempDir("aicore_tls");
  const std::string cert = (dir / "cert.pem").string();
  const std::string key = (dir / "key.pem").string();
  const std::string command =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
      "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " > /dev/null 2>&1";
  // openssl comes from scripts/setup-deps.sh: a failure here is a set-up gap, not a skip.
  ASSERT_EQ(std::system(command.c_str()), 0)
      << "openssl could not make a self-signed certificate (" << command
      << "): is the Debian package openssl installed? `make deps` installs it";
  DaemonProcess daemon({"--tls-cert", cert, "--tls-key", key});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();

  std::ifstream in(cert);
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  auto secure =
      svc::Simulator::NewStub(grpc::CreateChannel(daemon.address(), grpc::SslCredentials(ssl)));
  std::string id;
  grpc::Status status = CreateSessionAs(secure.get(), "", &id);
  EXPECT_TRUE(status.ok()) << status.error_message();

  auto plain = svc::Simulator::NewStub(
      grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  svc::CreateSessionRequest request;
  svc::CreateSessionResponse response;
  EXPECT_FALSE(plain->CreateSession(&ctx, request, &response).ok());

  // The runtime with AICORE_SIM_TLS_CA.
  ::setenv("AICORE_SIM_TLS_CA", cert.c_str(), 1);
  auto runtime = runtime::Runtime::CreateRemote("", daemon.address());
  ::unsetenv("AICORE_SIM_TLS_CA");
  EXPECT_TRUE(runtime.ok()) << runtime.status().message();
  std::filesystem::remove_all(dir);
}

TEST(SecurityTest, TracesStopAtTheSessionsTraceQuota) {
  const auto root = TempDir("aicore_trace_quota");
  DaemonProcess daemon({"--trace-root", root.string(), "--trace-quota", "1"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  auto traced = [&](const std::string& folder) {
    grpc::ClientContext ctx;
    svc::LaunchRequest request;
    request.set_session_id(session);
    *request.mutable_kernel() = SpinKernel(10);
    request.set_block_dim(1);
    request.mutable_options()->set_trace_dir(folder);
    svc::LaunchResponse response;
    return client.stub()->Launch(&ctx, request, &response);
  };
  // Under the quota (nothing written yet) the trace is written; then the session is over it.
  grpc::Status first = traced("first");
  ASSERT_TRUE(first.ok()) << first.error_message();
  EXPECT_TRUE(std::filesystem::exists(root / "first"));
  grpc::Status second = traced("second");
  EXPECT_EQ(second.error_code(), StatusCode::RESOURCE_EXHAUSTED) << second.error_message();
  EXPECT_NE(second.error_message().find("--trace-quota"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(root / "second"));
  // A launch without a trace still runs.
  EXPECT_TRUE(client.Launch(session, SpinKernel(10), 1, {}, nullptr).ok());
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace aicore::testing
