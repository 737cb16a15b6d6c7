// SoC configs: every built-in platform resolves (preset + platform file) to exactly the figures it
// had before configs became presets; a new platform file of a few lines resolves at its own
// clock; unknown platforms, presets and fields, and figures set nowhere, are rejected naming them;
// the override directory works; ToProto round-trips; the hash identifies the figures.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <type_traits>

#include "sim/bridge/bridge.h"
#include "sim/bridge/builtin_configs.h"
#include "soc_config.pb.h"

namespace aicore::sim {
namespace {

const std::vector<std::string> kPlatforms = {"Ascend910B1",    "Ascend910B2",    "Ascend910B2C",
                                             "Ascend910B3",    "Ascend910B4",    "Ascend910B4-1",
                                             "Ascend910_9362", "Ascend910_9372", "Ascend910_9381",
                                             "Ascend910_9382", "Ascend910_9391", "Ascend910_9392"};

namespace cfg = aicore::config::v1;

std::string Builtin(const std::string& name) {
  for (const auto& [n, text] : BuiltinConfigs()) {
    if (n == name) return text;
  }
  return "";
}

std::string ReadTestFile(const std::string& relative) {
  std::ifstream in(std::string(AICORE_TEST_DATA_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A complete description with no preset: the preset's text with a platform's own lines (its
// memory lines inside the preset's memory block).
std::string FullText(const std::string& platform) {
  std::string top, memory;
  std::istringstream in(Builtin(platform));
  std::string line;
  bool in_memory = false;
  while (std::getline(in, line)) {
    if (line.rfind("preset:", 0) == 0 || line.rfind('#', 0) == 0) continue;
    if (line.rfind("memory {", 0) == 0) {
      in_memory = true;
    } else if (in_memory && line == "}") {
      in_memory = false;
    } else {
      (in_memory ? memory : top) += line + "\n";
    }
  }
  std::string text = Builtin("presets/dav-c220");
  text.insert(text.find("memory {\n") + 9, memory);
  return text + top;
}

std::string Replace(const std::string& text, const std::string& key, const std::string& line) {
  size_t pos = text.find(key);
  EXPECT_NE(pos, std::string::npos) << key;
  if (pos == std::string::npos) return text;
  size_t begin = text.rfind('\n', pos);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(0, begin) + line + "\n" + text.substr(text.find('\n', pos) + 1);
}

std::string Drop(const std::string& text, const std::string& key) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(key) == std::string::npos) out += line + "\n";
  }
  return out;
}

// The resolved figures as text, leaving out what the goldens of before cannot have: the operand
// alignments (new with the memory map), the cube's cost rows (new with the cube core) and cost
// rows of instructions added since (`known_ops` are the ops the golden has rows for).
std::string ResolvedText(const SocConfig& c, const std::set<std::string>& known_ops) {
  cfg::SocConfig proto;
  ToProto(c, &proto);
  auto* costs = proto.mutable_vector()->mutable_costs();
  for (int i = costs->size() - 1; i >= 0; --i) {
    if (known_ops.count(costs->Get(i).op()) == 0) costs->DeleteSubrange(i, 1);
  }
  cfg::MemorySizes* m = proto.mutable_memory();
  m->clear_ub_alignment_bytes();
  m->clear_l1_alignment_bytes();
  m->clear_l0a_alignment_bytes();
  m->clear_l0b_alignment_bytes();
  m->clear_l0c_alignment_bytes();
  m->clear_bt_alignment_bytes();
  m->clear_fb_alignment_bytes();
  proto.clear_mte1();
  proto.clear_cube_mte2();
  proto.clear_fixpipe();
  proto.clear_cube();
  std::string text;
  google::protobuf::TextFormat::PrintToString(proto, &text);
  return text;
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

TEST(Config, EveryPlatformResolvesToTheFiguresItHadBeforePresets) {
  for (const std::string& p : kPlatforms) {
    auto c = LoadSocConfig(p);
    ASSERT_TRUE(c.ok()) << p << ": " << c.status().message();
    cfg::SocConfig golden;
    std::string golden_text = ReadTestFile("golden/resolved_configs/" + p + ".textproto");
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(golden_text, &golden)) << p;
    std::set<std::string> ops;
    for (const cfg::VectorCost& row : golden.vector().costs()) ops.insert(row.op());
    EXPECT_EQ(ResolvedText(*c, ops), ResolvedText(FromProto(golden), ops)) << p;
    EXPECT_EQ(c->ub_alignment_bytes, 32u) << p;
    EXPECT_EQ(c->l1_alignment_bytes, 32u) << p;
    EXPECT_EQ(c->l0a_alignment_bytes, 512u) << p;
    EXPECT_EQ(c->l0b_alignment_bytes, 512u) << p;
    EXPECT_EQ(c->l0c_alignment_bytes, 64u) << p;
    EXPECT_EQ(c->bt_alignment_bytes, 64u) << p;
    EXPECT_EQ(c->fb_alignment_bytes, 64u) << p;
  }
}

TEST(Config, ANewPlatformIsAShortFileResolvedAtItsOwnClock) {
  std::string text = ReadTestFile("data/Ascend910B_Example.textproto");
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 15);
  setenv("AICORE_SIM_CONFIG_DIR", (std::string(AICORE_TEST_DATA_DIR) + "/data").c_str(), 1);
  auto c = LoadSocConfig("Ascend910B_Example");
  unsetenv("AICORE_SIM_CONFIG_DIR");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->vector_cores, 32u);
  EXPECT_EQ(c->clock_mhz, 1700);
  EXPECT_EQ(c->l2_bytes, 134217728u);
  EXPECT_EQ(c->ub_bytes, 196608u);  // from the preset
  // 1.647e12 B/s and 0.9e12 B/s at 1.7 GHz; 8.235e12 B/s of L2; 1.14 ns; 384 + 116 ns.
  EXPECT_EQ(c->hbm_read_bytes_per_cycle, 968.82);
  EXPECT_EQ(c->hbm_write_bytes_per_cycle, 529.41);
  EXPECT_EQ(c->l2.bytes_per_cycle, 4844.12);
  EXPECT_EQ(c->hbm_transfer_overhead_cycles, 1.94);
  EXPECT_EQ(c->launch_overhead_cycles, 653u);
  EXPECT_EQ(c->launch_overhead_per_core_cycles, 197u);
  // The overridden cost row replaced the preset's; the others are the preset's.
  int exp_f16 = 0;
  for (const VectorCostRow& r : c->vector_costs) {
    if (r.op == "exp" && r.dtype == "float16") {
      ++exp_f16;
      EXPECT_EQ(r.per_call_cycles, 30.0);
      EXPECT_EQ(r.cycles_per_repeat, 3.5);
    }
  }
  EXPECT_EQ(exp_f16, 1);
  EXPECT_EQ(c->vector_costs.size(), LoadSocConfig("Ascend910B1")->vector_costs.size());
}

TEST(Config, EveryLineCitesASourceOrSaysAssumed) {
  std::vector<std::string> files = kPlatforms;
  files.push_back("presets/dav-c220");
  for (const std::string& p : files) {
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
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);  // a bad request field
  EXPECT_NE(c.status().message().find("field platform"), std::string::npos);
  EXPECT_NE(c.status().message().find("Ascend910B1"), std::string::npos);
  EXPECT_NE(c.status().message().find("Ascend910_9392"), std::string::npos);
  EXPECT_EQ(LoadSocConfig("../etc/passwd").status().code(), StatusCode::kInvalidArgument);
  // A huge or binary name is quoted with control bytes escaped and cut, its size said.
  std::string huge(100000, 'x');
  huge[3] = '\0';
  huge[4] = '\n';
  std::string m = LoadSocConfig(huge).status().message();
  EXPECT_LT(m.size(), 1000u) << m.size();
  EXPECT_NE(m.find("\"xxx\\x00\\nx"), std::string::npos) << m;
  EXPECT_NE(m.find("... (100000 bytes)"), std::string::npos) << m;
  EXPECT_EQ(m.find('\0'), std::string::npos);
}

TEST(Config, UnknownFieldIsRejected) {
  std::string text = Builtin("Ascend910B2") + "\nwarp_size: 32\n";
  auto c = ParseSocConfig(text, "test.textproto");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("warp_size"), std::string::npos) << c.status().message();
}

