// Unit tests of the daemon's flag parsing: every flag of --help parses, bad values name the flag.
#include "src/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace aicore::daemon {
namespace {

ParseResult Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "aicore-simd");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseOptions(static_cast<int>(argv.size()), argv.data());
}

TEST(OptionsTest, EveryFlagParses) {
  ParseResult r =
      Parse({"--listen", "0.0.0.0:0", "--workers=3", "--max-queue", "5", "--max-sessions", "7",
             "--session-memory-limit", "2G", "--max-cycles", "123", "--max-wall-ms", "456",
             "--session-idle-seconds", "9", "--shutdown-grace-ms", "10", "--log-level", "debug"});
  ASSERT_TRUE(r.options) << r.message;
  EXPECT_EQ(r.options->listen, "0.0.0.0:0");
  EXPECT_EQ(r.options->workers, 3u);
  EXPECT_EQ(r.options->max_queue, 5u);
  EXPECT_EQ(r.options->max_sessions, 7u);
  EXPECT_EQ(r.options->session_memory_limit, 2ull << 30);
  EXPECT_EQ(r.options->max_cycles, 123u);
  EXPECT_EQ(r.options->max_wall_ms, 456u);
  EXPECT_EQ(r.options->session_idle_seconds, 9u);
  EXPECT_EQ(r.options->shutdown_grace_ms, 10u);
  EXPECT_EQ(r.options->log_level, "debug");
}

TEST(OptionsTest, HelpMentionsEveryFlag) {
  ParseResult r = Parse({"--help"});
  ASSERT_FALSE(r.options);
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--listen", "--workers", "--max-queue", "--max-sessions",
                           "--session-memory-limit", "--max-cycles", "--max-wall-ms",
                           "--session-idle-seconds", "--shutdown-grace-ms", "--log-level"}) {
    EXPECT_NE(r.message.find(flag), std::string::npos) << flag;
  }
}

TEST(OptionsTest, BadValuesNameTheFlag) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--listen", "nohost"},
                                                                {"--listen", "h:70000"},
                                                                {"--workers", "-1"},
                                                                {"--max-sessions", "0"},
                                                                {"--session-memory-limit", "12X"},
                                                                {"--log-level", "loud"},
                                                                {"--max-cycles"},
                                                                {"--frobnicate", "1"}}) {
    ParseResult r = Parse(args);
    EXPECT_FALSE(r.options) << args[0];
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.message.find(args[0]), std::string::npos) << r.message;
  }
}

TEST(OptionsTest, ByteSizes) {
  EXPECT_EQ(ParseByteSize("4096"), 4096u);
  EXPECT_EQ(ParseByteSize("64K"), 64u << 10);
  EXPECT_EQ(ParseByteSize("3m"), 3u << 20);
  EXPECT_FALSE(ParseByteSize(""));
  EXPECT_FALSE(ParseByteSize("G"));
  EXPECT_FALSE(ParseByteSize("99999999999T"));
}

}  // namespace
}  // namespace aicore::daemon

namespace aicore::daemon {
namespace {

TEST(OptionsTest, ALaunchHasATenMinuteWallLimitByDefault) {
  // At the default cycle cap one launch held a worker for ~40 s a block, ~10 minutes on eight.
  ParseResult r = Parse({});
  ASSERT_TRUE(r.options) << r.message;
  EXPECT_EQ(r.options->max_wall_ms, 10u * 60 * 1000);
  ParseResult off = Parse({"--max-wall-ms", "0"});
  ASSERT_TRUE(off.options) << off.message;
  EXPECT_EQ(off.options->max_wall_ms, 0u);
}

}  // namespace
}  // namespace aicore::daemon
