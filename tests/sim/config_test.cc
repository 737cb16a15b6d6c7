// SoC configs: every built-in platform loads and is complete; unknown platforms list the known
// ones; unknown or missing fields are rejected with the field's name; the override directory
// works; ToProto round-trips.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "sim/bridge/bridge.h"
#include "sim/bridge/builtin_configs.h"

namespace aicore::sim {
namespace {

const std::vector<std::string> kPlatforms = {"Ascend910B1",    "Ascend910B2",    "Ascend910B2C",
                                             "Ascend910B3",    "Ascend910B4",    "Ascend910B4-1",
                                             "Ascend910_9362", "Ascend910_9372", "Ascend910_9381",
                                             "Ascend910_9382", "Ascend910_9391", "Ascend910_9392"};

std::string Builtin(const std::string& name) {
  for (const auto& [n, text] : BuiltinConfigs()) {
    if (n == name) return text;
  }
  return "";
}

TEST(Config, AllTwelvePlatformsLoad) {
  std::vector<std::string> listed = ListPlatforms();
  std::vector<std::string> want = kPlatforms;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(listed, want);
  for (const std::string& p : kPlatforms) {
    auto c = LoadSocConfig(p);
    ASSERT_TRUE(c.ok()) << p << ": " << c.status().message();
    EXPECT_EQ(c->name, p);
    EXPECT_EQ(c->vector_cores, 2 * c->cube_cores) << p;
    EXPECT_EQ(c->ub_bytes, 196608u) << p;
    EXPECT_EQ(c->flag_ids_per_event, 8u) << p;
    EXPECT_GT(c->hbm_read_bytes_per_cycle, 0) << p;
    EXPECT_GT(c->hbm_write_bytes_per_cycle, 0) << p;
    EXPECT_EQ(c->l2.line_bytes, 512u) << p;
    EXPECT_EQ(c->ub_banks.groups, 16u) << p;
    // The same physical HBM and launch figures on every SKU, converted at its own clock.
    EXPECT_NEAR(c->hbm_read_bytes_per_cycle * c->clock_mhz,
                LoadSocConfig("Ascend910B1")->hbm_read_bytes_per_cycle * 1850, 1e-2 * 1850)
        << p;
  }
}

TEST(Config, DefaultPlatformIs910B1) {
  auto c = LoadSocConfig("");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->name, "Ascend910B1");
  EXPECT_EQ(c->clock_mhz, 1850);
}

TEST(Config, EveryLineCitesASourceOrSaysAssumed) {
  for (const std::string& p : kPlatforms) {
    std::string text = Builtin(p);
    ASSERT_FALSE(text.empty()) << p;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      bool has_value = line.find(':') != std::string::npos && line.find('#') != 0 &&
                       line.find_first_not_of(' ') != std::string::npos &&
                       line[line.find_first_not_of(' ')] != '#';
      if (!has_value) continue;
      EXPECT_NE(line.find('#'), std::string::npos) << p << ": " << line;
    }
  }
}

TEST(Config, UnknownPlatformListsTheKnownOnes) {
  auto c = LoadSocConfig("Ascend310P");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("Ascend910B1"), std::string::npos);
  EXPECT_NE(c.status().message().find("Ascend910_9392"), std::string::npos);
  EXPECT_EQ(LoadSocConfig("../etc/passwd").status().code(), StatusCode::kInvalidArgument);
}

TEST(Config, UnknownFieldIsRejected) {
  std::string text = Builtin("Ascend910B2") + "\nwarp_size: 32\n";
  auto c = ParseSocConfig(text, "test.textproto");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("warp_size"), std::string::npos) << c.status().message();
}

TEST(Config, MissingOrZeroFieldsAreNamed) {
  std::string text = Builtin("Ascend910B2");
  auto drop = [&](const std::string& key) {
    std::string out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.find(key) == std::string::npos) out += line + "\n";
    }
    return out;
  };
  auto c = ParseSocConfig(drop("clock_mhz:"), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("field clock_mhz: must be > 0"), std::string::npos)
      << c.status().message();
  c = ParseSocConfig(drop("core_bytes_per_cycle: 25.81"), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("mte2.core_bytes_per_cycle"), std::string::npos)
      << c.status().message();
  c = ParseSocConfig(drop("op: \"exp\""), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("no row for op \"exp\""), std::string::npos)
      << c.status().message();
  std::string warp = text;
  warp.replace(warp.find("op: \"div\""), 10, "op: \"warp\"");
  c = ParseSocConfig(warp, "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("unknown vector op \"warp\""), std::string::npos)
      << c.status().message();
}