TEST(Config, PlatformFilesAreShort) {
  for (const std::string& p : kPlatforms) {
    std::string text = Builtin(p);
    EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 15) << p;
    EXPECT_NE(text.find("preset: \"dav-c220\""), std::string::npos) << p;
  }
}

TEST(Config, FiguresSetNowhereAreNamed) {
  auto c = ParseSocConfig(Drop(Builtin("Ascend910B2"), "clock_mhz:"), "t.textproto");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find(
                "t.textproto (preset configs/presets/dav-c220.textproto): field clock_mhz is not "
                "set; give it in the preset or the platform file"),
            std::string::npos)
      << c.status().message();
  c = ParseSocConfig(Drop(FullText("Ascend910B2"), "core_bytes_per_cycle: 25.81"), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("field mte2.core_bytes_per_cycle is not set"),
            std::string::npos)
      << c.status().message();
  c = ParseSocConfig(Drop(FullText("Ascend910B2"), "write_allocate:"), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("field l2.write_allocate is not set"), std::string::npos)
      << c.status().message();
  c = ParseSocConfig(
      Replace(FullText("Ascend910B2"), "op: \"copy\"", "  costs { op: \"copy\" }  # x"), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("] (op \"copy\").dtype is not set"), std::string::npos)
      << c.status().message();
}

