// Command-line options of aicore-simd: parsing, defaults and the --help text. Every limit the
// daemon enforces is a flag here, so operators can size a daemon without rebuilding it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/launch_result.h"

namespace aicore::daemon {

struct DaemonOptions {
  std::string listen = "127.0.0.1:50051";
  uint32_t workers = 0;        // 0 = one per hardware thread
  uint32_t max_queue = 64;     // admitted launches waiting for a worker
  uint32_t max_sessions = 64;  // sessions plus in-progress one-shot runs
  uint64_t session_memory_limit = 1ull << 30;
  uint64_t max_cycles = 1'000'000'000;  // per launch; 0 = no limit
  // Per launch, also cancels running ones; 0 = no limit. Ten minutes by default, so one launch
  // at the cycle cap cannot hold a worker for the ~10 minutes eight blocks take (issue 21).
  uint32_t max_wall_ms = 10 * 60 * 1000;
  uint32_t session_idle_seconds = 600;
  uint32_t shutdown_grace_ms = 10'000;
  std::string log_level = "info";
  std::string trace_root;  // LaunchOptions.trace_dir is honoured only below it; empty = refused
  sim::CheckLevel check = sim::CheckLevel::kWarn;  // launches that do not ask for a level
};

struct ParseResult {
  std::optional<DaemonOptions> options;  // empty when the process should exit
  int exit_code = 0;                     // used when options is empty
  std::string message;                   // usage text or error, for stdout/stderr
};

ParseResult ParseOptions(int argc, char** argv);
std::string UsageText();

// "1073741824", "1G", "512M", "64K" (binary multiples). Empty optional on malformed input.
std::optional<uint64_t> ParseByteSize(const std::string& text);

}  // namespace aicore::daemon
