// Hand-written flag parsing (Debian's Boost ships program_options without its -dev package on the
// build image): --flag VALUE and --flag=VALUE, every value range-checked with a clear message.
#include "src/options.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>

namespace aicore::daemon {
namespace {

std::optional<uint64_t> ParseUnsigned(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<uint64_t> ParseByteSize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t multiplier = 1;
  std::string digits = text;
  switch (text.back()) {
    case 'K':
    case 'k':
      multiplier = 1ull << 10;
      break;
    case 'M':
    case 'm':
      multiplier = 1ull << 20;
      break;
    case 'G':
    case 'g':
      multiplier = 1ull << 30;
      break;
    case 'T':
    case 't':
      multiplier = 1ull << 40;
      break;
    default:
      break;
  }
  if (multiplier != 1) digits.pop_back();
  auto value = ParseUnsigned(digits);
  if (!value || *value > std::numeric_limits<uint64_t>::max() / multiplier) return std::nullopt;
  return *value * multiplier;
}

std::string UsageText() {
  DaemonOptions d;
  std::ostringstream out;
  out << "Usage: aicore-simd [flags]\n"
         "The Ascend AI Core simulator daemon: serves aicore.service.v1.Simulator over gRPC,\n"
         "plus grpc.health.v1.Health and server reflection.\n\n"
         "Flags (--flag VALUE or --flag=VALUE):\n"
         "  --listen HOST:PORT            address to serve on (default "
      << d.listen
      << ").\n"
         "                                Port 0 picks a free port. The first line on stdout is\n"
         "                                `listening on HOST:PORT` with the bound port.\n"
         "  --workers N                   simulation worker threads (default: one per hardware\n"
         "                                thread, here "
      << std::max(1u, std::thread::hardware_concurrency())
      << ")\n"
         "  --max-queue N                 launches/runs admitted beyond the running ones before\n"
         "                                new ones get RESOURCE_EXHAUSTED (default "
      << d.max_queue
      << ")\n"
         "  --max-sessions N              open sessions plus in-progress one-shot runs\n"
         "                                (default "
      << d.max_sessions
      << ")\n"
         "  --session-memory-limit BYTES  device memory one session (or one run) may allocate;\n"
         "                                suffixes K, M, G, T are binary (default 1G)\n"
         "  --max-cycles N                cycle limit of one launch; a client may ask for less,\n"
         "                                never more; 0 = unlimited (default "
      << d.max_cycles
      << ")\n"
         "  --max-wall-ms N               wall-time limit of one launch or run, counted from\n"
         "                                its arrival (queueing included); a client may ask for\n"
         "                                less (LaunchOptions.max_wall_ms), never more. Past it\n"
         "                                the launch is not started, or a running simulation is\n"
         "                                cancelled, and fails with DEADLINE_EXCEEDED; the\n"
         "                                session stays usable. 0 = none (default "
      << d.max_wall_ms
      << ", ten minutes).\n"
         "  --session-idle-seconds N      close sessions unused this long and free their memory\n"
         "                                (default "
      << d.session_idle_seconds
      << ")\n"
         "  --shutdown-grace-ms N         on SIGTERM/SIGINT, how long in-flight work may finish\n"
         "                                before it is cancelled (default "
      << d.shutdown_grace_ms
      << ")\n"
         "  --log-level LEVEL             trace, debug, info, warn, error, critical, off\n"
         "                                (default "
      << d.log_level
      << "); logs go to stderr\n"
         "  --trace-root DIR              allow LaunchOptions.trace_dir: msprof-style traces are\n"
         "                                written on this host below DIR (default: refused)\n"
         "  --check LEVEL                 off, warn, strict or strict-all: the race,\n"
         "                                initialisation and sync checks of launches that do not\n"
         "                                ask for a level (LaunchOptions.check); strict marks a\n"
         "                                report with a race or error failed, strict-all one with\n"
         "                                any finding (default warn; docs/checkers.md)\n"
         "  --help                        print this text and exit\n";
  return out.str();
}

ParseResult ParseOptions(int argc, char** argv) {
  DaemonOptions options;
  auto fail = [](const std::string& message) {
    return ParseResult{std::nullopt, 2, "aicore-simd: " + message + "\nTry --help.\n"};
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseResult{std::nullopt, 0, UsageText()};
    if (arg.rfind("--", 0) != 0) return fail("unexpected argument '" + arg + "'");
    std::string name = arg;
    std::string value;
    bool has_value = false;
    const bool inline_value = arg.find('=') != std::string::npos;
    if (inline_value) name = arg.substr(0, arg.find('='));
    static const char* kFlags[] = {"--listen",
                                   "--workers",
                                   "--max-queue",
                                   "--max-sessions",
                                   "--session-memory-limit",
                                   "--max-cycles",
                                   "--max-wall-ms",
                                   "--session-idle-seconds",
                                   "--shutdown-grace-ms",
                                   "--log-level",
                                   "--trace-root",
                                   "--check"};
    if (std::find(std::begin(kFlags), std::end(kFlags), name) == std::end(kFlags)) {
      return fail("unknown flag '" + name + "'");
    }
    if (inline_value) {
      value = arg.substr(arg.find('=') + 1);
      has_value = true;
    } else if (i + 1 < argc) {
      value = argv[++i];
      has_value = true;
    }
    if (!has_value) return fail(name + " needs a value");

    auto number = [&](uint64_t max, auto* out) -> std::optional<ParseResult> {
      auto v = ParseUnsigned(value);
      if (!v || *v > max) {
        return fail(name + " expects an integer in 0.." + std::to_string(max) + ", got '" + value +
                    "'");
      }
      *out = static_cast<std::remove_pointer_t<decltype(out)>>(*v);
      return std::nullopt;
    };
    std::optional<ParseResult> error;
    const uint64_t u32max = std::numeric_limits<uint32_t>::max();
    if (name == "--listen") {
      auto colon = value.rfind(':');
      if (colon == std::string::npos || colon == 0 || !ParseUnsigned(value.substr(colon + 1)) ||
          *ParseUnsigned(value.substr(colon + 1)) > 65535) {
        return fail("--listen expects HOST:PORT (port 0..65535), got '" + value + "'");
      }
      options.listen = value;
    } else if (name == "--workers") {
      error = number(1024, &options.workers);
    } else if (name == "--max-queue") {
      error = number(1'000'000, &options.max_queue);
    } else if (name == "--max-sessions") {
      error = number(1'000'000, &options.max_sessions);
      if (!error && options.max_sessions == 0) return fail("--max-sessions must be at least 1");
    } else if (name == "--session-memory-limit") {
      auto v = ParseByteSize(value);
      if (!v)
        return fail("--session-memory-limit expects BYTES like 1073741824 or 1G, got '" + value +
                    "'");
      options.session_memory_limit = *v;
    } else if (name == "--max-cycles") {
      error = number(std::numeric_limits<uint64_t>::max(), &options.max_cycles);
    } else if (name == "--max-wall-ms") {
      error = number(u32max, &options.max_wall_ms);
    } else if (name == "--session-idle-seconds") {
      error = number(u32max, &options.session_idle_seconds);
      if (!error && options.session_idle_seconds == 0) {
        return fail("--session-idle-seconds must be at least 1");
      }
    } else if (name == "--shutdown-grace-ms") {
      error = number(u32max, &options.shutdown_grace_ms);
    } else if (name == "--log-level") {
      static const char* kLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
      bool known = false;
      for (const char* level : kLevels) known = known || value == level;
      if (!known)
        return fail("--log-level expects trace|debug|info|warn|error|critical|off, got '" + value +
                    "'");
      options.log_level = value;
    } else if (name == "--check") {
      if (!sim::ParseCheckLevel(value, &options.check)) {
        return fail("--check expects off|warn|strict|strict-all, got '" + value + "'");
      }
    } else if (name == "--trace-root") {
      if (value.empty()) return fail("--trace-root expects a folder");
      options.trace_root = value;
    } else {
      return fail("unknown flag '" + name + "'");
    }
    if (error) return *error;
  }
  if (options.workers == 0) options.workers = std::max(1u, std::thread::hardware_concurrency());
  return ParseResult{options, 0, ""};
}

}  // namespace aicore::daemon
