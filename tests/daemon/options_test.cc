// Unit tests of the daemon's flag parsing: every flag of --help parses, bad values name the flag,
// the value and the range, and an unprotected daemon is refused off loopback.
#include "src/options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "aicore/version.h"

namespace aicore::daemon {
namespace {

ParseResult Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "aicore-simd");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseOptions(static_cast<int>(argv.size()), argv.data());
}

// A command line as its words, like a shell splits one without quotes.
std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

uint64_t HalfOfPhysicalMemory() {
  return static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE) / 2;
}

TEST(OptionsTest, EveryFlagParses) {
  ParseResult r = Parse(Words(
      "--listen 0.0.0.0:0 --insecure --workers=3 --max-queue 5 --max-client-queue=4 "
      "--max-sessions 7 --session-memory-limit 2G --memory-budget 6G --program-cache-bytes=64M "
      "--max-cycles 123 --max-wall-ms 456 --session-idle-seconds 9 --shutdown-grace-ms 10 "
      "--log-level debug --trace-root /tmp/traces --trace-quota 512K --check strict "
      "--token-file /etc/tokens --tls-cert /etc/cert.pem --tls-key=/etc/key.pem "
      "--metrics-listen 0.0.0.0:9090 --no-reflection"));
  ASSERT_TRUE(r.options) << r.message;
  const DaemonOptions& o = *r.options;
  EXPECT_EQ(o.listen, "0.0.0.0:0");
  EXPECT_TRUE(o.insecure);
  EXPECT_EQ(o.workers, 3u);
  EXPECT_EQ(o.max_queue, 5u);
  EXPECT_EQ(o.max_client_queue, 4u);
  EXPECT_EQ(o.max_sessions, 7u);
  EXPECT_EQ(o.session_memory_limit, 2ull << 30);
  EXPECT_EQ(o.memory_budget, 6ull << 30);
  EXPECT_EQ(o.program_cache_bytes, 64ull << 20);
  EXPECT_EQ(o.max_cycles, 123u);
  EXPECT_EQ(o.max_wall_ms, 456u);
  EXPECT_EQ(o.session_idle_seconds, 9u);
  EXPECT_EQ(o.shutdown_grace_ms, 10u);
  EXPECT_EQ(o.log_level, "debug");
  EXPECT_EQ(o.trace_root, "/tmp/traces");
  EXPECT_EQ(o.trace_quota, 512ull << 10);
  EXPECT_EQ(o.check, sim::CheckLevel::kStrict);
  EXPECT_EQ(o.token_file, "/etc/tokens");
  EXPECT_EQ(o.tls_cert, "/etc/cert.pem");
  EXPECT_EQ(o.tls_key, "/etc/key.pem");
  EXPECT_EQ(o.metrics_listen, "0.0.0.0:9090");
  EXPECT_FALSE(o.reflection);
}

TEST(OptionsTest, DefaultsFitTheMachine) {
  ParseResult r = Parse({});
  ASSERT_TRUE(r.options) << r.message;
  const DaemonOptions& o = *r.options;
  EXPECT_EQ(o.listen, "127.0.0.1:50051");
  EXPECT_GE(o.workers, 1u);  // 0 resolves to the hardware threads
  EXPECT_EQ(o.memory_budget, HalfOfPhysicalMemory());
  EXPECT_EQ(o.program_cache_bytes, 256ull << 20);
  EXPECT_EQ(o.trace_quota, 1ull << 30);
  EXPECT_EQ(o.max_client_queue, 16u);
  EXPECT_FALSE(o.insecure);
  EXPECT_TRUE(o.token_file.empty());
  EXPECT_TRUE(o.tls_cert.empty());
  EXPECT_TRUE(o.tls_key.empty());
  EXPECT_TRUE(o.metrics_listen.empty());
  EXPECT_TRUE(o.reflection);
  EXPECT_EQ(o.check, sim::CheckLevel::kWarn);

  ParseResult zero = Parse({"--memory-budget", "0", "--workers", "0"});
  ASSERT_TRUE(zero.options) << zero.message;
  EXPECT_EQ(zero.options->memory_budget, HalfOfPhysicalMemory());
  EXPECT_GE(zero.options->workers, 1u);
}

