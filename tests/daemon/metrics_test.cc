// Unit tests of the metrics registry (Prometheus text format 0.0.4) and of the HTTP endpoint
// that serves it, talked to over plain loopback sockets.
#include "src/metrics.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "src/metrics_server.h"

namespace aicore::daemon {
namespace {

// --- registry -----------------------------------------------------------------------------

TEST(MetricsRegistryTest, RendersFamiliesSortedWithOneHelpAndTypeEach) {
  MetricsRegistry registry;
  // Registered out of order on purpose: the output sorts families by name, series by labels.
  registry.GetGauge("aicore_sessions", "Open sessions.").Set(3);
  registry
      .GetCounter("aicore_rpc_requests_total", "RPCs answered.",
                  {{"method", "Run"}, {"code", "OK"}})
      .Increment(5);
  registry
      .GetCounter("aicore_rpc_requests_total", "RPCs answered.",
                  {{"code", "INVALID_ARGUMENT"}, {"method", "Malloc"}})
      .Increment();
  registry.AddCallbackGauge("aicore_queue_depth", "Launches waiting.", {}, [] { return 7.0; });
  registry.GetGauge("aicore_memory_bytes", "Bytes held.", {{"kind", "session"}}).Set(4096);
  registry.GetGauge("aicore_memory_bytes", "Bytes held.", {{"kind", "program_cache"}}).Add(1.5);

  EXPECT_EQ(registry.Render(),
            "# HELP aicore_memory_bytes Bytes held.\n"
            "# TYPE aicore_memory_bytes gauge\n"
            "aicore_memory_bytes{kind=\"program_cache\"} 1.5\n"
            "aicore_memory_bytes{kind=\"session\"} 4096\n"
            "# HELP aicore_queue_depth Launches waiting.\n"
            "# TYPE aicore_queue_depth gauge\n"
            "aicore_queue_depth 7\n"
            "# HELP aicore_rpc_requests_total RPCs answered.\n"
            "# TYPE aicore_rpc_requests_total counter\n"
            "aicore_rpc_requests_total{code=\"INVALID_ARGUMENT\",method=\"Malloc\"} 1\n"
            "aicore_rpc_requests_total{code=\"OK\",method=\"Run\"} 5\n"
            "# HELP aicore_sessions Open sessions.\n"
            "# TYPE aicore_sessions gauge\n"
            "aicore_sessions 3\n");
}

TEST(MetricsRegistryTest, EmptyRegistryRendersNothing) {
  MetricsRegistry registry;
  EXPECT_EQ(registry.Render(), "");
}

TEST(MetricsRegistryTest, EscapesLabelValuesAndHelp) {
  MetricsRegistry registry;
  registry
      .GetCounter("escaped_total", "Line one\nback\\slash \"quotes\" stay.",
                  {{"path", "C:\\dir\n\"x\""}})
      .Increment();
  EXPECT_EQ(registry.Render(),
            "# HELP escaped_total Line one\\nback\\\\slash \"quotes\" stay.\n"
            "# TYPE escaped_total counter\n"
            "escaped_total{path=\"C:\\\\dir\\n\\\"x\\\"\"} 1\n");
  EXPECT_EQ(EscapeLabelValue("plain"), "plain");
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
}

TEST(MetricsRegistryTest, SameNameAndLabelsReturnTheSameSeries) {
  MetricsRegistry registry;
  Counter& first = registry.GetCounter("calls_total", "Calls.", {{"a", "1"}, {"b", "2"}});
  Counter& again = registry.GetCounter("calls_total", "Calls.", {{"a", "1"}, {"b", "2"}});
  Counter& reordered = registry.GetCounter("calls_total", "Calls.", {{"b", "2"}, {"a", "1"}});
  Counter& other = registry.GetCounter("calls_total", "Calls.", {{"a", "1"}, {"b", "3"}});
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(&first, &reordered);
  EXPECT_NE(&first, &other);
  Gauge& gauge = registry.GetGauge("level", "Level.");
  EXPECT_EQ(&gauge, &registry.GetGauge("level", "Level."));

  // References stay valid while many more series are created.
  for (int i = 0; i < 1000; ++i) {
    registry.GetCounter("calls_total", "Calls.", {{"a", std::to_string(i)}});
  }
  first.Increment(2);
  EXPECT_EQ(registry.GetCounter("calls_total", "Calls.", {{"a", "1"}, {"b", "2"}}).Value(), 2);
}

TEST(MetricsRegistryTest, ConcurrentIncrementsGiveTheExactTotal) {
  MetricsRegistry registry;
  constexpr int kThreads = 8;
  constexpr int kIncrements = 50'000;
  std::vector<std::thread> threads;
  std::vector<Counter*> seen(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&registry, &seen, t] {
      // Every thread looks the series up itself: creation races must yield one series.
      Counter& counter = registry.GetCounter("hits_total", "Hits.", {{"kind", "x"}});
      seen[t] = &counter;
      for (int i = 0; i < kIncrements; ++i) counter.Increment();
      registry.GetGauge("balance", "Balance.").Add(1);
      registry.Render();  // rendering while others write must be safe
    });
  }
  for (auto& thread : threads) thread.join();
  for (Counter* counter : seen) EXPECT_EQ(counter, seen[0]);
  EXPECT_EQ(seen[0]->Value(), double{kThreads} * kIncrements);
  const std::string text = registry.Render();
  EXPECT_NE(text.find("hits_total{kind=\"x\"} 400000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("balance 8\n"), std::string::npos) << text;
}

TEST(MetricsRegistryTest, InvalidNamesThrowNamingThem) {
  MetricsRegistry registry;
  const auto expect_invalid = [](auto&& register_metric, const std::string& named) {
    try {
      register_metric();
      ADD_FAILURE() << "no exception for " << named;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { registry.GetCounter("bad-name", "h"); }, "\"bad-name\"");
  expect_invalid([&] { registry.GetCounter("9lives", "h"); }, "\"9lives\"");
  expect_invalid([&] { registry.GetGauge("", "h"); }, "\"\"");
  expect_invalid([&] { registry.GetGauge("ok", "h", {{"bad:label", "v"}}); }, "\"bad:label\"");
  expect_invalid([&] { registry.GetGauge("ok", "h", {{"0x", "v"}}); }, "\"0x\"");
  expect_invalid([&] { registry.GetGauge("ok", "h", {{"k", "1"}, {"k", "2"}}); }, "\"k\"");
  expect_invalid([&] { registry.AddCallbackGauge("a b", "h", {}, [] { return 0.0; }); }, "\"a b\"");
  // Colons are allowed in metric names, not in label names.
  EXPECT_NO_THROW(registry.GetCounter("job:requests_total", "h", {{"_k9", "v"}}));
  // Nothing invalid was registered.
  EXPECT_EQ(registry.Render().find("ok"), std::string::npos);
}

TEST(MetricsRegistryTest, ConflictingRegistrationsThrow) {
  MetricsRegistry registry;
  registry.GetCounter("thing_total", "Things.");
  EXPECT_THROW(registry.GetGauge("thing_total", "Things."), std::invalid_argument);
  EXPECT_THROW(registry.GetCounter("thing_total", "Other help."), std::invalid_argument);
  registry.AddCallbackGauge("depth", "Depth.", {{"q", "a"}}, [] { return 1.0; });
  EXPECT_THROW(registry.AddCallbackGauge("depth", "Depth.", {{"q", "a"}}, [] { return 2.0; }),
               std::invalid_argument);
  EXPECT_THROW(registry.GetGauge("depth", "Depth.", {{"q", "a"}}), std::invalid_argument);
  EXPECT_THROW(registry.AddCallbackGauge("empty", "Empty.", {}, nullptr), std::invalid_argument);
  // A settable gauge and a callback gauge may share a family under different labels.
  registry.GetGauge("depth", "Depth.", {{"q", "b"}}).Set(2);
  EXPECT_EQ(registry.Render(),
            "# HELP depth Depth.\n# TYPE depth gauge\ndepth{q=\"a\"} 1\ndepth{q=\"b\"} 2\n"
            "# HELP thing_total Things.\n# TYPE thing_total counter\nthing_total 0\n");
}

TEST(MetricsRegistryTest, CountersRefuseToGoDown) {
  MetricsRegistry registry;
  Counter& counter = registry.GetCounter("up_total", "Up.");
  counter.Increment(2.5);
  EXPECT_THROW(counter.Increment(-1), std::invalid_argument);
  EXPECT_THROW(counter.Increment(std::nan("")), std::invalid_argument);
  EXPECT_EQ(counter.Value(), 2.5);
  Gauge& gauge = registry.GetGauge("level", "Level.");
  gauge.Set(10);
  gauge.Add(-12);
  EXPECT_EQ(gauge.Value(), -2);
}

TEST(MetricsRegistryTest, CallbackGaugesAreReadAtRenderTime) {
  MetricsRegistry registry;
  double depth = 1;
  registry.AddCallbackGauge("depth", "Depth.", {}, [&depth] { return depth; });
  registry.AddCallbackGauge("broken", "Throws.", {},
                            []() -> double { throw std::runtime_error("gone"); });
  EXPECT_NE(registry.Render().find("depth 1\n"), std::string::npos);
  depth = 42;
  const std::string text = registry.Render();
  EXPECT_NE(text.find("depth 42\n"), std::string::npos) << text;
  EXPECT_NE(text.find("broken NaN\n"), std::string::npos) << text;
}

TEST(MetricsRegistryTest, FormatsNumbersAsTheFormatSpellsThem) {
  EXPECT_EQ(FormatMetricValue(0), "0");
  EXPECT_EQ(FormatMetricValue(-0.0), "0");
  EXPECT_EQ(FormatMetricValue(1234567890), "1234567890");
  EXPECT_EQ(FormatMetricValue(-17), "-17");
  EXPECT_EQ(FormatMetricValue(9007199254740993.0), "9007199254740992");  // 2^53 + 1 rounds
  EXPECT_EQ(FormatMetricValue(1e18), "1000000000000000000");
  EXPECT_EQ(FormatMetricValue(0.5), "0.5");
  EXPECT_EQ(FormatMetricValue(0.1), "0.1");
  EXPECT_EQ(FormatMetricValue(std::nan("")), "NaN");
  EXPECT_EQ(FormatMetricValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatMetricValue(-std::numeric_limits<double>::infinity()), "-Inf");
  // Non-integers and huge values round-trip exactly.
  for (double value : {1.0 / 3, 2.5e-9, 6.02214076e23, -123456.789, 1e300}) {
    const std::string text = FormatMetricValue(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
  }
}

// --- server -------------------------------------------------------------------------------

// A blocking loopback client. Every receive has a generous bound so a broken server fails the
// test instead of hanging it; no assertion depends on how long anything takes.
class TestClient {
 public:
  explicit TestClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval bound{30, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof(bound));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~TestClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  bool connected() const { return connected_; }

  void Send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      ASSERT_GT(n, 0) << "send failed: " << std::strerror(errno);
      sent += static_cast<size_t>(n);
    }
  }

  // Bytes until the peer closes. False if the bound passed first.
  bool ReadUntilClosed(std::string* out) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
      out->append(buffer, static_cast<size_t>(n));
    }
  }