TEST(Config, BadValuesAndCostRowsAreNamed) {
  std::string text = FullText("Ascend910B2");
  auto c = ParseSocConfig(Replace(text, "clock_mhz:", "clock_mhz: 0  # x"), "t");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("field clock_mhz: must be > 0"), std::string::npos)
      << c.status().message();
  c = ParseSocConfig(Drop(text, "op: \"exp\""), "t");
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

TEST(Config, UnknownPresetsAndChainsAreRejected) {
  std::string text = Replace(Builtin("Ascend910B2"), "preset:", "preset: \"dav-m300\"");
  auto c = ParseSocConfig(text, "t.textproto");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find(
                "t.textproto: field preset: unknown preset \"dav-m300\" (known: dav-c220)"),
            std::string::npos)
      << c.status().message();
  auto dir = std::filesystem::temp_directory_path() / "aicore_sim_preset_chain_test";
  std::filesystem::create_directories(dir / "presets");
  std::ofstream(dir / "presets" / "chained.textproto") << "preset: \"dav-c220\"\n"
                                                       << Builtin("presets/dav-c220");
  std::ofstream(dir / "Ascend910B2.textproto")
      << Replace(Builtin("Ascend910B2"), "preset:", "preset: \"chained\"");
  setenv("AICORE_SIM_CONFIG_DIR", dir.c_str(), 1);
  c = LoadSocConfig("Ascend910B2");
  unsetenv("AICORE_SIM_CONFIG_DIR");
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("field preset: a preset cannot name another preset"),
            std::string::npos)
      << c.status().message();
}

TEST(Config, TimingModelFieldsAreChecked) {
  std::string text = FullText("Ascend910B1");
  struct Case {
    const char* key;
    const char* line;
    const char* message;
  };
  for (const Case& k : {
           Case{"hbm_read_bytes_per_second:", "  hbm_read_bytes_per_second: 0",
                "gm.hbm_read_bytes_per_cycle: must be > 0"},
           Case{"hbm_write_bytes_per_second:", "  hbm_write_bytes_per_second: -1",
                "gm.hbm_write_bytes_per_cycle: must be > 0"},
           Case{"misaligned_efficiency:", "  misaligned_efficiency: 1.5",
                "gm.misaligned_efficiency: must be in (0, 1]"},
           Case{"request_bytes:", "  request_bytes: 500",
                "gm.request_bytes: must be a power of two"},
           Case{"ways:", "  ways: 7", "field l2.ways: memory.l2_bytes must be a whole number"},
           Case{"line_bytes:", "  line_bytes: 0", "l2.line_bytes: must be > 0"},
           Case{"groups:", "  groups: 0", "ub_banks.groups: must be > 0"},
           Case{"l0a_alignment_bytes:", "  l0a_alignment_bytes: 500",
                "memory.l0a_alignment_bytes: must be a power of two"},
       }) {
    auto c = ParseSocConfig(Replace(text, k.key, k.line), "t");
    ASSERT_FALSE(c.ok()) << k.key;
    EXPECT_NE(c.status().message().find(k.message), std::string::npos) << c.status().message();
  }
}

