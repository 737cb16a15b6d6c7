// End-to-end tests of aicore-simd: each suite starts the real daemon binary on 127.0.0.1 with
// port 0 and talks to it over gRPC, with the raw service stubs (to reach every status code) and
// through the C++ Runtime (to compare the embedded and remote transports bit for bit).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "aicore/runtime.h"
#include "aicore/version.h"
#include "health.grpc.pb.h"
#include "report.pb.h"
#include "simulator.grpc.pb.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/test_client.h"
#include "tests/daemon/test_kernels.h"

namespace aicore::testing {
namespace {

namespace svc = aicore::service::v1;
namespace ir = aicore::ir::v1;
using aicore::report::v1::LaunchReport;
using grpc::StatusCode;

constexpr uint32_t kVaddElemsPerCore = 2048;
constexpr uint32_t kVaddCores = 2;

// Most tests share one daemon; those that need special flags start their own.
class DaemonTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { daemon_ = new DaemonProcess(); }
  static void TearDownTestSuite() {
    delete daemon_;
    daemon_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(daemon_->started()) << "first line: '" << daemon_->first_line() << "'\n"
                                    << daemon_->Stderr();
    client_ = std::make_unique<Client>(daemon_->address());
  }
  void ExpectServing() {
    grpc::health::v1::HealthCheckResponse response;
    ASSERT_TRUE(client_->Health(&response).ok()) << daemon_->Stderr();
    EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  }