TEST(OptionsTest, HelpListsEveryFlagWithItsTextAndDefault) {
  ParseResult r = Parse({"--help"});
  ASSERT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.message, UsageText());
  const std::vector<std::string> names = FlagNames();
  // The definitions hold every flag the daemon is known by, none dropped by accident ...
  for (const std::string& flag :
       Words("--listen --workers --max-queue --max-client-queue --max-sessions "
             "--session-memory-limit --memory-budget --program-cache-bytes --max-cycles "
             "--max-wall-ms --session-idle-seconds --shutdown-grace-ms --log-level --trace-root "
             "--trace-quota --check --insecure --token-file --tls-cert --tls-key --metrics-listen "
             "--no-reflection --help --version")) {
    EXPECT_NE(std::find(names.begin(), names.end(), flag), names.end()) << flag;
  }
  // ... and --help lists each of them on a line of its own, with help text on that line.
  for (const std::string& name : names) {
    std::istringstream lines(r.message);
    std::string line;
    bool listed = false;
    while (std::getline(lines, line)) {
      const size_t at = line.find(name);
      // Names start the name column (column 2, or 5 after "-h,"); the text mentions others.
      const bool names_this_flag = at < 8 &&  // npos is never < 8
                                   (at + name.size() == line.size() ||
                                    line[at + name.size()] == ' ' || line[at + name.size()] == '=');
      if (!names_this_flag) continue;
      listed = true;
      EXPECT_GT(line.size(), 40u) << "no help text for " << name << ": " << line;
    }
    EXPECT_TRUE(listed) << name << " missing from\n" << r.message;
  }
  for (const char* with_default :
       {"--listen HOST:PORT=127.0.0.1:50051", "--max-queue N=64", "--max-client-queue N=16",
        "--max-sessions N=64", "--session-memory-limit BYTES=1G", "--memory-budget BYTES=0",
        "--program-cache-bytes BYTES=256M", "--max-cycles N=1000000000", "--max-wall-ms N=600000",
        "--session-idle-seconds N=600", "--shutdown-grace-ms N=10000", "--log-level LEVEL=info",
        "--trace-quota BYTES=1G", "--check LEVEL=warn", "--workers N=0"}) {
    EXPECT_TRUE(Contains(r.message, with_default)) << with_default;
  }
}

TEST(OptionsTest, VersionPrintsTheProjectVersion) {
  ParseResult r = Parse({"--version"});
  ASSERT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.message, "aicore-simd " AICORE_SIM_VERSION "\n");
}

TEST(OptionsTest, BadValuesNameTheFlagTheValueAndTheRange) {
  struct Case {
    std::vector<std::string> args;
    std::string range;  // expected in the message besides the flag and the value
  };
  for (const Case& c : std::vector<Case>{
           {{"--listen", "nohost"}, "0..65535"},
           {{"--listen", "h:70000"}, "0..65535"},
           {{"--listen", "::1:50051"}, "[::1]:50051"},
           {{"--listen", ":50051"}, "0..65535"},
           {{"--metrics-listen", "nohost"}, "0..65535"},
           {{"--workers", "-1"}, "0..1024"},
           {{"--workers=1025"}, "0..1024"},
           {{"--max-queue", "1000001"}, "0..1000000"},
           {{"--max-client-queue", "0"}, "1..1000000"},
           {{"--max-client-queue=1000001"}, "1..1000000"},
           {{"--max-sessions", "0"}, "1..1000000"},
           {{"--session-idle-seconds", "0"}, "1..4294967295"},
           {{"--max-wall-ms", "4294967296"}, "0..4294967295"},
           {{"--max-cycles", "18446744073709551616"}, "0..18446744073709551615"},
           {{"--shutdown-grace-ms", "soon"}, "0..4294967295"},
           {{"--session-memory-limit", "12X"}, "1G"},
           {{"--memory-budget", "-1G"}, "1G"},
           {{"--program-cache-bytes", "0"}, "1.."},
           {{"--trace-quota", "99999999999T"}, "1.."},
           {{"--log-level", "loud"}, "trace|debug|info|warn|error|critical|off"},
           {{"--check", "maybe"}, "off|warn|strict|strict-all"},
       }) {
    ParseResult r = Parse(c.args);
    const std::string flag = c.args[0].substr(0, c.args[0].find('='));
    const std::string value =
        c.args.size() > 1 ? c.args[1] : c.args[0].substr(c.args[0].find('=') + 1);
    EXPECT_FALSE(r.options) << flag;
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_TRUE(Contains(r.message, flag)) << r.message;
    EXPECT_TRUE(Contains(r.message, "'" + value + "'")) << r.message;
    EXPECT_TRUE(Contains(r.message, c.range)) << r.message;
    EXPECT_TRUE(Contains(r.message, "Try --help.")) << r.message;
  }
}