TEST(Config, OverrideDirectory) {
  auto dir = std::filesystem::temp_directory_path() / "aicore_sim_config_test";
  std::filesystem::create_directories(dir / "presets");
  // A platform of the directory over the built-in preset, and a preset of the directory.
  std::ofstream(dir / "Ascend910B3.textproto")
      << Builtin("Ascend910B3") << "launch_overhead_ns: 10  # test\n";
  std::ofstream(dir / "Ascend910B4.textproto")
      << Replace(Builtin("Ascend910B4"), "preset:", "preset: \"mine\"");
  std::ofstream(dir / "presets" / "mine.textproto")
      << Replace(Builtin("presets/dav-c220"), "barrier_cycles:", "barrier_cycles: 9  # test");
  setenv("AICORE_SIM_CONFIG_DIR", dir.c_str(), 1);
  auto c = LoadSocConfig("Ascend910B3");
  auto mine = LoadSocConfig("Ascend910B4");
  auto missing = LoadSocConfig("Ascend910B1");
  unsetenv("AICORE_SIM_CONFIG_DIR");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->launch_overhead_cycles, 18u);  // 10 ns at 1800 MHz
  ASSERT_TRUE(mine.ok()) << mine.status().message();
  EXPECT_EQ(mine->barrier_cycles, 9u);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
}

TEST(Config, SessionOverridesAreAThirdLayer) {
  auto base = LoadSocConfig("Ascend910B1");
  auto trial = LoadSocConfig("Ascend910B1", "barrier_cycles: 7\ngm { latency_cycles: 650 }\n");
  ASSERT_TRUE(trial.ok()) << trial.status().message();
  EXPECT_EQ(trial->barrier_cycles, 7u);
  EXPECT_EQ(trial->gm_latency_cycles, 650u);
  EXPECT_EQ(trial->cube_cores, base->cube_cores);              // the platform's own figures stay
  EXPECT_EQ(trial->gm_request_bytes, base->gm_request_bytes);  // the rest of gm { } stays
  EXPECT_NE(ConfigHash(*trial), ConfigHash(*base));
  EXPECT_EQ(ConfigHash(*LoadSocConfig("Ascend910B1", "")), ConfigHash(*base));
  // A cost row replaces the row of its op and dtype, the other rows stay.
  auto row = LoadSocConfig("Ascend910B1",
                           "vector { costs { op: \"exp\" dtype: \"float16\" "
                           "cycles_per_repeat: 9 per_call_cycles: 12 } }");
  ASSERT_TRUE(row.ok()) << row.status().message();
  EXPECT_EQ(row->vector_costs.size(), base->vector_costs.size());
  EXPECT_NE(ConfigHash(*row), ConfigHash(*base));
}

TEST(Config, BadSessionOverridesAreNamed) {
  auto unknown = LoadSocConfig("Ascend910B1", "gm { latency: 3 }");
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("config overrides"), std::string::npos)
      << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("latency"), std::string::npos);
  auto bad = LoadSocConfig("Ascend910B1", "clock_mhz: 0");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("config overrides"), std::string::npos)
      << bad.status().message();
  EXPECT_NE(bad.status().message().find("clock_mhz"), std::string::npos);
  for (const char* field : {"name: \"Ascend910B2\"", "preset: \"dav-c220\""}) {
    auto refused = LoadSocConfig("Ascend910B1", field);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << field;
    EXPECT_NE(refused.status().message().find("not which platform"), std::string::npos)
        << refused.status().message();
  }
  auto huge = LoadSocConfig("Ascend910B1", std::string(65 << 10, ' '));
  EXPECT_NE(huge.status().message().find("give only the figures that change"), std::string::npos);
}