  static DaemonProcess* daemon_;
  std::unique_ptr<Client> client_;
};

DaemonProcess* DaemonTest::daemon_ = nullptr;

TEST_F(DaemonTest, FirstLineNamesTheBoundPort) {
  EXPECT_EQ(daemon_->first_line(), "listening on " + daemon_->address());
}

TEST_F(DaemonTest, HealthCheckIsServing) { ExpectServing(); }

TEST_F(DaemonTest, WriteThenReadRoundTripsInSeveralChunks) {
  std::string session;
  ASSERT_TRUE(client_->CreateSession(&session).ok());
  EXPECT_EQ(session.size(), 32u);  // 128 random bits in hex
  const std::string data = RandomBytes((3 << 20) + 12345, 1);
  uint64_t address = 0;
  ASSERT_TRUE(client_->Malloc(session, data.size(), &address).ok());
  ASSERT_TRUE(client_->Write(session, address, data).ok());

  std::string back;
  int chunks = 0;
  grpc::Status status = client_->Read(session, address, data.size(), &back, &chunks);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(chunks, 4);  // 1 MiB default chunks
  EXPECT_TRUE(back == data);

  // A client-chosen chunk size is honoured too.
  ASSERT_TRUE(client_->Read(session, address + 100, 1000, &back, &chunks, 300).ok());
  EXPECT_EQ(chunks, 4);
  EXPECT_TRUE(back == data.substr(100, 1000));
}

TEST_F(DaemonTest, AWritePastItsAllocationIsRefusedAndTheNextAllocationKeepsItsBytes) {
  // 2 MiB + 16 B into a 4 KiB buffer once overwrote the start of the session's next allocation.
  std::string session;
  ASSERT_TRUE(client_->CreateSession(&session).ok());
  uint64_t small = 0, next = 0;
  ASSERT_TRUE(client_->Malloc(session, 4096, &small).ok());
  ASSERT_TRUE(client_->Malloc(session, 64, &next).ok());
  const std::string mark = RandomBytes(64, 3);
  ASSERT_TRUE(client_->Write(session, next, mark).ok());
  grpc::Status refused = client_->Write(session, small, RandomBytes((2 << 20) + 16, 4));
  EXPECT_EQ(refused.error_code(), StatusCode::INVALID_ARGUMENT) << refused.error_message();
  EXPECT_NE(refused.error_message().find("past the allocation it starts in"), std::string::npos)
      << refused.error_message();
  std::string back;
  ASSERT_TRUE(client_->Read(session, next, mark.size(), &back).ok());
  EXPECT_TRUE(back == mark);
  grpc::Status read_over = client_->Read(session, small, 4097, &back);
  EXPECT_EQ(read_over.error_code(), StatusCode::INVALID_ARGUMENT) << read_over.error_message();
  // One call stays in the allocation it starts in, even when a chunk starts exactly at the
  // next allocation's base: a 2 MiB buffer fills its block, so `after` follows it directly.
  uint64_t full = 0, after = 0;
  ASSERT_TRUE(client_->Malloc(session, uint64_t{2} << 20, &full).ok());
  ASSERT_TRUE(client_->Malloc(session, 64, &after).ok());
  ASSERT_EQ(after - full, uint64_t{2} << 20);
  ASSERT_TRUE(client_->Write(session, after, mark).ok());
  grpc::Status spans = client_->Write(session, after - 4096, std::string(4096 + 64, 'z'), 4096);
  EXPECT_EQ(spans.error_code(), StatusCode::INVALID_ARGUMENT) << spans.error_message();
  ASSERT_TRUE(client_->Read(session, after, mark.size(), &back).ok());
  EXPECT_TRUE(back == mark);
}

TEST_F(DaemonTest, AnInt32ArgumentThatDoesNotFitIsInvalidArgument) {
  // 2^32 + 64 for an int32 parameter once ran as 64 with the report saying OK.
  std::string session;
  ASSERT_TRUE(client_->CreateSession(&session).ok());
  for (const int64_t value : {(int64_t{1} << 32) + 64, int64_t{1} << 62}) {
    grpc::ClientContext ctx;
    svc::LaunchRequest request;
    request.set_session_id(session);
    *request.mutable_kernel() = Int32ParamKernel();
    request.set_block_dim(1);
    request.add_args()->set_int_value(value);
    svc::LaunchResponse response;
    grpc::Status status = client_->stub()->Launch(&ctx, request, &response);
    EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_NE(status.error_message().find("(n) is DT_INT32"), std::string::npos)
        << status.error_message();
    EXPECT_NE(status.error_message().find(std::to_string(value)), std::string::npos)
        << status.error_message();
  }
  LaunchReport report;
  grpc::ClientContext ctx;
  svc::LaunchRequest request;
  request.set_session_id(session);
  *request.mutable_kernel() = Int32ParamKernel();
  request.set_block_dim(1);
  request.add_args()->set_int_value(-(int64_t{1} << 31));
  svc::LaunchResponse response;
  grpc::Status fits = client_->stub()->Launch(&ctx, request, &response);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
  EXPECT_EQ(response.report().status(), LaunchReport::OK);
}

TEST_F(DaemonTest, SessionsCannotTouchEachOthersMemory) {
  std::string a, b;
  ASSERT_TRUE(client_->CreateSession(&a).ok());
  ASSERT_TRUE(client_->CreateSession(&b).ok());
  ASSERT_NE(a, b);
  const std::string secret = RandomBytes(4096, 2);
  uint64_t address = 0;
  ASSERT_TRUE(client_->Malloc(a, secret.size(), &address).ok());
  ASSERT_TRUE(client_->Write(a, address, secret).ok());

  std::string stolen;
  grpc::Status read = client_->Read(b, address, secret.size(), &stolen);
  EXPECT_TRUE(read.error_code() == StatusCode::NOT_FOUND ||
              read.error_code() == StatusCode::INVALID_ARGUMENT)
      << read.error_code() << " " << read.error_message();
  EXPECT_TRUE(stolen.find(secret.substr(0, 64)) == std::string::npos);
  EXPECT_FALSE(client_->Write(b, address, std::string(16, 'x')).ok());

  grpc::ClientContext ctx;
  svc::FreeRequest free_request;
  free_request.set_session_id(b);
  free_request.set_address(address);
  svc::FreeResponse free_response;
  EXPECT_FALSE(client_->stub()->Free(&ctx, free_request, &free_response).ok());

  std::string mine;
  ASSERT_TRUE(client_->Read(a, address, secret.size(), &mine).ok());
  EXPECT_TRUE(mine == secret);  // untouched by b's attempts
}

TEST_F(DaemonTest, UnknownOrClosedSessionIsNotFound) {
  uint64_t address = 0;
  EXPECT_EQ(client_->Malloc("0123456789abcdef0123456789abcdef", 64, &address).error_code(),
            StatusCode::NOT_FOUND);
  EXPECT_EQ(client_->Malloc("", 64, &address).error_code(), StatusCode::INVALID_ARGUMENT);

  std::string session;
  ASSERT_TRUE(client_->CreateSession(&session).ok());
  grpc::ClientContext ctx;
  svc::CloseSessionRequest request;
  request.set_session_id(session);
  svc::CloseSessionResponse response;
  ASSERT_TRUE(client_->stub()->CloseSession(&ctx, request, &response).ok());
  EXPECT_EQ(client_->Malloc(session, 64, &address).error_code(), StatusCode::NOT_FOUND);
}

TEST_F(DaemonTest, VersionsAreCheckedWhenASessionOpensAndReportsCarryThem) {
  svc::CreateSessionResponse response;
  {
    grpc::ClientContext ctx;
    svc::CreateSessionRequest request;  // protocol 0: a client from before versioning
    ASSERT_TRUE(client_->stub()->CreateSession(&ctx, request, &response).ok());
    EXPECT_EQ(response.protocol_version(), 1u);
    EXPECT_EQ(response.daemon_version(), AICORE_SIM_VERSION);
  }
  {
    grpc::ClientContext ctx;
    svc::CreateSessionRequest request;
    request.set_protocol_version(99);
    svc::CreateSessionResponse refused;
    grpc::Status status = client_->stub()->CreateSession(&ctx, request, &refused);
    EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(status.error_message().find("upgrade the daemon"), std::string::npos)
        << status.error_message();
  }
  {
    grpc::ClientContext ctx;
    svc::CreateSessionRequest request;
    request.set_ir_version(static_cast<ir::IrVersion>(7));
    svc::CreateSessionResponse refused;
    grpc::Status status = client_->stub()->CreateSession(&ctx, request, &refused);
    EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);
    EXPECT_NE(status.error_message().find("IR version 7"), std::string::npos)
        << status.error_message();
  }
  LaunchReport report;
  ASSERT_TRUE(client_->Launch(response.session_id(), SpinKernel(10), 1, {}, &report).ok());
  EXPECT_EQ(report.simulator_version(), AICORE_SIM_VERSION);
  EXPECT_EQ(report.config_hash().size(), 16u);
}