TEST(OptionsTest, MissingValuesAndUnknownFlagsNameTheFlag) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--max-cycles"},
                                                                {"--trace-root="},
                                                                {"--token-file"},
                                                                {"--frobnicate", "1"},
                                                                {"stray"}}) {
    ParseResult r = Parse(args);
    EXPECT_FALSE(r.options) << args[0];
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(Contains(r.message, args[0].substr(0, args[0].find('=')))) << r.message;
    EXPECT_TRUE(Contains(r.message, "Try --help.")) << r.message;
  }
}

TEST(OptionsTest, UnknownFlagsAndStrayWordsAreNamed) {
  ParseResult flag = Parse({"--no-such-flag=1", "--listen", "127.0.0.1:0"});
  EXPECT_TRUE(Contains(flag.message, "unknown flag '--no-such-flag'")) << flag.message;
  ParseResult word = Parse({"--workers", "2", "stray"});
  EXPECT_TRUE(Contains(word.message, "unexpected argument 'stray'")) << word.message;
}

TEST(OptionsTest, ALaterFlagOverridesAnEarlierOne) {
  ParseResult r = Parse({"--workers", "3", "--workers=4"});
  ASSERT_TRUE(r.options) << r.message;
  EXPECT_EQ(r.options->workers, 4u);
}

TEST(OptionsTest, ByteSizes) {
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_EQ(ParseByteSize("64K"), 64u << 10);
  EXPECT_EQ(ParseByteSize("3m"), 3u << 20);
  EXPECT_EQ(ParseByteSize("2T"), 2ull << 40);
  EXPECT_FALSE(ParseByteSize(""));
  EXPECT_FALSE(ParseByteSize("G"));
  EXPECT_FALSE(ParseByteSize("1.5G"));
  EXPECT_FALSE(ParseByteSize("99999999999T"));
}

TEST(OptionsTest, EveryByteSizeFlagTakesSuffixes) {
  ParseResult r = Parse({"--session-memory-limit=3K", "--memory-budget", "5m",
                         "--program-cache-bytes", "7G", "--trace-quota=1T"});
  ASSERT_TRUE(r.options) << r.message;
  EXPECT_EQ(r.options->session_memory_limit, 3ull << 10);
  EXPECT_EQ(r.options->memory_budget, 5ull << 20);
  EXPECT_EQ(r.options->program_cache_bytes, 7ull << 30);
  EXPECT_EQ(r.options->trace_quota, 1ull << 40);
}

TEST(OptionsTest, ALaunchHasATenMinuteWallLimitByDefault) {
  // At the default cycle cap one launch held a worker for ~40 s a block, ~10 minutes on eight.
  ParseResult r = Parse({});
  ASSERT_TRUE(r.options) << r.message;
  EXPECT_EQ(r.options->max_wall_ms, 10u * 60 * 1000);
  ParseResult off = Parse({"--max-wall-ms", "0"});
  ASSERT_TRUE(off.options) << off.message;
  EXPECT_EQ(off.options->max_wall_ms, 0u);
}

