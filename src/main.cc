// aicore-simd: the simulator daemon. Parses flags, serves the Simulator service (plus health and
// reflection) on gRPC, expires idle sessions, and shuts down gracefully on SIGTERM/SIGINT:
// stop accepting, let in-flight work finish within --shutdown-grace-ms, exit 0.
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <iterator>
#include <memory>
#include <thread>

#include "aicore/version.h"
#include "src/auth.h"
#include "src/job_pool.h"
#include "src/memory_budget.h"
#include "src/metrics_server.h"
#include "src/options.h"
#include "src/session_manager.h"
#include "src/simulator_service.h"

namespace aicore::daemon {
namespace {

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

void SetUpLogging(const std::string& level) {
  // stderr only: stdout carries the machine-read `listening on` line.
  auto logger = spdlog::stderr_logger_mt("aicore-simd");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l [%n] %v");
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

int Serve(const DaemonOptions& options) {
  // Handlers first: a SIGTERM during start-up must also mean a clean stop, not a default kill.
  boost::asio::io_context io;
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  int received = 0;

  TokenSet tokens;
  if (!options.token_file.empty()) {
    auto loaded = TokenSet::Load(options.token_file);
    if (!loaded.ok()) {
      spdlog::critical("{}", loaded.status().message());
      return 1;
    }
    tokens = std::move(*loaded);
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials();
  if (!options.tls_cert.empty()) {
    std::string cert, key;
    if (!ReadFile(options.tls_cert, &cert) || !ReadFile(options.tls_key, &key)) {
      spdlog::critical("cannot read --tls-cert {} or --tls-key {}", options.tls_cert,
                       options.tls_key);
      return 1;
    }
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({key, cert});
    credentials = grpc::SslServerCredentials(ssl);
  }

  JobPool pool(options.workers, options.max_queue, options.max_client_queue);
  MemoryBudget budget(options.memory_budget, options.program_cache_bytes);
  SessionManager sessions(&pool, &budget, options.max_sessions,
                          std::chrono::seconds(options.session_idle_seconds));
  const size_t token_count = tokens.size();
  SimulatorService service(options, &pool, &sessions, &budget, std::move(tokens));

  grpc::EnableDefaultHealthCheckService(true);
  if (options.reflection) grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, credentials, &port);
  // Two daemons must not silently share one fixed port.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Buffers travel in chunks, but one Launch carries a whole kernel IR.
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.SetMaxSendMessageSize(64 << 20);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    spdlog::critical("cannot listen on {} (address in use, or not a local address?)",
                     options.listen);
    return 1;
  }
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  std::unique_ptr<MetricsServer> metrics;
  if (!options.metrics_listen.empty()) {
    std::string error;
    metrics = MetricsServer::Start(
        options.metrics_listen, [&service] { return service.metrics()->Render(); }, &error);
    if (!metrics) {
      spdlog::critical("cannot serve metrics on --metrics-listen {}: {}", options.metrics_listen,
                       error);
      return 1;
    }
    const std::string metrics_host =
        options.metrics_listen.substr(0, options.metrics_listen.rfind(':'));
    spdlog::info("event=metrics listen={}:{} path=/metrics", metrics_host, metrics->port());
  }
  std::cout << "listening on " << host << ":" << port << std::endl;  // endl flushes
  spdlog::info(
      "event=start listen={}:{} workers={} max_queue={} max_sessions={} "
      "session_memory_limit={} max_cycles={} max_wall_ms={} session_idle_seconds={} "
      "memory_budget={} program_cache_bytes={} tls={} tokens={} version={}",
      host, port, options.workers, options.max_queue, options.max_sessions,
      options.session_memory_limit, options.max_cycles, options.max_wall_ms,
      options.session_idle_seconds, options.memory_budget, options.program_cache_bytes,
      options.tls_cert.empty() ? "off" : "on", token_count, AICORE_SIM_VERSION);

  signals.async_wait([&](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    received = signal;
    io.stop();
  });

  // Sweep idle sessions a few times per timeout period.
  const auto sweep_period =
      std::chrono::seconds(std::clamp<uint32_t>(options.session_idle_seconds / 4, 1, 30));
  boost::asio::steady_timer sweeper(io);
  std::function<void()> schedule_sweep = [&] {
    sweeper.expires_after(sweep_period);
    sweeper.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      for (const std::string& id : sessions.ExpireIdle()) {
        spdlog::info("event=session_expired session={} idle_seconds>{}", ShortId(id),
                     options.session_idle_seconds);
      }
      schedule_sweep();
    });
  };
  schedule_sweep();
  io.run();