TEST(Config, TimingModelFieldsAreChecked) {
  std::string text = Builtin("Ascend910B1");
  auto replace = [&](const std::string& key, const std::string& line) {
    size_t pos = text.find(key);
    EXPECT_NE(pos, std::string::npos) << key;
    return text.substr(0, pos) + line + "\n" + text.substr(text.find('\n', pos) + 1);
  };
  struct Case {
    const char* key;
    const char* line;
    const char* message;
  };
  for (const Case& k : {
           Case{"hbm_read_bytes_per_cycle:", "  hbm_read_bytes_per_cycle: 0",
                "gm.hbm_read_bytes_per_cycle: must be > 0"},
           Case{"hbm_write_bytes_per_cycle:", "  hbm_write_bytes_per_cycle: -1",
                "gm.hbm_write_bytes_per_cycle: must be > 0"},
           Case{"misaligned_efficiency:", "  misaligned_efficiency: 1.5",
                "gm.misaligned_efficiency: must be in (0, 1]"},
           Case{"request_bytes:", "  request_bytes: 500",
                "gm.request_bytes: must be a power of two"},
           Case{"ways:", "  ways: 7", "field l2.ways: memory.l2_bytes must be a whole number"},
           Case{"line_bytes:", "  line_bytes: 0", "l2.line_bytes: must be > 0"},
           Case{"groups:", "  groups: 0", "ub_banks.groups: must be > 0"},
       }) {
    auto c = ParseSocConfig(replace(k.key, k.line), "t");
    ASSERT_FALSE(c.ok()) << k.key;
    EXPECT_NE(c.status().message().find(k.message), std::string::npos) << c.status().message();
  }
}

TEST(Config, OverrideDirectory) {
  auto dir = std::filesystem::temp_directory_path() / "aicore_sim_config_test";
  std::filesystem::create_directories(dir);
  std::string text = Builtin("Ascend910B3");
  size_t pos = text.find("launch_overhead_cycles:");
  std::string changed = text.substr(0, pos) + "launch_overhead_cycles: 7  # test\n" +
                        text.substr(text.find('\n', pos) + 1);
  std::ofstream(dir / "Ascend910B3.textproto") << changed;
  setenv("AICORE_SIM_CONFIG_DIR", dir.c_str(), 1);
  auto c = LoadSocConfig("Ascend910B3");
  auto missing = LoadSocConfig("Ascend910B1");
  unsetenv("AICORE_SIM_CONFIG_DIR");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->launch_overhead_cycles, 7u);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  std::filesystem::remove_all(dir);
}

TEST(Config, ToProtoRoundTrips) {
  auto c = LoadSocConfig("Ascend910B4");
  ASSERT_TRUE(c.ok());
  aicore::config::v1::SocConfig proto;
  ToProto(*c, &proto);
  auto again = ParseSocConfig(proto.DebugString(), "roundtrip");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->clock_mhz, c->clock_mhz);
  EXPECT_EQ(again->vector_costs.size(), c->vector_costs.size());
  EXPECT_EQ(again->hbm_read_bytes_per_cycle, c->hbm_read_bytes_per_cycle);
  EXPECT_EQ(again->hbm_write_bytes_per_cycle, c->hbm_write_bytes_per_cycle);
  EXPECT_EQ(again->hbm_transfer_overhead_cycles, c->hbm_transfer_overhead_cycles);
  EXPECT_EQ(again->gm_misaligned_efficiency, c->gm_misaligned_efficiency);
  EXPECT_EQ(again->launch_overhead_per_core_cycles, c->launch_overhead_per_core_cycles);
  EXPECT_EQ(again->l2.ways, c->l2.ways);
  EXPECT_EQ(again->l2.write_allocate, c->l2.write_allocate);
  EXPECT_EQ(again->ub_banks.bank_bytes, c->ub_banks.bank_bytes);
  EXPECT_EQ(again->gm_alloc_slack_bytes, c->gm_alloc_slack_bytes);
}

}  // namespace
}  // namespace aicore::sim