  struct Response {
    std::string status_line;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
  };

  // One response framed by Content-Length, leaving the connection open.
  bool ReadResponse(Response* response) {
    while (pending_.find("\r\n\r\n") == std::string::npos) {
      if (!ReadMore()) return false;
    }
    const size_t head_end = pending_.find("\r\n\r\n");
    const std::string head = pending_.substr(0, head_end);
    pending_.erase(0, head_end + 4);
    size_t line_start = 0;
    for (bool first = true;; first = false) {
      const size_t line_end = head.find("\r\n", line_start);
      const std::string line = head.substr(line_start, line_end - line_start);
      if (first) {
        response->status_line = line;
      } else {
        const size_t colon = line.find(':');
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        response->headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
      }
      if (line_end == std::string::npos) break;
      line_start = line_end + 2;
    }
    const size_t length = std::stoul(response->headers["content-length"]);
    while (pending_.size() < length) {
      if (!ReadMore()) return false;
    }
    response->body = pending_.substr(0, length);
    pending_.erase(0, length);
    return true;
  }

 private:
  bool ReadMore() {
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n <= 0) return false;
    pending_.append(buffer, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string pending_;
};

std::string Get(const std::string& path, const std::string& connection = "close") {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: " + connection + "\r\n\r\n";
}

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer({}); }

  void StartServer(MetricsServerOptions options) {
    server_.reset();
    std::string error;
    server_ = MetricsServer::Start(
        "127.0.0.1:0", [this] { return registry_.Render(); }, &error, options);
    ASSERT_NE(server_, nullptr) << error;
    ASSERT_GT(server_->port(), 0);
  }

  TestClient::Response Fetch(const std::string& request) {
    TestClient client(server_->port());
    EXPECT_TRUE(client.connected());
    client.Send(request);
    TestClient::Response response;
    EXPECT_TRUE(client.ReadResponse(&response)) << request;
    return response;
  }

  MetricsRegistry registry_;
  std::unique_ptr<MetricsServer> server_;
};