  const auto grace = std::chrono::milliseconds(options.shutdown_grace_ms);
  spdlog::info("event=shutdown signal={} grace_ms={} inflight={} sessions={}", received,
               options.shutdown_grace_ms, pool.admitted(), sessions.size());
  // Phase 1, drain: health turns NOT_SERVING so balancers move away, new sessions/launches/runs
  // are refused, and work already admitted runs to completion within the grace period.
  server->GetHealthCheckService()->SetServingStatus(false);
  service.BeginDrain();
  // Clients that keep calling are answered with the daemon's UNAVAILABLE ("retry on another
  // daemon") until they have been quiet for kQuietPeriod, so a call racing the stop gets that
  // text rather than the transport's bare CANCELLED; at most kMaxLinger beyond the work, and
  // never past the grace period.
  constexpr auto kQuietPeriod = std::chrono::milliseconds(100);
  constexpr auto kMaxLinger = std::chrono::seconds(1);
  const auto drain_deadline = std::chrono::steady_clock::now() + grace;
  std::chrono::steady_clock::time_point work_done{};
  while (std::chrono::steady_clock::now() < drain_deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (pool.admitted() > 0 || service.active_rpcs() > 0) {
      work_done = {};
    } else {
      if (work_done == std::chrono::steady_clock::time_point{}) work_done = now;
      if (now - service.last_rpc_start() >= kQuietPeriod || now - work_done >= kMaxLinger) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Phase 2, stop: queued work that has not started fails with UNAVAILABLE, running simulations
  // are cancelled by the pool's watchdog (their calls fail with UNAVAILABLE), remaining calls are
  // cancelled and connections closed at once (a graceful HTTP/2 close would wait on idle
  // clients). Cancellation is polled, not instant, so still bound the wait and leave anyway.
  pool.SetShutdownDeadline(std::chrono::steady_clock::now());
  // Let the cancelled simulations and refused queued jobs answer with the daemon's own status
  // ("shutting down ... retry on another daemon") before gRPC cancels what is left with its
  // generic text. The watchdog polls every 10 ms and a simulation checks its flag often.
  const auto answer_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while ((pool.admitted() > 0 || service.active_rpcs() > 0) &&
         std::chrono::steady_clock::now() < answer_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::promise<void> stopped;
  std::thread stopper([&] {
    // Calls that have their answer flush it; what still waits on a client is cancelled.
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    pool.Join();
    stopped.set_value();
  });
  if (stopped.get_future().wait_for(std::chrono::seconds(5)) == std::future_status::timeout) {
    spdlog::error(
        "event=shutdown_forced reason=\"simulations still running after the grace "
        "period\" inflight={}",
        pool.admitted());
    spdlog::shutdown();
    std::_Exit(0);
  }
  stopper.join();
  spdlog::info("event=stopped");
  return 0;
}

}  // namespace
}  // namespace aicore::daemon

int main(int argc, char** argv) {
  aicore::daemon::ParseResult parsed = aicore::daemon::ParseOptions(argc, argv);
  if (!parsed.options) {
    (parsed.exit_code == 0 ? std::cout : std::cerr) << parsed.message;
    return parsed.exit_code;
  }
  aicore::daemon::SetUpLogging(parsed.options->log_level);
  try {
    return aicore::daemon::Serve(*parsed.options);
  } catch (const std::exception& e) {
    spdlog::critical("event=fatal error=\"{}\"", e.what());
    return 1;
  }
}