TEST_F(DaemonTest, UnknownPlatformIsRejected) {
  std::string session;
  grpc::Status status = client_->CreateSession(&session, "NoSuchChip");
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("NoSuchChip"), std::string::npos) << status.error_message();
  // A 100 KB name with a NUL: the answer stays small, escaped, and fits the client's metadata.
  std::string huge(100 * 1024, 'p');
  huge[10] = '\0';
  grpc::Status big = client_->CreateSession(&session, huge);
  EXPECT_EQ(big.error_code(), StatusCode::INVALID_ARGUMENT) << big.error_message().size();
  EXPECT_LT(big.error_message().size(), 1000u);
  EXPECT_NE(big.error_message().find("\\x00"), std::string::npos) << big.error_message();
}

TEST_F(DaemonTest, MalformedKernelsAreInvalidArgumentAndTheDaemonKeepsServing) {
  std::string session;
  ASSERT_TRUE(client_->CreateSession(&session).ok());
  uint64_t x = 0;
  ASSERT_TRUE(client_->Malloc(session, 1 << 16, &x).ok());

  // Random bytes: whatever parses as a Kernel message must be rejected by the validator.
  int parsed = 0;
  for (uint32_t seed = 0; seed < 200; ++seed) {
    ir::Kernel kernel;
    if (!kernel.ParseFromString(RandomBytes(16 + seed % 64, seed))) continue;
    ++parsed;
    grpc::Status status = client_->Launch(session, kernel, 1, {x, x, x}, nullptr);
    EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT)
        << "seed " << seed << ": " << status.error_message();
  }
  EXPECT_GT(parsed, 0);

  // Unknown enum values (proto3 keeps them): IR version, memory space, vector op kind.
  ir::Kernel bad_version = VaddKernel(64);
  bad_version.set_version(static_cast<ir::IrVersion>(77));
  ir::Kernel bad_space = VaddKernel(64);
  for (ir::Op& op : *bad_space.mutable_body()->mutable_ops()) {
    if (op.has_data_copy())
      op.mutable_data_copy()->mutable_dst()->set_space(static_cast<ir::MemSpace>(42));
  }
  ir::Kernel bad_kind = VaddKernel(64);
  for (ir::Op& op : *bad_kind.mutable_body()->mutable_ops()) {
    if (op.has_vec_binary())
      op.mutable_vec_binary()->set_kind(static_cast<ir::VecBinaryOp::Kind>(99));
  }
  // Undefined SSA ids: an operand beyond num_values, and one in range but never defined.
  ir::Kernel out_of_range = VaddKernel(64);
  for (ir::Op& op : *out_of_range.mutable_body()->mutable_ops()) {
    if (op.has_vec_binary()) op.mutable_vec_binary()->set_count(out_of_range.num_values() + 5);
  }
  ir::Kernel undefined = VaddKernel(64);
  undefined.set_num_values(undefined.num_values() + 1);
  for (ir::Op& op : *undefined.mutable_body()->mutable_ops()) {
    if (op.has_scalar_binary()) {
      op.mutable_scalar_binary()->set_lhs(undefined.num_values());
      break;
    }
  }
  for (const ir::Kernel* kernel :
       {&bad_version, &bad_space, &bad_kind, &out_of_range, &undefined}) {
    grpc::Status status = client_->Launch(session, *kernel, kVaddCores, {x, x, x}, nullptr);
    EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_FALSE(status.error_message().empty());
  }

  // A launch argument with no value set.
  {
    grpc::ClientContext ctx;
    svc::LaunchRequest request;
    request.set_session_id(session);
    *request.mutable_kernel() = VaddKernel(64);
    request.set_block_dim(1);
    request.add_args();
    svc::LaunchResponse response;
    EXPECT_EQ(client_->stub()->Launch(&ctx, request, &response).error_code(),
              StatusCode::INVALID_ARGUMENT);
  }

  ExpectServing();
  LaunchReport report;
  grpc::Status ok =
      client_->Launch(session, VaddKernel(64), kVaddCores, {x, x + 4096, x + 8192}, &report);
  EXPECT_TRUE(ok.ok()) << ok.error_message() << "\n" << daemon_->Stderr();
}

TEST_F(DaemonTest, DeadlockIsAReportNotAnRpcError) {
  std::string session;
  ASSERT_TRUE(client_->CreateSession(&session).ok());
  uint64_t x = 0;
  ASSERT_TRUE(client_->Malloc(session, 4096, &x).ok());
  LaunchReport report;
  grpc::Status status = client_->Launch(session, DeadlockKernel(), 1, {x}, &report);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(report.status(), LaunchReport::DEADLOCK);
  EXPECT_GT(report.diagnostics_size(), 0);
  ExpectServing();
  std::string back;
  EXPECT_TRUE(client_->Read(session, x, 4096, &back).ok());
}

