// Command-line options of aicore-simd: parsing, defaults and the --help text. Every limit the
// daemon enforces is a flag here, so operators can size a daemon without rebuilding it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/launch_result.h"

namespace aicore::daemon {

struct DaemonOptions {
  std::string listen = "127.0.0.1:50051";
  uint32_t workers = 0;            // 0 = one per hardware thread
  uint32_t max_queue = 64;         // admitted launches waiting for a worker
  uint32_t max_sessions = 64;      // sessions plus in-progress one-shot runs
  uint32_t max_client_queue = 16;  // admitted launches/runs of one client (a session, or runs)
  uint64_t session_memory_limit = 1ull << 30;
  // Device memory of all sessions and runs, the program cache and in-flight copies together.
  // Never 0 after ParseOptions: 0 (the default) resolves to half of the physical memory.
  uint64_t memory_budget = 0;
  uint64_t program_cache_bytes = 256ull << 20;  // decoded-program cache bound
  uint64_t max_cycles = 1'000'000'000;          // per launch; 0 = no limit
  // Per launch, also cancels running ones; 0 = no limit. Ten minutes by default, so one launch
  // at the cycle cap cannot hold a worker for the ~10 minutes eight blocks take (issue 21).
  uint32_t max_wall_ms = 10 * 60 * 1000;
  uint32_t session_idle_seconds = 600;
  uint32_t shutdown_grace_ms = 10'000;
  std::string log_level = "info";
  std::string trace_root;  // LaunchOptions.trace_dir is honoured only below it; empty = refused
  uint64_t trace_quota = 1ull << 30;  // trace bytes one session (or run) may write below the root
  sim::CheckLevel check = sim::CheckLevel::kWarn;  // launches that do not ask for a level
  // ParseOptions refuses a non-loopback listen without a token file or TLS, and a non-loopback
  // metrics_listen, unless insecure is set. The files are checked at start-up, not here.
  bool insecure = false;
  std::string token_file;      // bearer tokens, one per line; empty = no authentication
  std::string tls_cert;        // PEM certificate chain; given together with tls_key
  std::string tls_key;         // PEM private key
  std::string metrics_listen;  // HOST:PORT of the Prometheus endpoint; empty = none
  bool reflection = true;      // gRPC server reflection
};

struct ParseResult {
  std::optional<DaemonOptions> options;  // empty when the process should exit
  int exit_code = 0;                     // used when options is empty
  std::string message;                   // usage text or error, for stdout/stderr
};

ParseResult ParseOptions(int argc, char** argv);
std::string UsageText();

// Every flag's long name ("--listen", ...), from the definitions the parser and --help use.
std::vector<std::string> FlagNames();

// "1073741824", "1G", "512M", "64K" (binary multiples). Empty optional on malformed input.
std::optional<uint64_t> ParseByteSize(const std::string& text);

// Whether the host of "HOST:PORT" ("[V6]:PORT", or a bare host) is a loopback one: 127.0.0.0/8,
// localhost, ::1 or [::1]. 0.0.0.0 and [::] are not: they listen on every interface.
bool IsLoopbackHost(const std::string& host_port);

}  // namespace aicore::daemon
