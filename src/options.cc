// aicore-simd's flags, defined once with CLI11 (Debian's libcli11-dev, header-only): the
// parser, every range check and the --help text come from the definitions in DefineFlags.
// Boost's program_options is available too (libboost-program-options-dev); CLI11 was chosen for
// its per-flag validators and generated help.
#include "src/options.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>
#include <sstream>
#include <thread>

#include "aicore/version.h"

namespace aicore::daemon {
namespace {

constexpr size_t kNameColumn = 38;  // flag names and defaults; the help text follows
constexpr size_t kHelpWidth = 100;
constexpr uint64_t kMaxPort = 65535;
constexpr const char* kLogLevels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};

std::optional<uint64_t> ParseUnsigned(const std::string& text) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::string Range(uint64_t min, uint64_t max) {
  return std::to_string(min) + ".." + std::to_string(max);
}

// The default of a BYTES flag as an operator writes it: 1G rather than 1073741824.
std::string FormatByteSize(uint64_t bytes) {
  for (auto [shift, suffix] : {std::pair{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}}) {
    const uint64_t unit = 1ull << shift;
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return std::to_string(bytes);
}

std::string GiB(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

// CLI11 prints help text as given: wrap it to the columns right of the flag names.
std::string Wrap(const std::string& text, size_t width = kHelpWidth - kNameColumn) {
  std::istringstream words(text);
  std::string out, word;
  size_t line = 0;
  while (words >> word) {
    if (line > 0 && line + 1 + word.size() > width) {
      out += '\n';
      line = 0;
    } else if (line > 0) {
      out += ' ';
      ++line;
    }
    out += word;
    line += word.size();
  }
  return out;
}

std::optional<uint64_t> HalfOfPhysicalMemory() {
  const int64_t pages = sysconf(_SC_PHYS_PAGES);
  const int64_t page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::nullopt;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2;
}

uint32_t HardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

// "HOST:PORT" -> HOST, "[V6]:PORT" -> V6; a bare host (no colon, or an unbracketed IPv6
// address) is returned whole. Empty optional when a bracket is not closed.
std::optional<std::string> HostOf(const std::string& host_port) {
  if (!host_port.empty() && host_port.front() == '[') {
    const size_t close = host_port.find(']');
    if (close == std::string::npos) return std::nullopt;
    return host_port.substr(1, close - 1);
  }
  const size_t colon = host_port.find(':');
  if (colon != std::string::npos && host_port.find(':', colon + 1) == std::string::npos) {
    return host_port.substr(0, colon);
  }
  return host_port;
}

// Validators. CLI11 puts "--flag: " before their messages.

CLI::Validator UnsignedIn(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        auto number = ParseUnsigned(value);
        if (number && *number >= min && *number <= max) return "";
        return "'" + value + "' is not an integer in " + Range(min, max);
      },
      "");
}

// Takes "1G" style sizes and hands CLI11 the plain number of bytes.
CLI::Validator ByteSizeFrom(uint64_t min) {
  return CLI::Validator(
      [min](std::string& value) -> std::string {
        auto bytes = ParseByteSize(value);
        if (bytes && *bytes >= min) {
          value = std::to_string(*bytes);
          return "";
        }
        return "'" + value + "' is not a byte size in " +
               Range(min, std::numeric_limits<uint64_t>::max()) +
               " (digits with an optional binary suffix K, M, G or T, like 1073741824 or 1G)";
      },
      "");
}

CLI::Validator HostPort(bool allow_empty) {
  return CLI::Validator(
      [allow_empty](std::string& value) -> std::string {
        if (value.empty() && allow_empty) return "";
        // The port follows the last colon, so an IPv6 host needs brackets.
        const size_t colon = value.rfind(':');
        std::optional<std::string> host;
        if (colon != std::string::npos) host = HostOf(value.substr(0, colon));
        const bool bracketed = !value.empty() && value.front() == '[';
        const bool host_ok =
            host && !host->empty() &&
            (bracketed ? value[colon - 1] == ']' : host->find(':') == std::string::npos);
        auto port =
            colon == std::string::npos ? std::nullopt : ParseUnsigned(value.substr(colon + 1));
        if (host_ok && port && *port <= kMaxPort) return "";
        return "'" + value + "' is not HOST:PORT with a port in " + Range(0, kMaxPort) +
               " (an IPv6 host goes in brackets: [::1]:50051)";
      },
      "");
}

template <size_t N>
CLI::Validator OneOf(const char* const (&choices)[N]) {
  std::string list;
  for (const char* choice : choices) list += (list.empty() ? "" : "|") + std::string(choice);
  return CLI::Validator(
      [list, &choices](std::string& value) -> std::string {
        if (std::find(std::begin(choices), std::end(choices), value) != std::end(choices)) {
          return "";
        }
        return "'" + value + "' is not one of " + list;
      },
      "");
}

CLI::Validator CheckLevelName() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        sim::CheckLevel level;
        if (sim::ParseCheckLevel(value, &level)) return "";
        return "'" + value + "' is not one of off|warn|strict|strict-all";
      },
      "");
}

