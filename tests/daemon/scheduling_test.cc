// End-to-end tests of how the daemon schedules and admits work (issue 21): memory calls never
// wait behind simulations, one session's flood does not starve another's launch, a busy daemon's
// refusal carries a retry hint the runtime honours, and requests the transport used to refuse
// (deep kernels, unparsable bytes) get the daemon's own answer. Order of events, never timing.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aicore/runtime.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/test_client.h"
#include "tests/daemon/test_kernels.h"

namespace aicore::testing {
namespace {

// Starts a launch of `kernel` in `session` on its own thread; `done` is raised when it returns.
class BackgroundLaunch {
 public:
  BackgroundLaunch(Client* client, const std::string& session, const ir::Kernel& kernel)
      : thread_([this, client, session, kernel] {
          status_ = client->Launch(session, kernel, 1, {}, &report_);
          done_.store(true);
        }) {}
  ~BackgroundLaunch() { Join(); }
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  bool done() const { return done_.load(); }
  const grpc::Status& status() const { return status_; }

 private:
  std::atomic<bool> done_{false};
  grpc::Status status_;
  LaunchReport report_;
  std::thread thread_;
};

TEST(SchedulingTest, MemoryCallsCompleteWhileEveryWorkerSimulates) {
  DaemonProcess daemon({"--workers", "2", "--max-cycles", "0", "--log-level", "debug",
                        "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  const int metrics_port = MetricsPort(daemon);
  ASSERT_NE(metrics_port, 0) << daemon.Stderr();
  Client client(daemon.address());
  std::string busy_a, busy_b, idle;
  ASSERT_TRUE(client.CreateSession(&busy_a).ok());
  ASSERT_TRUE(client.CreateSession(&busy_b).ok());
  ASSERT_TRUE(client.CreateSession(&idle).ok());
  const ir::Kernel long_kernel = SpinKernel(CalibrateSpin(&client, idle, 2.0));

  BackgroundLaunch a(&client, busy_a, long_kernel);
  BackgroundLaunch b(&client, busy_b, long_kernel);
  // Both long launches have started (after the calibration's), so both workers simulate.
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", 3)) << daemon.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));

  uint64_t address = 0;
  ASSERT_TRUE(client.Malloc(idle, 1 << 20, &address).ok());
  const std::string data = RandomBytes(1 << 20, 7);
  ASSERT_TRUE(client.Write(idle, address, data).ok());
  std::string back;
  ASSERT_TRUE(client.Read(idle, address, data.size(), &back).ok());
  EXPECT_EQ(back, data);
  {
    grpc::ClientContext ctx;
    svc::SynchronizeRequest request;
    request.set_session_id(idle);
    svc::SynchronizeResponse response;
    EXPECT_TRUE(client.stub()->Synchronize(&ctx, request, &response).ok());
  }
  {
    grpc::ClientContext ctx;
    svc::FreeRequest request;
    request.set_session_id(idle);
    request.set_address(address);
    svc::FreeResponse response;
    EXPECT_TRUE(client.stub()->Free(&ctx, request, &response).ok());
  }
  // Every memory call has finished while neither simulation has, and the daemon says both
  // workers are simulating.
  const std::string scrape = HttpGet(metrics_port, "/metrics");
  EXPECT_FALSE(a.done());
  EXPECT_FALSE(b.done());
  EXPECT_EQ(MetricValue(scrape, "aicore_inflight_launches"), 2) << scrape;
  EXPECT_EQ(MetricValue(scrape, "aicore_workers"), 2) << scrape;
  // The figure the issue asks for, printed (not asserted): each memory call's time in the daemon.
  const std::string log = daemon.Stderr();
  for (const char* rpc : {"Malloc", "WriteMemory", "ReadMemory", "Synchronize", "Free"}) {
    const std::string needle = std::string("rpc=") + rpc + " status=OK ms=";
    const size_t at = log.find(needle);
    if (at != std::string::npos) {
      std::cout << "memory call under full load: " << rpc << " "
                << log.substr(at + needle.size(),
                              log.find(' ', at + needle.size()) - (at + needle.size()))
                << " ms\n";
    }
  }
  a.Join();
  b.Join();
  EXPECT_TRUE(a.status().ok()) << a.status().error_message();
  EXPECT_TRUE(b.status().ok()) << b.status().error_message();
}

TEST(SchedulingTest, OneSessionsFloodDoesNotStarveAnothersLaunch) {
  DaemonProcess daemon({"--workers", "1", "--max-cycles", "0", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string flood, single;
  ASSERT_TRUE(client.CreateSession(&flood).ok());
  ASSERT_TRUE(client.CreateSession(&single).ok());
  const ir::Kernel medium = SpinKernel(CalibrateSpin(&client, single, 0.1));

  constexpr int kFlood = 8;
  std::atomic<int> finished{0};
  std::vector<int> flood_order(kFlood, -1);
  std::vector<std::thread> flooders;
  std::vector<grpc::Status> flood_status(kFlood);
  for (int i = 0; i < kFlood; ++i) {
    flooders.emplace_back([&, i] {
      flood_status[i] = client.Launch(flood, medium, 1, {}, nullptr);
      flood_order[i] = finished.fetch_add(1);
    });
  }
  // Every flood launch has reached the daemon (plus the calibration's) before the single one.
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", kFlood + 1)) << daemon.Stderr();
  grpc::Status single_status = client.Launch(single, SpinKernel(10), 1, {}, nullptr);
  const int single_order = finished.fetch_add(1);
  for (std::thread& t : flooders) t.join();
  ASSERT_TRUE(single_status.ok()) << single_status.error_message();
  for (const grpc::Status& s : flood_status) EXPECT_TRUE(s.ok()) << s.error_message();
  // The single launch waits for the flood launch that holds the worker, not for the flood: at
  // most two flood launches finish before it (the running one, and one that may have been
  // handed the worker as it arrived).
  EXPECT_LE(single_order, 2) << "the single launch finished after " << single_order
                             << " of the flood's " << kFlood << " launches";
}

TEST(SchedulingTest, ThirtyTwoClientsWithRetriesAllSucceed) {
  // Capacity 2 + 2: most of the 32 clients are refused at first and retry on the hint.
  DaemonProcess daemon({"--workers", "2", "--max-queue", "2"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  constexpr int kClients = 32;
  constexpr int kLaunches = 200;
  const ir::Kernel kernel = SpinKernel(10);
  std::string ir_bytes;
  ASSERT_TRUE(kernel.SerializeToString(&ir_bytes));
  std::atomic<int> failures{0};
  std::vector<std::string> first_error(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto runtime = runtime::Runtime::CreateRemote("", daemon.address());
      if (!runtime.ok()) {
        failures.fetch_add(kLaunches);
        first_error[c] = runtime.status().message();
        return;
      }
      for (int i = 0; i < kLaunches; ++i) {
        auto report = (*runtime)->Launch(ir_bytes, 1, {}, 0, runtime::LaunchSettings{});
        if (!report.ok()) {
          if (first_error[c].empty()) first_error[c] = report.status().message();
          failures.fetch_add(1);
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  std::string errors;
  for (const std::string& e : first_error) {
    if (!e.empty()) errors += e + "\n";
  }
  EXPECT_EQ(failures.load(), 0) << errors;
  // The refusals happened: the retries, not a lucky schedule, carried every launch.
  EXPECT_NE(daemon.Stderr().find("status=RESOURCE_EXHAUSTED"), std::string::npos);
}

TEST(SchedulingTest, ABusyRefusalCarriesARetryDelay) {
  DaemonProcess daemon(
      {"--workers", "1", "--max-queue", "0", "--max-cycles", "0", "--log-level", "debug"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string busy, other;
  ASSERT_TRUE(client.CreateSession(&busy).ok());
  ASSERT_TRUE(client.CreateSession(&other).ok());
  BackgroundLaunch running(&client, busy, SpinKernel(CalibrateSpin(&client, other, 2.0)));
  ASSERT_TRUE(WaitForLog(daemon, "rpc=Launch event=start", 2)) << daemon.Stderr();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  grpc::Status refused = client.Launch(other, SpinKernel(10), 1, {}, nullptr);
  running.Join();
  ASSERT_EQ(refused.error_code(), StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("retry in about"), std::string::npos);
  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(refused.error_details()));
  ASSERT_EQ(details.details_size(), 1);
  google::rpc::RetryInfo retry;
  ASSERT_TRUE(details.details(0).UnpackTo(&retry));
  const int64_t ms = retry.retry_delay().seconds() * 1000 + retry.retry_delay().nanos() / 1000000;
  EXPECT_GE(ms, 10);
  EXPECT_LE(ms, 5000);
}

TEST(SchedulingTest, TheProgramCacheStaysWithinItsBytesUnderAFloodOfLargeKernels) {
  // Ten distinct kernels of about 1.6 MB of IR each (the flood was ten of 40 MB; the
  // rule is the same, the test is quicker) against a 16 MiB cache: every launch decodes, old
  // programs go, the cache never holds more than its bound.
  DaemonProcess daemon({"--program-cache-bytes", "16M", "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  const int metrics_port = MetricsPort(daemon);
  ASSERT_NE(metrics_port, 0) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  constexpr int kKernels = 10;
  for (int i = 0; i < kKernels; ++i) {
    const ir::Kernel kernel = StraightLineKernel(20'000, i);
    ASSERT_GT(kernel.ByteSizeLong(), 1u << 20);
    LaunchReport report;
    grpc::Status status = client.Launch(session, kernel, 1, {}, &report);
    ASSERT_TRUE(status.ok()) << status.error_message();
    const std::string scrape = HttpGet(metrics_port, "/metrics");
    EXPECT_LE(MetricValue(scrape, "aicore_memory_bytes{kind=\"program_cache\"}"), 16 << 20)
        << scrape;
  }
  const std::string scrape = HttpGet(metrics_port, "/metrics");
  EXPECT_EQ(MetricValue(scrape, "aicore_program_cache_misses"), kKernels) << scrape;
  EXPECT_LT(MetricValue(scrape, "aicore_program_cache_entries"), kKernels) << scrape;
  EXPECT_GT(MetricValue(scrape, "aicore_program_cache_entries"), 0) << scrape;
}

// The daemon's resident memory in bytes, from /proc/<pid>/status (VmRSS); 0 if unreadable.
uint64_t ResidentBytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // in kB
  }
  return 0;
}

TEST(SchedulingTest, ResidentMemoryStaysBoundedUnderTenFortyMegabyteKernels) {
  // The flood: ten distinct kernels of about 40 MB of IR each once took the daemon from
  // 18 MiB to 1 GiB for good, the count-bounded cache keeping every decoded program. With a
  // 64 MiB cache (too small for any of them: each decodes to more) nothing is kept: each request
  // costs its transient decoding memory (a few hundred MiB, which the allocator keeps for reuse)
  // and resident memory levels off instead of growing with every kernel.
  DaemonProcess daemon({"--program-cache-bytes", "64M", "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  const int metrics_port = MetricsPort(daemon);
  ASSERT_NE(metrics_port, 0) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  const uint64_t before = ResidentBytes(daemon.pid());
  ASSERT_GT(before, 0u);
  constexpr int kKernels = 10;
  std::vector<uint64_t> resident;
  for (int i = 0; i < kKernels; ++i) {
    const ir::Kernel kernel = StraightLineKernel(625'000, 100 + i);
    ASSERT_GT(kernel.ByteSizeLong(), 38u << 20);
    LaunchReport report;
    grpc::Status status = client.Launch(session, kernel, 1, {}, &report);
    ASSERT_TRUE(status.ok()) << status.error_message();
    resident.push_back(ResidentBytes(daemon.pid()));
    EXPECT_LE(MetricValue(HttpGet(metrics_port, "/metrics"),
                          "aicore_memory_bytes{kind=\"program_cache\"}"),
              64 << 20);
  }
  const uint64_t early = *std::max_element(resident.begin(), resident.begin() + 3);
  const uint64_t late = *std::max_element(resident.begin() + 3, resident.end());
  std::printf("RSS before %.0f MiB, after 3 kernels at most %.0f MiB, after %d at most %.0f MiB\n",
              before / 1048576.0, early / 1048576.0, kKernels, late / 1048576.0);
  // What the daemon controls is asserted above (the cache's bytes, every kernel decoded anew).
  // Resident memory is the allocator's: it keeps freed pages for reuse and varies by a few
  // hundred MiB between runs (530-870 MiB seen here), so it is bounded loosely: each of these
  // programs holds about 350 MiB decoded (measured with a cache large enough to keep them), so
  // even three retained would pass the bound, and ten would take 3.5 GiB.
  EXPECT_LT(late, 3ull << 29) << "early " << early << " late " << late;
  const std::string scrape = HttpGet(metrics_port, "/metrics");
  EXPECT_EQ(MetricValue(scrape, "aicore_program_cache_misses"), kKernels) << scrape;
}

TEST(SchedulingTest, TheDaemonMemoryBudgetRefusesWhatDoesNotFit) {
  DaemonProcess daemon({"--memory-budget", "48M", "--program-cache-bytes", "16M"});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string a, b;
  ASSERT_TRUE(client.CreateSession(&a).ok());
  ASSERT_TRUE(client.CreateSession(&b).ok());
  uint64_t first = 0, second = 0;
  ASSERT_TRUE(client.Malloc(a, 20 << 20, &first).ok());
  // 20 MiB held of the 32 MiB the cache leaves: another session's 20 MiB does not fit.
  grpc::Status refused = client.Malloc(b, 20 << 20, &second);
  ASSERT_EQ(refused.error_code(), StatusCode::RESOURCE_EXHAUSTED) << refused.error_message();
  EXPECT_NE(refused.error_message().find("--memory-budget"), std::string::npos)
      << refused.error_message();
  // Closing the first session gives its memory back.
  {
    grpc::ClientContext ctx;
    svc::CloseSessionRequest request;
    request.set_session_id(a);
    svc::CloseSessionResponse response;
    ASSERT_TRUE(client.stub()->CloseSession(&ctx, request, &response).ok());
  }
  grpc::Status fits = client.Malloc(b, 20 << 20, &second);
  EXPECT_TRUE(fits.ok()) << fits.error_message();
}

TEST(SchedulingTest, AKernelWithSixtyNestedIfsIsAccepted) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Client client(daemon.address());
  std::string session;
  ASSERT_TRUE(client.CreateSession(&session).ok());
  LaunchReport report;
  grpc::Status status = client.Launch(session, NestedIfKernel(60), 1, {}, &report);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(report.status(), LaunchReport::OK) << report.check().summary();
  // Past the IR validator's own limit the answer names that limit, not the transport's.
  status = client.Launch(session, NestedIfKernel(70), 1, {}, &report);
  ASSERT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_NE(status.error_message().find("nest deeper than 64"), std::string::npos)
      << status.error_message();
}

TEST(SchedulingTest, AnUnparsableRequestIsInvalidArgumentNamingTheMessage) {
  DaemonProcess daemon;
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  auto channel = grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  const std::string garbage = "\xff\xff\xff\xff\x0f not a protobuf";
  for (const char* method :
       {"/aicore.service.v1.Simulator/Launch", "/aicore.service.v1.Simulator/Malloc",
        "/aicore.service.v1.Simulator/CreateSession"}) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Slice slice(garbage);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    grpc::Status status;
    stub.UnaryCall(&ctx, method, grpc::StubOptions(), &request, &response, [&](grpc::Status s) {
      std::lock_guard<std::mutex> lock(mu);
      status = std::move(s);
      done = true;
      cv.notify_one();
    });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
    EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT) << method;
    EXPECT_NE(status.error_message().find("is not a valid serialized message"), std::string::npos)
        << method << ": " << status.error_message();
  }
  // The daemon keeps serving.
  Client client(daemon.address());
  std::string session;
  EXPECT_TRUE(client.CreateSession(&session).ok());
}

}  // namespace
}  // namespace aicore::testing