TEST(OptionsTest, LoopbackHosts) {
  for (const char* host : {"127.0.0.1:50051", "127.1.2.3:0", "localhost:0", "LocalHost:1",
                           "[::1]:50051", "[::1]", "::1", "127.0.0.1", "localhost"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
  for (const char* host :
       {"0.0.0.0:50051", "[::]:50051", "::", "10.0.0.1:1", "128.0.0.1:1", "example.com:1",
        "localhost.example.com:1", "127.0.0.1.example.com:1", "[::1:1", "", ":50051"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
  const char kEmbeddedNul[] = "127.0.0.1\0.example.com:1";
  EXPECT_FALSE(IsLoopbackHost(std::string(kEmbeddedNul, sizeof(kEmbeddedNul) - 1)));
}

TEST(OptionsTest, ANonLoopbackListenNeedsATokenTlsOrInsecure) {
  for (const char* address : {"0.0.0.0:50051", "[::]:50051", "10.1.2.3:1", "simd.example:1"}) {
    ParseResult refused = Parse({"--listen", address});
    EXPECT_FALSE(refused.options) << address;
    EXPECT_EQ(refused.exit_code, 2);
    for (const char* choice : {"--listen", address, "--token-file", "--tls-cert", "--tls-key",
                               "--insecure", "Try --help."}) {
      EXPECT_TRUE(Contains(refused.message, choice)) << choice << " in " << refused.message;
    }
    for (const auto& protection : std::vector<std::vector<std::string>>{
             {"--insecure"}, {"--token-file", "tokens"}, {"--tls-cert", "c", "--tls-key", "k"}}) {
      std::vector<std::string> args = protection;
      args.insert(args.end(), {"--listen", address});
      ParseResult accepted = Parse(args);
      EXPECT_TRUE(accepted.options) << address << ": " << accepted.message;
    }
  }
  for (const char* address : {"127.0.0.1:0", "127.9.9.9:1", "localhost:0", "[::1]:0"}) {
    ParseResult r = Parse({"--listen", address});
    EXPECT_TRUE(r.options) << address << ": " << r.message;
  }
}

TEST(OptionsTest, ANonLoopbackMetricsEndpointNeedsInsecure) {
  // Metrics are unauthenticated: a token file or TLS on the gRPC port does not cover them.
  ParseResult refused = Parse({"--metrics-listen", "0.0.0.0:9090", "--token-file", "tokens"});
  EXPECT_FALSE(refused.options);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_TRUE(Contains(refused.message, "--metrics-listen 0.0.0.0:9090")) << refused.message;
  EXPECT_TRUE(Contains(refused.message, "--insecure")) << refused.message;

  ParseResult insecure = Parse({"--metrics-listen", "0.0.0.0:9090", "--insecure"});
  ASSERT_TRUE(insecure.options) << insecure.message;
  EXPECT_EQ(insecure.options->metrics_listen, "0.0.0.0:9090");
  ParseResult loopback = Parse({"--metrics-listen=127.0.0.1:9090"});
  ASSERT_TRUE(loopback.options) << loopback.message;
  EXPECT_EQ(loopback.options->metrics_listen, "127.0.0.1:9090");
}

TEST(OptionsTest, TlsNeedsBothTheCertificateAndTheKey) {
  ParseResult cert_only = Parse({"--tls-cert", "cert.pem"});
  EXPECT_FALSE(cert_only.options);
  EXPECT_EQ(cert_only.exit_code, 2);
  EXPECT_TRUE(Contains(cert_only.message, "--tls-cert requires --tls-key")) << cert_only.message;
  ParseResult key_only = Parse({"--tls-key", "key.pem"});
  EXPECT_FALSE(key_only.options);
  EXPECT_TRUE(Contains(key_only.message, "--tls-key requires --tls-cert")) << key_only.message;
  ParseResult both = Parse({"--tls-cert", "cert.pem", "--tls-key", "key.pem"});
  ASSERT_TRUE(both.options) << both.message;
  EXPECT_EQ(both.options->tls_cert, "cert.pem");
  EXPECT_EQ(both.options->tls_key, "key.pem");
}

TEST(OptionsTest, FlagsWithoutValues) {
  ParseResult r = Parse({"--no-reflection", "--insecure"});
  ASSERT_TRUE(r.options) << r.message;
  EXPECT_FALSE(r.options->reflection);
  EXPECT_TRUE(r.options->insecure);
  // A flag takes no separate value: a word after it is a stray argument.
  ParseResult stray = Parse({"--insecure", "yes"});
  EXPECT_FALSE(stray.options);
  EXPECT_EQ(stray.exit_code, 2);
}

}  // namespace
}  // namespace aicore::daemon