TEST_F(MetricsServerTest, ServesTheRegistryAtMetrics) {
  Counter& requests = registry_.GetCounter("aicore_rpc_requests_total", "RPCs.",
                                           {{"method", "Run"}, {"code", "OK"}});
  requests.Increment(3);
  TestClient::Response response = Fetch(Get("/metrics"));
  EXPECT_EQ(response.status_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(response.headers["content-type"], "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(response.body, registry_.Render());
  EXPECT_NE(response.body.find("aicore_rpc_requests_total{code=\"OK\",method=\"Run\"} 3\n"),
            std::string::npos)
      << response.body;

  // Rendered per request, not at start.
  requests.Increment();
  response = Fetch(Get("/metrics?scrape=2"));
  EXPECT_NE(response.body.find("method=\"Run\"} 4\n"), std::string::npos) << response.body;
}

TEST_F(MetricsServerTest, AnswersHealthz) {
  const TestClient::Response response = Fetch(Get("/healthz"));
  EXPECT_EQ(response.status_line, "HTTP/1.1 200 OK");
  EXPECT_EQ(response.body, "ok\n");
}

TEST_F(MetricsServerTest, UnknownPathIs404NamingTheServedPaths) {
  const TestClient::Response response = Fetch(Get("/metricsz"));
  EXPECT_EQ(response.status_line, "HTTP/1.1 404 Not Found");
  EXPECT_NE(response.body.find("/metrics"), std::string::npos) << response.body;
  EXPECT_NE(response.body.find("/healthz"), std::string::npos) << response.body;
  EXPECT_EQ(std::count(response.body.begin(), response.body.end(), '\n'), 1);
}

TEST_F(MetricsServerTest, OtherMethodsAre405) {
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    TestClient::Response response = Fetch(method +
                                          " /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                                          "Connection: close\r\n\r\n");
    EXPECT_EQ(response.status_line, "HTTP/1.1 405 Method Not Allowed") << method;
    EXPECT_EQ(response.headers["allow"], "GET") << method;
    EXPECT_NE(response.body.find("GET only"), std::string::npos) << response.body;
  }
  // The answer to HEAD has no body.
  TestClient client(server_->port());
  client.Send("HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  TestClient::Response response;
  ASSERT_TRUE(client.ReadResponse(&response));
  EXPECT_EQ(response.status_line, "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(response.headers["content-length"], "0");
  std::string rest;
  EXPECT_TRUE(client.ReadUntilClosed(&rest));
  EXPECT_EQ(rest, "");
}

TEST_F(MetricsServerTest, OversizedOrMalformedRequestsAreRefused) {
  const std::string huge_header = "X-Filler: " + std::string(10 * 1024, 'a') + "\r\n";
  TestClient::Response response =
      Fetch("GET /metrics HTTP/1.1\r\nHost: x\r\n" + huge_header + "\r\n");
  EXPECT_EQ(response.status_line, "HTTP/1.1 431 Request Header Fields Too Large");

  response = Fetch("GARBAGE\r\n\r\n");
  EXPECT_EQ(response.status_line, "HTTP/1.1 400 Bad Request");

  // The endpoint still serves after both.
  EXPECT_EQ(Fetch(Get("/healthz")).body, "ok\n");
}

TEST_F(MetricsServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  TestClient client(server_->port());
  ASSERT_TRUE(client.connected());
  for (int i = 0; i < 3; ++i) {
    client.Send(Get("/healthz", "keep-alive"));
    TestClient::Response response;
    ASSERT_TRUE(client.ReadResponse(&response)) << "request " << i;
    EXPECT_EQ(response.body, "ok\n");
  }
  client.Send(Get("/healthz", "close"));
  TestClient::Response last;
  ASSERT_TRUE(client.ReadResponse(&last));
  std::string rest;
  EXPECT_TRUE(client.ReadUntilClosed(&rest));
  EXPECT_EQ(rest, "");
}

TEST_F(MetricsServerTest, RenderFailureIs500) {
  server_.reset();
  std::string error;
  server_ = MetricsServer::Start(
      "127.0.0.1:0", []() -> std::string { throw std::runtime_error("registry gone"); }, &error);
  ASSERT_NE(server_, nullptr) << error;
  const TestClient::Response response = Fetch(Get("/metrics"));
  EXPECT_EQ(response.status_line, "HTTP/1.1 500 Internal Server Error");
  EXPECT_NE(response.body.find("registry gone"), std::string::npos) << response.body;
}

TEST_F(MetricsServerTest, DestructorReturnsWhileClientsHoldConnectionsOpen) {
  // An idle keep-alive connection, proven accepted by its answered request...
  TestClient idle(server_->port());
  ASSERT_TRUE(idle.connected());
  idle.Send(Get("/healthz", "keep-alive"));
  TestClient::Response response;
  ASSERT_TRUE(idle.ReadResponse(&response));
  ASSERT_NE(response.headers["connection"], "close");
  // ...and one stuck half-way through its request line.
  TestClient stuck(server_->port());
  ASSERT_TRUE(stuck.connected());
  stuck.Send("GET /metr");
  const int port = server_->port();

  server_.reset();  // must return although neither client closes

  // Afterwards both connections were closed by the server, and nothing listens on the port.
  std::string rest;
  EXPECT_TRUE(idle.ReadUntilClosed(&rest));
  EXPECT_EQ(rest, "");
  EXPECT_TRUE(stuck.ReadUntilClosed(&rest));
  EXPECT_FALSE(TestClient(port).connected());
}

TEST_F(MetricsServerTest, SilentClientIsCutOffByTheTimeout) {
  MetricsServerOptions options;
  options.io_timeout = std::chrono::milliseconds(50);
  StartServer(options);
  TestClient silent(server_->port());
  ASSERT_TRUE(silent.connected());
  std::string received;
  // The server closes the connection itself; the client's bound (30 s) would fail the test.
  EXPECT_TRUE(silent.ReadUntilClosed(&received));
  EXPECT_EQ(received, "");
  EXPECT_EQ(Fetch(Get("/healthz")).body, "ok\n");
}

TEST_F(MetricsServerTest, ConnectionsPastTheLimitAreClosedAtOnce) {
  MetricsServerOptions options;
  options.max_connections = 1;
  StartServer(options);
  TestClient first(server_->port());
  ASSERT_TRUE(first.connected());
  first.Send(Get("/healthz", "keep-alive"));
  TestClient::Response response;
  ASSERT_TRUE(first.ReadResponse(&response));  // the first connection now holds the one slot

  TestClient second(server_->port());
  ASSERT_TRUE(second.connected());  // the kernel's backlog accepts it...
  std::string received;
  EXPECT_TRUE(second.ReadUntilClosed(&received));  // ...and the server closes it unanswered
  EXPECT_EQ(received, "");

  // The first connection still works.
  first.Send(Get("/healthz", "close"));
  ASSERT_TRUE(first.ReadResponse(&response));
  EXPECT_EQ(response.body, "ok\n");
}

TEST(MetricsServerStartTest, BadAddressesAreReported) {
  const auto render = [] { return std::string(); };
  for (const std::string address :
       {"127.0.0.1", "nohost:80", "127.0.0.1:http", "127.0.0.1:70000", ":9464", "1.2.3:0"}) {
    std::string error;
    EXPECT_EQ(MetricsServer::Start(address, render, &error), nullptr) << address;
    EXPECT_NE(error.find(address), std::string::npos) << error;
  }
  std::string error;
  auto v6 = MetricsServer::Start("[::1]:0", render, &error);
  if (v6 == nullptr) {
    // A machine without IPv6 loopback: the cause is named, not a parse failure.
    EXPECT_EQ(error.find("bad metrics listen address"), std::string::npos) << error;
  }
}

TEST(MetricsServerStartTest, AddressInUseIsReported) {
  const auto render = [] { return std::string(); };
  std::string error;
  auto first = MetricsServer::Start("127.0.0.1:0", render, &error);
  ASSERT_NE(first, nullptr) << error;
  const std::string taken = "127.0.0.1:" + std::to_string(first->port());
  EXPECT_EQ(MetricsServer::Start(taken, render, &error), nullptr);
  EXPECT_NE(error.find(taken), std::string::npos) << error;
  EXPECT_NE(error.find("in use"), std::string::npos) << error;
}

}  // namespace
}  // namespace aicore::daemon