// The same kernel through the embedded Runtime (in this process) and the remote Runtime (this
// daemon) must give identical output bytes, cycles and reports: both host the same sim code.
TEST_F(DaemonTest, EmbeddedAndRemoteRuntimesAgreeBitForBit) {
  const size_t n = kVaddElemsPerCore * kVaddCores;
  const std::vector<float> x = Iota(n, 0.5f, 0.25f);
  const std::vector<float> y = Iota(n, -3.0f, 1.125f);
  const std::string kernel = VaddKernel(kVaddElemsPerCore).SerializeAsString();

  auto run = [&](runtime::Runtime* rt, std::vector<float>* z, std::string* report) {
    const uint64_t bytes = n * sizeof(float);
    auto dx = rt->Malloc(bytes), dy = rt->Malloc(bytes), dz = rt->Malloc(bytes);
    ASSERT_TRUE(dx.ok() && dy.ok() && dz.ok());
    ASSERT_TRUE(rt->MemcpyToDevice(*dx, x.data(), bytes).ok());
    ASSERT_TRUE(rt->MemcpyToDevice(*dy, y.data(), bytes).ok());
    auto result = rt->Launch(kernel, kVaddCores,
                             {runtime::ArgValue::Address(*dx), runtime::ArgValue::Address(*dy),
                              runtime::ArgValue::Address(*dz)},
                             0, runtime::LaunchSettings{});
    ASSERT_TRUE(result.ok()) << result.status().message();
    *report = *result;
    ASSERT_TRUE(rt->Synchronize(0).ok());
    z->assign(n, 0.0f);
    ASSERT_TRUE(rt->MemcpyToHost(z->data(), *dz, bytes).ok());
  };

  auto embedded = runtime::Runtime::CreateEmbedded("Ascend910B1");
  ASSERT_TRUE(embedded.ok()) << embedded.status().message();
  auto remote = runtime::Runtime::CreateRemote("Ascend910B1", daemon_->address());
  ASSERT_TRUE(remote.ok()) << remote.status().message();
  EXPECT_EQ((*embedded)->transport(), "embedded");
  EXPECT_EQ((*remote)->transport(), "remote " + daemon_->address());

  std::vector<float> z_embedded, z_remote;
  std::string report_embedded, report_remote;
  run(embedded->get(), &z_embedded, &report_embedded);
  run(remote->get(), &z_remote, &report_remote);

  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z_embedded[i], x[i] + y[i]) << "element " << i;
  EXPECT_EQ(std::memcmp(z_embedded.data(), z_remote.data(), n * sizeof(float)), 0);
  LaunchReport a, b;
  ASSERT_TRUE(a.ParseFromString(report_embedded));
  ASSERT_TRUE(b.ParseFromString(report_remote));
  EXPECT_EQ(a.status(), LaunchReport::OK);
  EXPECT_GT(a.cycles(), 0u);
  EXPECT_EQ(a.cycles(), b.cycles());
  EXPECT_EQ(report_embedded, report_remote);  // every statistic, byte for byte
}

TEST_F(DaemonTest, RemoteRuntimeErrorsKeepTheirCodes) {
  auto remote = runtime::Runtime::CreateRemote("Ascend910B1", daemon_->address());
  ASSERT_TRUE(remote.ok());
  EXPECT_EQ((*remote)->Free(12345).code(), runtime::StatusCode::kNotFound);
  auto launch = (*remote)->Launch("not a kernel \xff\xff", 1, {}, 0, runtime::LaunchSettings{});
  EXPECT_EQ(launch.status().code(), runtime::StatusCode::kInvalidArgument);
  EXPECT_EQ((*remote)->Synchronize(7).code(), runtime::StatusCode::kNotFound);
  auto stream = (*remote)->CreateStream();
  ASSERT_TRUE(stream.ok());
  EXPECT_TRUE((*remote)->Synchronize(*stream).ok());
  EXPECT_TRUE((*remote)->DestroyStream(*stream).ok());
}

TEST(RemoteRuntimeTest, UnreachableDaemonNamesTheAddressAndTheFix) {
  // Port 1 on loopback: nothing listens there.
  auto remote = runtime::Runtime::CreateRemote("Ascend910B1", "127.0.0.1:1");
  ASSERT_FALSE(remote.ok());
  const std::string& message = remote.status().message();
  EXPECT_NE(message.find("127.0.0.1:1"), std::string::npos) << message;
  EXPECT_NE(message.find("aicore-simd --listen 127.0.0.1:1"), std::string::npos) << message;
  EXPECT_NE(message.find("unset AICORE_SIM_ADDRESS"), std::string::npos) << message;
}

TEST_F(DaemonTest, OneShotRunStreamsReportThenOutputs) {
  const size_t n = kVaddElemsPerCore * kVaddCores;
  const std::vector<float> x = Iota(n, 1.0f, 0.5f);
  const std::vector<float> y = Iota(n, 2.0f, -0.75f);
  const uint64_t bytes = n * sizeof(float);

  grpc::ClientContext ctx;
  auto stream = client_->stub()->Run(&ctx);
  svc::RunRequest header;
  header.mutable_header()->set_platform("Ascend910B1");
  *header.mutable_header()->mutable_kernel() = VaddKernel(kVaddElemsPerCore);
  header.mutable_header()->set_block_dim(kVaddCores);
  for (int i = 0; i < 3; ++i) {
    svc::RunArg* arg = header.mutable_header()->add_args();
    arg->set_buffer_bytes(bytes);
    arg->set_output(i == 2);
  }
  ASSERT_TRUE(stream->Write(header));
  // Inputs in two chunks each, to exercise offsets.
  for (uint32_t arg = 0; arg < 2; ++arg) {
    const char* src = reinterpret_cast<const char*>(arg == 0 ? x.data() : y.data());
    for (uint64_t offset = 0; offset < bytes; offset += bytes / 2) {
      svc::RunRequest chunk;
      chunk.mutable_chunk()->set_arg_index(arg);
      chunk.mutable_chunk()->set_offset(offset);
      chunk.mutable_chunk()->set_data(src + offset, bytes / 2);
      ASSERT_TRUE(stream->Write(chunk));
    }
  }
  ASSERT_TRUE(stream->WritesDone());

  svc::RunResponse response;
  ASSERT_TRUE(stream->Read(&response));
  ASSERT_TRUE(response.has_report());
  EXPECT_EQ(response.report().status(), LaunchReport::OK);
  EXPECT_GT(response.report().cycles(), 0u);
  std::vector<float> z(n, 0.0f);
  uint64_t received = 0;
  while (stream->Read(&response)) {
    ASSERT_TRUE(response.has_chunk());
    EXPECT_EQ(response.chunk().arg_index(), 2u);
    ASSERT_LE(response.chunk().offset() + response.chunk().data().size(), bytes);
    std::memcpy(reinterpret_cast<char*>(z.data()) + response.chunk().offset(),
                response.chunk().data().data(), response.chunk().data().size());
    received += response.chunk().data().size();
  }
  grpc::Status status = stream->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(received, bytes);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << "element " << i;
}