CLI::Validator NonEmpty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) -> std::string {
        return value.empty() ? "an empty value is not " + what : "";
      },
      "");
}

// Kinds of flag: each adds one to the current group with its help text, range and default.

template <typename Field>
CLI::Option* AddCount(CLI::App& app, const std::string& name, Field* field, uint64_t min,
                      uint64_t max, const std::string& help) {
  return app.add_option(name, *field, Wrap(help + " Range " + Range(min, max) + "."))
      ->type_name("N")
      ->check(UnsignedIn(min, max))
      ->capture_default_str();
}

CLI::Option* AddBytes(CLI::App& app, const std::string& name, uint64_t* field, uint64_t min,
                      const std::string& help) {
  return app.add_option(name, *field, Wrap(help))
      ->type_name("BYTES")
      ->transform(ByteSizeFrom(min))
      ->default_str(FormatByteSize(*field));
}

CLI::Option* AddPath(CLI::App& app, const std::string& name, std::string* field,
                     const std::string& type, const std::string& help) {
  return app.add_option(name, *field, Wrap(help))
      ->type_name(type)
      ->check(NonEmpty("a " + type + " name"));
}

// The one definition of every flag. `options` receives the parsed values, and its defaults are
// the ones --help shows.
void DefineFlags(CLI::App& app, DaemonOptions& options) {
  const uint64_t u32max = std::numeric_limits<uint32_t>::max();
  app.description(
      Wrap("The Ascend AI Core simulator daemon: serves aicore.service.v1.Simulator over gRPC, "
           "plus grpc.health.v1.Health and (unless --no-reflection) server reflection.",
           kHelpWidth) +
      "\n");
  app.footer(
      "Every flag is --flag VALUE or --flag=VALUE (write a value that starts with '-' as "
      "--flag=VALUE).\nBYTES take the binary suffixes K, M, G and T: 1G = 1073741824.");
  app.get_formatter()->column_width(kNameColumn);
  app.get_formatter()->label("OPTIONS", "FLAGS");
  // A repeated flag overrides the earlier one, so a wrapper can append to a command line.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  app.option_defaults()->group("Serving");
  app.add_option("--listen", options.listen,
                 Wrap("Address to serve on. Port 0 picks a free port; the first line on stdout "
                      "is `listening on HOST:PORT` with the bound port. A non-loopback address "
                      "needs --token-file or --tls-cert/--tls-key, or --insecure."))
      ->type_name("HOST:PORT")
      ->check(HostPort(/*allow_empty=*/false))
      ->capture_default_str();
  AddCount(app, "--workers", &options.workers, 0, 1024,
           "Simulation worker threads. 0 = one per hardware thread (here " +
               std::to_string(HardwareThreads()) +
               "); a container's CPU quota does not change that count, so set it there.");
  AddCount(app, "--max-queue", &options.max_queue, 0, 1'000'000,
           "Launches and runs admitted beyond the running ones before new ones get "
           "RESOURCE_EXHAUSTED.");
  AddCount(app, "--max-client-queue", &options.max_client_queue, 1, 1'000'000,
           "Launches and runs one client (one session, or one client's one-shot runs) may have "
           "admitted at once; past it that client gets RESOURCE_EXHAUSTED while others go on.");
  AddCount(app, "--max-sessions", &options.max_sessions, 1, 1'000'000,
           "Open sessions plus in-progress one-shot runs.");
  AddCount(app, "--session-idle-seconds", &options.session_idle_seconds, 1, u32max,
           "Sessions unused this long are closed and their memory freed.");
  AddCount(app, "--shutdown-grace-ms", &options.shutdown_grace_ms, 0, u32max,
           "On SIGTERM/SIGINT, how long in-flight work may finish before it is cancelled.");

  app.option_defaults()->group("Limits");
  AddBytes(app, "--session-memory-limit", &options.session_memory_limit, 0,
           "Device memory one session (or one run) may allocate.");
  const std::optional<uint64_t> half_memory = HalfOfPhysicalMemory();
  AddBytes(app, "--memory-budget", &options.memory_budget, 0,
           "Device memory of all sessions and runs plus the program cache's bound, "
           "together. 0 = half of this machine's physical memory (here " +
               (half_memory ? GiB(*half_memory) : std::string("unknown")) +
               "); a container's memory limit does not change that, so set it below the limit.");
  AddBytes(app, "--program-cache-bytes", &options.program_cache_bytes, 1,
           "Bound of the decoded-program cache, in bytes of decoded programs.");
  AddCount(app, "--max-cycles", &options.max_cycles, 0, std::numeric_limits<uint64_t>::max(),
           "Cycle limit of one launch; a client may ask for less, never more. 0 = unlimited.");
  AddCount(app, "--max-wall-ms", &options.max_wall_ms, 0, u32max,
           "Wall-time limit of one launch or run, counted from its arrival (queueing included); "
           "a client may ask for less (LaunchOptions.max_wall_ms), never more. Past it the "
           "launch is not started, or a running simulation is cancelled, and fails with "
           "DEADLINE_EXCEEDED; the session stays usable. 0 = none; the default is ten minutes.");
  AddPath(app, "--trace-root", &options.trace_root, "DIR",
          "Allow LaunchOptions.trace_dir: msprof-style traces are written on this host below "
          "DIR (symlinks resolved). Default: traces refused.");
  AddBytes(app, "--trace-quota", &options.trace_quota, 1,
           "Trace bytes one session (or one run) may write below --trace-root.");
  app.add_option_function<std::string>(
         "--check",
         [&options](const std::string& value) { sim::ParseCheckLevel(value, &options.check); },
         Wrap("Race, initialisation and sync checks of launches that do not ask for a level "
              "(LaunchOptions.check): off, warn, strict or strict-all. strict fails a report "
              "with a race or error, strict-all one with any finding (docs/checkers.md)."))
      ->type_name("LEVEL")
      ->check(CheckLevelName())
      ->default_str(std::string(sim::CheckLevelName(options.check)));

  app.option_defaults()->group("Security");
  app.add_flag("--insecure", options.insecure,
               Wrap("Allow --listen and --metrics-listen on a non-loopback address without "
                    "authentication or TLS: only for a network where every host is trusted."));
  AddPath(app, "--token-file", &options.token_file, "FILE",
          "Require a bearer token (gRPC metadata `authorization: Bearer TOKEN`) from every "
          "client: the accepted tokens, one per line.");
  CLI::Option* tls_cert = AddPath(app, "--tls-cert", &options.tls_cert, "FILE",
                                  "Serve TLS with this PEM certificate chain.");
  CLI::Option* tls_key =
      AddPath(app, "--tls-key", &options.tls_key, "FILE", "The PEM private key of --tls-cert.");
  tls_cert->needs(tls_key);
  tls_key->needs(tls_cert);

  app.option_defaults()->group("Observability");
  app.add_option("--log-level", options.log_level,
                 Wrap("trace, debug, info, warn, error, critical or off; logs go to stderr."))
      ->type_name("LEVEL")
      ->check(OneOf(kLogLevels))
      ->capture_default_str();
  app.add_option("--metrics-listen", options.metrics_listen,
                 Wrap("Serve Prometheus metrics over HTTP on this address (unauthenticated: a "
                      "non-loopback one needs --insecure). Default: no metrics endpoint."))
      ->type_name("HOST:PORT")
      ->check(HostPort(/*allow_empty=*/true));
  app.add_flag_callback(
      "--no-reflection", [&options] { options.reflection = false; },
      Wrap("Turn gRPC server reflection off (it is on by default)."));

  app.option_defaults()->group("Other");
  // Set again here so that they are listed last.
  app.set_help_flag("-h,--help", "Print this help and exit.");
  app.set_version_flag("--version", "aicore-simd " AICORE_SIM_VERSION,
                       "Print the version and exit.");
}