TEST(Config, ToProtoRoundTrips) {
  for (const std::string& p : kPlatforms) {
    auto c = LoadSocConfig(p);
    ASSERT_TRUE(c.ok());
    cfg::SocConfig proto;
    ToProto(*c, &proto);
    SocConfig again = FromProto(proto);
    cfg::SocConfig proto2;
    ToProto(again, &proto2);
    EXPECT_EQ(proto.DebugString(), proto2.DebugString()) << p;
    EXPECT_EQ(ConfigHash(again), ConfigHash(*c)) << p;
  }
}

// A value no other figure has: the n-th string, the flag set, or n.
template <typename T>
void Distinct(T* v, int* n) {
  ++*n;
  if constexpr (std::is_same_v<T, std::string>) {
    *v = "figure " + std::to_string(*n);
  } else if constexpr (std::is_same_v<T, bool>) {
    *v = true;
  } else {
    *v = static_cast<T>(*n);
  }
}

TEST(Config, EveryFigureRowWritesAndReadsItsField) {
  // Each row of sim/core/soc_figures.def with a value of its own, through the resolved message and
  // back; a row whose path named another type's field would throw.
  SocConfig c;
  int n = 0;
#define AICORE_SOC_FIGURE(type, member, path, check, from) Distinct(&c.member, &n);
#define AICORE_SOC_PART(member, path, check, from) Distinct(&c.member, &n);
#define AICORE_SOC_RULE(rule)
#include "sim/core/soc_figures.def"
  cfg::SocConfig proto;
  ToProto(c, &proto);
  SocConfig again = FromProto(proto);
#define AICORE_SOC_FIGURE(type, member, path, check, from) \
  EXPECT_EQ(again.member, c.member) << (path);
#define AICORE_SOC_PART(member, path, check, from) EXPECT_EQ(again.member, c.member) << (path);
#define AICORE_SOC_RULE(rule)
#include "sim/core/soc_figures.def"
  EXPECT_EQ(proto.memory().l0b_alignment_bytes(), again.l0b_alignment_bytes);
  EXPECT_EQ(proto.l2().ways(), again.l2.ways);
}

TEST(Config, TheFirstFailingCheckInTheFiguresOrderIsTheMessage) {
  // l2.bytes_per_cycle is checked before the L2 sets rule, and that before ub_banks.
  std::string text = FullText("Ascend910B1");
  text = Replace(text, "ways:", "  ways: 7");
  text = Replace(text, "groups:", "  groups: 0");
  auto sets = ParseSocConfig(text, "t");
  ASSERT_FALSE(sets.ok());
  EXPECT_NE(sets.status().message().find("field l2.ways: memory.l2_bytes"), std::string::npos)
      << sets.status().message();
  auto rate = ParseSocConfig(Replace(text, "  bytes_per_second:", "  bytes_per_second: 0"), "t");
  ASSERT_FALSE(rate.ok());
  EXPECT_NE(rate.status().message().find("field l2.bytes_per_cycle: must be > 0"),
            std::string::npos)
      << rate.status().message();
}

TEST(Config, HashIdentifiesTheResolvedFigures) {
  SocConfig b1 = *LoadSocConfig("Ascend910B1");
  SocConfig b2 = *LoadSocConfig("Ascend910B2");
  EXPECT_EQ(ConfigHash(b1), ConfigHash(*LoadSocConfig("Ascend910B1")));
  EXPECT_EQ(ConfigHash(b1).size(), 16u);
  EXPECT_NE(ConfigHash(b1), ConfigHash(b2));
  SocConfig changed = b1;
  changed.vector_costs[0].cycles_per_repeat += 0.01;
  EXPECT_NE(ConfigHash(changed), ConfigHash(b1));
}

}  // namespace
}  // namespace aicore::sim