TEST_F(DaemonTest, RunRejectsBadStreams) {
  {  // no header
    grpc::ClientContext ctx;
    auto stream = client_->stub()->Run(&ctx);
    stream->WritesDone();
    EXPECT_EQ(stream->Finish().error_code(), StatusCode::INVALID_ARGUMENT);
  }
  {  // a chunk outside its buffer
    grpc::ClientContext ctx;
    auto stream = client_->stub()->Run(&ctx);
    svc::RunRequest header;
    *header.mutable_header()->mutable_kernel() = VaddKernel(64);
    header.mutable_header()->set_block_dim(1);
    header.mutable_header()->add_args()->set_buffer_bytes(256);
    stream->Write(header);
    svc::RunRequest chunk;
    chunk.mutable_chunk()->set_arg_index(0);
    chunk.mutable_chunk()->set_offset(200);
    chunk.mutable_chunk()->set_data(std::string(100, 'x'));
    stream->Write(chunk);
    stream->WritesDone();
    EXPECT_EQ(stream->Finish().error_code(), StatusCode::INVALID_ARGUMENT);
  }
  ExpectServing();
}

// ---- daemons with their own limits --------------------------------------------------------------

TEST(DaemonLimitsTest, SessionMemoryLimitIsResourceExhausted) {
  DaemonProcess daemon({"--session-memory-limit", "1M"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  uint64_t address = 0;
  EXPECT_EQ(client.Malloc(session, 2 << 20, &address).error_code(), StatusCode::RESOURCE_EXHAUSTED);
  ASSERT_TRUE(client.Malloc(session, 600 << 10, &address).ok());
  grpc::Status second = client.Malloc(session, 600 << 10, &address);
  EXPECT_EQ(second.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(second.error_message().find("--session-memory-limit"), std::string::npos);

  // A one-shot run is held to the same limit.
  grpc::ClientContext ctx;
  auto stream = client.stub()->Run(&ctx);
  svc::RunRequest header;
  *header.mutable_header()->mutable_kernel() = VaddKernel(64);
  header.mutable_header()->set_block_dim(1);
  header.mutable_header()->add_args()->set_buffer_bytes(2 << 20);
  stream->Write(header);
  stream->WritesDone();
  EXPECT_EQ(stream->Finish().error_code(), StatusCode::RESOURCE_EXHAUSTED);
}

TEST(DaemonLimitsTest, MaxSessionsIsResourceExhausted) {
  DaemonProcess daemon({"--max-sessions", "2"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string a, b, c;
  ASSERT_TRUE(client.CreateSession(&a).ok());
  ASSERT_TRUE(client.CreateSession(&b).ok());
  EXPECT_EQ(client.CreateSession(&c).error_code(), StatusCode::RESOURCE_EXHAUSTED);
}

TEST(DaemonLimitsTest, IdleSessionsExpire) {
  DaemonProcess daemon({"--session-idle-seconds", "1"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  uint64_t address = 0;
  ASSERT_TRUE(client.Malloc(session, 4096, &address).ok());
  // Idle for > 1 s, swept every second: gone well within 4 s.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  EXPECT_EQ(client.Malloc(session, 4096, &address).error_code(), StatusCode::NOT_FOUND);
  EXPECT_NE(daemon.Stderr().find("event=session_expired"), std::string::npos);
}

TEST(DaemonLimitsTest, DaemonCycleLimitCapsEveryLaunch) {
  DaemonProcess daemon({"--max-cycles", "5000"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  for (uint64_t requested : {uint64_t{0}, uint64_t{1'000'000'000}}) {
    grpc::ClientContext ctx;
    svc::LaunchRequest request;
    request.set_session_id(session);
    *request.mutable_kernel() = SpinKernel(100'000);
    request.set_block_dim(1);
    request.mutable_options()->set_max_cycles(requested);
    svc::LaunchResponse response;
    grpc::Status status = client.stub()->Launch(&ctx, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.report().status(), LaunchReport::CYCLE_LIMIT_EXCEEDED) << requested;
    EXPECT_LT(response.report().cycles(), 100'000u);
  }
}

TEST(DaemonLimitsTest, FullPoolIsResourceExhausted) {
  DaemonProcess daemon(
      {"--workers", "1", "--max-queue", "0", "--max-cycles", "0", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string busy_session, other_session;
  ASSERT_TRUE(client.CreateSession(&busy_session).ok());
  ASSERT_TRUE(client.CreateSession(&other_session).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, other_session, 2.0));

  grpc::Status long_status;
  LaunchReport long_report;
  std::thread long_launch(
      [&] { long_status = client.Launch(busy_session, long_kernel, 1, {}, &long_report); });
  // The second Launch to start is the long one (the first was the calibration).
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", 2)) << daemon.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // admitted just after the log

  LaunchReport report;
  grpc::Status refused = client.Launch(other_session, SpinKernel(10), 1, {}, &report);
  long_launch.join();
  EXPECT_EQ(refused.error_code(), StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("busy"), std::string::npos) << refused.error_message();
  ASSERT_TRUE(long_status.ok()) << long_status.error_message();
  EXPECT_EQ(long_report.status(), LaunchReport::OK);
  // Once the pool is free again, work is accepted.
  EXPECT_TRUE(client.Launch(other_session, SpinKernel(10), 1, {}, &report).ok());
}

TEST(DaemonLimitsTest, LaunchWhoseDeadlinePassedInTheQueueIsNotRun) {
  DaemonProcess daemon({"--workers", "1", "--max-cycles", "0", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string busy_session, other_session;
  ASSERT_TRUE(client.CreateSession(&busy_session).ok());
  ASSERT_TRUE(client.CreateSession(&other_session).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, other_session, 2.0));

  grpc::Status long_status;
  std::thread long_launch(
      [&] { long_status = client.Launch(busy_session, long_kernel, 1, {}, nullptr); });
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", 2)) << daemon.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  svc::LaunchRequest request;
  request.set_session_id(other_session);
  *request.mutable_kernel() = SpinKernel(10);
  request.set_block_dim(1);
  svc::LaunchResponse response;
  EXPECT_EQ(client.stub()->Launch(&ctx, request, &response).error_code(),
            StatusCode::DEADLINE_EXCEEDED);
  long_launch.join();
  ASSERT_TRUE(long_status.ok()) << long_status.error_message();
  // The daemon itself noticed and skipped the simulation (not only the client's timer).
  EXPECT_TRUE(
      WaitForLog(daemon, "deadline passed while the work waited", 1, std::chrono::seconds(10)))
      << daemon.Stderr();
}

// A launch request for `kernel` (no arguments) with a wall-time limit of `max_wall_ms`.
svc::LaunchRequest SpinRequest(const std::string& session, const ir::Kernel& kernel,
                               uint32_t max_wall_ms = 0) {
  svc::LaunchRequest request;
  request.set_session_id(session);
  *request.mutable_kernel() = kernel;
  request.set_block_dim(1);
  request.mutable_options()->set_max_wall_ms(max_wall_ms);
  return request;
}

// After a cancelled launch the session (and its device) keeps serving allocations and launches.
void ExpectSessionStillServes(Client* client, const std::string& session) {
  uint64_t address = 0;
  grpc::Status malloc = client->Malloc(session, 4096, &address);
  EXPECT_TRUE(malloc.ok()) << malloc.error_message();
  LaunchReport report;
  grpc::Status launch = client->Launch(session, SpinKernel(10), 1, {}, &report);
  ASSERT_TRUE(launch.ok()) << launch.error_message();
  EXPECT_EQ(report.status(), LaunchReport::OK);
}

TEST(DaemonLimitsTest, RequestWallTimeLimitCancelsARunningLaunch) {
  DaemonProcess daemon({"--max-cycles", "0"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  const int64_t iterations = CalibrateSpin(&client, session, 4.0);
  const ir::Kernel long_kernel = SpinKernel(iterations);
  LaunchReport probe;
  ASSERT_TRUE(client.Launch(session, SpinKernel(1000), 1, {}, &probe).ok());
  const double full_run_cycles = static_cast<double>(probe.cycles()) * iterations / 1000;

  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  svc::LaunchResponse response;
  grpc::Status status =
      client.stub()->Launch(&ctx, SpinRequest(session, long_kernel, 100), &response);
  ASSERT_EQ(status.error_code(), StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  const std::string& message = status.error_message();
  // It stopped early: the cycle it reached is a small part of the full run's.
  const size_t at = message.find("at simulated cycle ");
  ASSERT_NE(at, std::string::npos) << message;
  const double stopped_at = std::stod(message.substr(at + 19));
  EXPECT_LT(stopped_at, full_run_cycles / 2) << message;
  // Printed, not asserted: how long past its 100 ms limit the launch ran before it stopped.
  const size_t after = message.find("cancelled after ");
  if (after != std::string::npos) {
    std::cout << "cancellation latency: " << std::stoi(message.substr(after + 16)) - 100
              << " ms past a 100 ms wall-time limit\n";
  }
  EXPECT_NE(message.find("100 ms"), std::string::npos) << message;
  EXPECT_NE(message.find(long_kernel.name()), std::string::npos) << message;
  EXPECT_NE(message.find("max_wall_ms"), std::string::npos) << message;
  EXPECT_NE(message.find("cancelled"), std::string::npos) << message;
  ExpectSessionStillServes(&client, session);
}

TEST(DaemonLimitsTest, DaemonWallTimeLimitCancelsARunningRun) {
  // Calibration would itself exceed the limit; this spin runs far longer than 100 ms anywhere.
  DaemonProcess daemon({"--max-cycles", "0", "--max-wall-ms", "100"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  const ir::Kernel long_kernel = SpinKernel(1'000'000'000);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  auto stream = client.stub()->Run(&ctx);
  svc::RunRequest header;
  *header.mutable_header()->mutable_kernel() = long_kernel;
  header.mutable_header()->set_block_dim(1);
  ASSERT_TRUE(stream->Write(header));
  stream->WritesDone();
  svc::RunResponse response;
  while (stream->Read(&response)) {
  }
  grpc::Status status = stream->Finish();
  ASSERT_EQ(status.error_code(), StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  EXPECT_NE(status.error_message().find("100 ms"), std::string::npos) << status.error_message();
  EXPECT_NE(status.error_message().find("--max-wall-ms"), std::string::npos)
      << status.error_message();

  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  ExpectSessionStillServes(&client, session);
}

TEST(DaemonLimitsTest, ClientDeadlineCancelsARunningLaunch) {
  DaemonProcess daemon({"--max-cycles", "0"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, session, 4.0));

  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  svc::LaunchResponse response;
  grpc::Status status = client.stub()->Launch(&ctx, SpinRequest(session, long_kernel), &response);
  EXPECT_EQ(status.error_code(), StatusCode::DEADLINE_EXCEEDED) << status.error_message();
  // The daemon cancelled the simulation itself (a launch run to completion would log OK), and
  // the session serves the next calls.
  EXPECT_TRUE(
      WaitForLog(daemon, "the client's deadline passed while it ran", 1, std::chrono::seconds(30)))
      << daemon.Stderr();
  ExpectSessionStillServes(&client, session);
}

TEST(DaemonLimitsTest, ClientCancelCancelsARunningLaunch) {
  DaemonProcess daemon({"--max-cycles", "0", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, session, 4.0));

  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  std::thread canceller([&] {
    // The second Launch to start is the long one (the first was the calibration).
    if (WaitForLog(daemon, "rpc=Launch event=start", 2)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ctx.TryCancel();
  });
  svc::LaunchResponse response;
  grpc::Status status = client.stub()->Launch(&ctx, SpinRequest(session, long_kernel), &response);
  canceller.join();
  EXPECT_EQ(status.error_code(), StatusCode::CANCELLED) << status.error_message();
  EXPECT_TRUE(WaitForLog(daemon, "status=CANCELLED", 1, std::chrono::seconds(30)))
      << daemon.Stderr();
  EXPECT_TRUE(WaitForLog(daemon, "the client cancelled the call", 1, std::chrono::seconds(30)))
      << daemon.Stderr();
  ExpectSessionStillServes(&client, session);
}

TEST(DaemonLimitsTest, BadFlagsFailWithUsage) {
  DaemonProcess daemon({"--no-such-flag", "1"});
  EXPECT_FALSE(daemon.started());
  EXPECT_NE(daemon.Stderr().find("unknown flag '--no-such-flag'"), std::string::npos)
      << daemon.Stderr();
}

TEST(DaemonShutdownTest, SigtermExitsZeroPromptly) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  {
    Client client(daemon.address());
    std::string session;
    ASSERT_TRUE(client.CreateSession(&session).ok());
  }
  auto status = daemon.SignalAndWait(SIGTERM, std::chrono::seconds(15));
  ASSERT_TRUE(status.has_value()) << "still running 15 s after SIGTERM\n" << daemon.Stderr();
  ASSERT_TRUE(WIFEXITED(*status)) << "killed by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 0) << daemon.Stderr();
  EXPECT_NE(daemon.Stderr().find("event=stopped"), std::string::npos);
}

TEST(DaemonShutdownTest, SigtermLetsAnInFlightLaunchFinish) {
  DaemonProcess daemon({"--max-cycles", "0", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, session, 2.0));
  grpc::Status long_status;
  LaunchReport long_report;
  std::thread long_launch(
      [&] { long_status = client.Launch(session, long_kernel, 1, {}, &long_report); });
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", 2)) << daemon.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  auto status = daemon.SignalAndWait(SIGTERM, std::chrono::seconds(30));
  long_launch.join();
  ASSERT_TRUE(status.has_value()) << daemon.Stderr();
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  ASSERT_TRUE(long_status.ok()) << long_status.error_message();
  EXPECT_EQ(long_report.status(), LaunchReport::OK);
  const std::string log = daemon.Stderr();
  // The launch completed after the signal arrived, and before the daemon stopped.
  const size_t signal_at = log.find("event=shutdown");
  const size_t launch_done_at = log.rfind("rpc=Launch status=OK");  // the long launch
  ASSERT_NE(signal_at, std::string::npos) << log;
  ASSERT_NE(launch_done_at, std::string::npos) << log;
  EXPECT_LT(signal_at, launch_done_at) << log;
  EXPECT_LT(launch_done_at, log.find("event=stopped")) << log;
}

TEST(DaemonShutdownTest, SigtermCancelsALaunchRunningPastTheGracePeriod) {
  DaemonProcess daemon({"--max-cycles", "0", "--shutdown-grace-ms", "200", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, session, 4.0));
  grpc::Status long_status;
  std::thread long_launch(
      [&] { long_status = client.Launch(session, long_kernel, 1, {}, nullptr); });
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", 2)) << daemon.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  auto status = daemon.SignalAndWait(SIGTERM, std::chrono::seconds(30));
  long_launch.join();
  ASSERT_TRUE(status.has_value()) << daemon.Stderr();
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  // The cut-off client gets the daemon's own text, not gRPC's generic "Cancelling all calls".
  EXPECT_EQ(long_status.error_code(), StatusCode::UNAVAILABLE) << long_status.error_message();
  EXPECT_NE(long_status.error_message().find("retry on another daemon"), std::string::npos)
      << long_status.error_message();
  const std::string log = daemon.Stderr();
  EXPECT_NE(log.find("rpc=Launch status=UNAVAILABLE"), std::string::npos) << log;
  EXPECT_NE(log.find("grace period (--shutdown-grace-ms) is over"), std::string::npos) << log;
  EXPECT_EQ(log.find("event=shutdown_forced"), std::string::npos) << log;
  EXPECT_NE(log.find("event=stopped"), std::string::npos) << log;
}

TEST(DaemonShutdownTest, SigtermUnderLoadLosesNoAcknowledgedResult) {
  // Six clients, each in its own session, Malloc, WriteMemory, Launch and ReadMemory in a loop
  // until the daemon goes. Every call the daemon logged as OK reached its client as OK (a Malloc
  // logged OK once reached its client as UNAVAILABLE), every answered vadd is right, and every
  // call that failed failed as UNAVAILABLE.
  DaemonProcess daemon({"--shutdown-grace-ms", "300", "--log-level", "debug", "--workers", "2"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  constexpr int kClients = 6;
  constexpr uint32_t kElems = kVaddElemsPerCore * kVaddCores;
  const ir::Kernel vadd = VaddKernel(kVaddElemsPerCore);
  std::atomic<int> ok_launches{0}, ok_mallocs{0}, wrong{0}, not_unavailable{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      Client client(daemon.address());
      std::string session;
      if (!client.CreateSession(&session).ok()) return;
      const std::vector<float> x = Iota(kElems, 1.0f + c, 0.5f);
      const std::vector<float> y = Iota(kElems, 2.0f, -0.25f);
      const std::string xs(reinterpret_cast<const char*>(x.data()), kElems * sizeof(float));
      const std::string ys(reinterpret_cast<const char*>(y.data()), kElems * sizeof(float));
      auto note = [&](const grpc::Status& s, const char* call) {
        if (s.error_code() != StatusCode::UNAVAILABLE) {
          not_unavailable.fetch_add(1);
          std::lock_guard<std::mutex> lock(failures_mutex);
          failures.push_back(std::string(call) + ": " + std::to_string(s.error_code()) + ": " +
                             s.error_message());
        }
      };
      while (!stop.load()) {
        uint64_t a[3] = {0, 0, 0};
        bool all = true;
        for (uint64_t& address : a) {
          grpc::Status s = client.Malloc(session, kElems * sizeof(float), &address);
          if (!s.ok()) {
            note(s, "Malloc");
            all = false;
            break;
          }
          ok_mallocs.fetch_add(1);
        }
        if (!all) return;
        grpc::Status s = client.Write(session, a[0], xs);
        if (s.ok()) s = client.Write(session, a[1], ys);
        if (!s.ok()) return note(s, "WriteMemory");
        LaunchReport report;
        s = client.Launch(session, vadd, kVaddCores, {a[0], a[1], a[2]}, &report);
        if (!s.ok()) return note(s, "Launch");
        ok_launches.fetch_add(1);
        std::string z;
        s = client.Read(session, a[2], kElems * sizeof(float), &z);
        if (!s.ok()) return note(s, "ReadMemory");
        const float* zf = reinterpret_cast<const float*>(z.data());
        for (uint32_t i = 0; i < kElems; ++i) {
          if (zf[i] != x[i] + y[i]) {
            wrong.fetch_add(1);
            break;
          }
        }
        for (uint64_t address : a) {
          grpc::ClientContext ctx;
          svc::FreeRequest request;
          request.set_session_id(session);
          request.set_address(address);
          svc::FreeResponse response;
          client.stub()->Free(&ctx, request, &response);
        }
      }
    });
  }
  // Load first: every client has launched at least once.
  const auto loaded_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ok_launches.load() < 2 * kClients && std::chrono::steady_clock::now() < loaded_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(ok_launches.load(), 2 * kClients) << daemon.Stderr();
  auto status = daemon.SignalAndWait(SIGTERM, std::chrono::seconds(30));
  stop.store(true);
  for (std::thread& t : clients) t.join();
  ASSERT_TRUE(status.has_value()) << daemon.Stderr();
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  const std::string log = daemon.Stderr();
  EXPECT_EQ(CountOf(log, "rpc=Launch status=OK"), static_cast<size_t>(ok_launches.load()));
  EXPECT_EQ(CountOf(log, "rpc=Malloc status=OK"), static_cast<size_t>(ok_mallocs.load()));
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(not_unavailable.load(), 0) << (failures.empty() ? "" : failures.front()) << "\n" << log;
  std::printf("under SIGTERM: %d launches and %d mallocs answered OK, all logged OK\n",
              ok_launches.load(), ok_mallocs.load());
}

TEST(DaemonShutdownTest, SigintWithAnOpenSessionExitsZero) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  auto remote = runtime::Runtime::CreateRemote("Ascend910B1", daemon.address());
  ASSERT_TRUE(remote.ok());
  auto status = daemon.SignalAndWait(SIGINT, std::chrono::seconds(15));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  // The daemon is gone: the runtime says so with a hint instead of hanging.
  auto m = (*remote)->Malloc(64);
  EXPECT_FALSE(m.ok());
}

}  // namespace
}  // namespace aicore::testing
