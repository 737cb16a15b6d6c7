// The HTTP endpoint that Prometheus scrapes: GET /metrics (the registry's text) and GET /healthz.
// It runs on its own thread and io_context, so a slow scraper never holds up the daemon, and
// every read and write has a deadline, so a stuck client never holds up the endpoint for long.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace aicore::daemon {

struct MetricsServerOptions {
  // Longest wait for a request (including between keep-alive requests) or for a response to be
  // taken by the client; the connection is closed past it.
  std::chrono::milliseconds io_timeout{10'000};
  // Connections open at once; further ones are closed as soon as they are accepted.
  size_t max_connections = 16;
  // Request head (request line and headers) and body, each; past them the answer is 431 or 413.
  size_t header_limit = 8 * 1024;
  size_t body_limit = 8 * 1024;
};

class MetricsServer {
 public:
  // Listens on `host_port` ("127.0.0.1:9464", "[::1]:0"; port 0 picks a free port) and serves
  // until destroyed. `render` runs on the server's thread for each GET /metrics. Returns null with
  // `*error` naming the cause (bad address, address in use) when it cannot listen.
  static std::unique_ptr<MetricsServer> Start(const std::string& host_port,
                                              std::function<std::string()> render,
                                              std::string* error,
                                              MetricsServerOptions options = {});

  // Stops accepting, closes every open connection (idle or mid-request) and joins the thread.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const;

 private:
  friend class MetricsConnection;
  struct State;
  explicit MetricsServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace aicore::daemon