ParseResult Fail(const std::string& message) {
  return ParseResult{std::nullopt, 2, "aicore-simd: " + message + "\nTry --help.\n"};
}

// What CLI11 could not place: unknown flags first, as they are the likelier typo.
std::string LeftOver(const std::vector<std::string>& items) {
  std::string flags, others;
  size_t flag_count = 0, other_count = 0;
  for (const std::string& item : items) {
    const bool flag = item.rfind('-', 0) == 0;
    std::string& list = flag ? flags : others;
    list += (list.empty() ? "'" : ", '") + item.substr(0, item.find('=')) + "'";
    ++(flag ? flag_count : other_count);
  }
  if (flag_count > 0) return (flag_count == 1 ? "unknown flag " : "unknown flags ") + flags;
  return (other_count == 1 ? "unexpected argument " : "unexpected arguments ") + others +
         " (aicore-simd takes flags only)";
}

// The rules CLI11 cannot express: no unprotected endpoint off loopback unless asked for.
std::optional<std::string> SecurityError(const DaemonOptions& options) {
  if (options.insecure) return std::nullopt;
  if (!IsLoopbackHost(options.listen) && options.token_file.empty() && options.tls_cert.empty()) {
    return "--listen " + options.listen +
           " is not a loopback address, so any host that reaches it could run kernels and read "
           "session memory. Choose one: --token-file FILE (clients must send a bearer token), "
           "--tls-cert FILE with --tls-key FILE (TLS), or --insecure (serve it unprotected, on a "
           "trusted network only).";
  }
  if (!options.metrics_listen.empty() && !IsLoopbackHost(options.metrics_listen)) {
    return "--metrics-listen " + options.metrics_listen +
           " is not a loopback address and the metrics endpoint has no authentication: bind it "
           "to a loopback address (127.0.0.1:PORT), or give --insecure to publish it anyway.";
  }
  return std::nullopt;
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

bool IsLoopbackHost(const std::string& host_port) {
  std::optional<std::string> host = HostOf(host_port);
  // A NUL would end the address inet_pton reads while the server is given the whole string.
  if (!host || host->find('\0') != std::string::npos) return false;
  std::string lower = *host;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host->c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host->c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

std::string UsageText() {
  DaemonOptions options;
  CLI::App app{"", "aicore-simd"};
  DefineFlags(app, options);
  return app.help();
}

std::vector<std::string> FlagNames() {
  DaemonOptions options;
  CLI::App app{"", "aicore-simd"};
  DefineFlags(app, options);
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

ParseResult ParseOptions(int argc, char** argv) {
  DaemonOptions options;
  CLI::App app{"", "aicore-simd"};
  DefineFlags(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return ParseResult{std::nullopt, 0, app.help()};
  } catch (const CLI::CallForVersion& version) {
    return ParseResult{std::nullopt, 0, std::string(version.what()) + "\n"};
  } catch (const CLI::ExtrasError&) {
    return Fail(LeftOver(app.remaining()));
  } catch (const CLI::ParseError& error) {
    return Fail(error.what());
  }
  if (auto error = SecurityError(options)) return Fail(*error);
  if (options.workers == 0) options.workers = HardwareThreads();
  if (options.memory_budget == 0) {
    std::optional<uint64_t> half_memory = HalfOfPhysicalMemory();
    if (!half_memory) {
      return Fail(
          "cannot read this machine's physical memory size for the default --memory-budget; "
          "give --memory-budget BYTES");
    }
    options.memory_budget = *half_memory;
  }
  return ParseResult{options, 0, ""};
}

}  // namespace aicore::daemon
