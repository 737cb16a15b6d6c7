// Timing mechanisms and figure tables (sim/pipe/transfer_cost.h, docs/architecture.md "Adding a
// timing mechanism"): a mechanism registered at run time costs its figures and nothing without
// them, the built-in burst_efficiency scales a route's rate by its table, and a table is checked
// where it is loaded, with its name in the message.
#include <gtest/gtest.h>

#include "sim/bridge/bridge.h"
#include "sim/bridge/builtin_configs.h"
#include "sim/core/figure_table.h"
#include "sim/pipe/transfer_cost.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

// A UB -> UB copy of `count` fp16 in `blocks` blocks of 32 bytes (params form) at line 5, on
// PIPE_V: the ub_copy route, no GM involved, so its time is the cost function's alone.
ir::Kernel UbCopy(uint32_t blocks) {
  KernelBuilder b("ub_copy", "ub_copy.py");
  uint32_t src = b.Const(0), dst = b.Const(65536);
  uint32_t count = b.Const(blocks, ir::DT_INT32), len = b.Const(1, ir::DT_INT32);
  uint32_t gap = b.Const(0, ir::DT_INT32);
  b.At(5).DataCopyParams(KernelBuilder::Ub(dst, ir::DT_FLOAT16),
                         KernelBuilder::Ub(src, ir::DT_FLOAT16), count, len, gap, gap);
  return b.Build();
}

// The copy's cycles, end - start, on `config`.
uint64_t CopyCycles(const SocConfig& config, uint32_t blocks) {
  Device device(config);
  LaunchResult r = RunTimed(device, UbCopy(blocks), 1, {});
  const InstrRecord* rec = Find(r, "data_copy", 5);
  EXPECT_NE(rec, nullptr);
  return rec == nullptr ? 0 : rec->end_cycle - rec->start_cycle;
}

// The test's own mechanism: cycles per burst by burst length, from the table
// "test.per_burst_cycles" (columns burst_bytes, cycles).
class PerBurstCycles : public TransferMechanism {
 public:
  explicit PerBurstCycles(const FigureTable& table) : table_(table) {}
  void Apply(const TransferRequest& r, TransferTerms* terms) const override {
    terms->extra_cycles +=
        static_cast<double>(r.bursts) * table_.Lookup(static_cast<double>(r.burst_bytes), 1);
  }

 private:
  const FigureTable& table_;
};

TransferMechanismSpec PerBurstSpec() {
  TransferMechanismSpec spec;
  spec.name = "test_per_burst_cycles";
  spec.tables = {"test.per_burst_cycles"};
  spec.bind = [](const SocConfig& c) -> StatusOr<std::unique_ptr<TransferMechanism>> {
    const FigureTable* t = c.Table("test.per_burst_cycles");
    if (t == nullptr) return std::unique_ptr<TransferMechanism>();
    return std::unique_ptr<TransferMechanism>(new PerBurstCycles(*t));
  };
  return spec;
}

constexpr char kPerBurstTable[] =
    "tables { name: \"test.per_burst_cycles\" columns: \"burst_bytes\" columns: \"cycles\" "
    "rows { values: 32 values: 3 } rows { values: 512 values: 13 } source: \"assumed\" }";

TEST(TransferMechanism, ARunTimeRegisteredMechanismCostsItsFigures) {
  const uint32_t blocks = 64;
  SocConfig base = Config();
  const DmaCostConfig& row = base.ub_copy;
  // stream = blocks * per_burst + extra + 32 * blocks / rate; end - start = ceil(stream + fixed)
  auto expected = [&](double extra) {
    return Ceil(row.per_burst_cycles * blocks + extra + 32.0 * blocks / row.core_bytes_per_cycle +
                row.fixed_cycles);
  };
  EXPECT_EQ(CopyCycles(base, blocks), expected(0));
  // Unknown to every mechanism, the table is refused where it is loaded.
  auto refused = LoadSocConfig("Ascend910B1", kPerBurstTable);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("test.per_burst_cycles"), std::string::npos);
  EXPECT_NE(refused.status().message().find("no timing mechanism reads"), std::string::npos)
      << refused.status().message();

  RegisterTransferMechanism(PerBurstSpec());
  auto with = LoadSocConfig("Ascend910B1", kPerBurstTable);
  ASSERT_TRUE(with.ok()) << with.status().message();
  EXPECT_EQ(CopyCycles(*with, blocks), expected(blocks * 3.0));  // 32-byte bursts: row 1
  EXPECT_EQ(CopyCycles(base, blocks), expected(0));              // no table: no cost
  EXPECT_TRUE(UnregisterTransferMechanism("test_per_burst_cycles"));
  EXPECT_FALSE(LoadSocConfig("Ascend910B1", kPerBurstTable).ok());
}

TEST(TransferMechanism, BurstEfficiencyScalesTheRouteRate) {
  const uint32_t blocks = 64;
  SocConfig base = Config();
  const DmaCostConfig& row = base.ub_copy;
  auto trial = LoadSocConfig(
      "Ascend910B1",
      "tables { name: \"ub_copy.burst_efficiency\" columns: \"burst_bytes\" "
      "columns: \"efficiency\" rows { values: 16 values: 0.25 } rows { values: 48 values: 0.75 }"
      " source: \"assumed\" }");
  ASSERT_TRUE(trial.ok()) << trial.status().message();
  // 32-byte bursts sit halfway between the rows: efficiency 0.5, the bytes take twice as long.
  EXPECT_EQ(CopyCycles(*trial, blocks),
            Ceil(row.per_burst_cycles * blocks + 32.0 * blocks / (row.core_bytes_per_cycle * 0.5) +
                 row.fixed_cycles));
  // Another route's table leaves ub_copy alone.
  auto other = LoadSocConfig("Ascend910B1",
                             "tables { name: \"mte2.burst_efficiency\" columns: \"burst_bytes\" "
                             "columns: \"efficiency\" rows { values: 32 values: 0.5 } "
                             "source: \"assumed\" }");
  ASSERT_TRUE(other.ok()) << other.status().message();
  EXPECT_EQ(CopyCycles(*other, blocks), CopyCycles(base, blocks));
  EXPECT_NE(ConfigHash(*other), ConfigHash(base));
}

TEST(TransferMechanism, TablesAreCheckedWithTheirNames) {
  struct Case {
    const char* rows;
    const char* says;
  };
  const Case cases[] = {
      {"rows { values: 64 values: 0.5 } rows { values: 32 values: 0.6 }", "must be greater"},
      {"rows { values: 64 values: 0.5 values: 1 }", "3 values for 2 columns"},
      {"rows { values: 64 values: 1.5 }", "outside (0, 1]"},
      {"", "at least one row"},
  };
  for (const Case& c : cases) {
    std::string text = std::string("tables { name: \"mte3.burst_efficiency\" columns: ") +
                       "\"burst_bytes\" columns: \"efficiency\" " + c.rows +
                       " source: \"assumed\" }";
    auto bad = LoadSocConfig("Ascend910B1", text);
    ASSERT_FALSE(bad.ok()) << c.rows;
    EXPECT_NE(bad.status().message().find("mte3.burst_efficiency"), std::string::npos)
        << bad.status().message();
    EXPECT_NE(bad.status().message().find(c.says), std::string::npos) << bad.status().message();
    EXPECT_NE(bad.status().message().find("config overrides"), std::string::npos);
  }
  auto no_source =
      LoadSocConfig("Ascend910B1",
                    "tables { name: \"mte3.burst_efficiency\" columns: \"burst_bytes\" "
                    "columns: \"efficiency\" rows { values: 32 values: 0.5 } }");
  ASSERT_FALSE(no_source.ok());
  EXPECT_NE(no_source.status().message().find("tables[0] (name \"mte3.burst_efficiency\").source"),
            std::string::npos)
      << no_source.status().message();
}

TEST(TransferMechanism, ATableInOverridesReplacesTheOneOfItsName) {
  const char* first =
      "tables { name: \"mte1.burst_efficiency\" columns: \"burst_bytes\" columns: \"efficiency\" "
      "rows { values: 32 values: 0.5 } rows { values: 64 values: 1 } source: \"assumed\" }\n";
  const char* second =
      "tables { name: \"mte1.burst_efficiency\" columns: \"burst_bytes\" columns: \"efficiency\" "
      "rows { values: 32 values: 0.25 } source: \"assumed\" }\n";
  auto both = LoadSocConfig("Ascend910B1", std::string(first) + second);
  ASSERT_FALSE(both.ok());  // one file giving the same table twice
  EXPECT_NE(both.status().message().find("a second table of this name"), std::string::npos)
      << both.status().message();
  // The platform file's table, replaced whole by the overrides' one of its name.
  std::string platform;
  for (const auto& [name, text] : BuiltinConfigs()) {
    if (name == "Ascend910B1") platform = text + "\n" + first;
  }
  auto one = ParseSocConfig(platform, "Ascend910B1 with a table", "");
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_NE(one->Table("mte1.burst_efficiency"), nullptr);
  EXPECT_EQ(one->Table("mte1.burst_efficiency")->rows.size(), 2u);
  auto replaced = ParseSocConfig(platform, "Ascend910B1 with a table", second);
  ASSERT_TRUE(replaced.ok()) << replaced.status().message();
  ASSERT_EQ(replaced->tables.size(), 1u);
  ASSERT_EQ(replaced->tables[0].rows.size(), 1u);
  EXPECT_EQ(replaced->tables[0].rows[0][1], 0.25);
}

TEST(FigureTable, LookupInterpolatesAndHoldsTheEnds) {
  FigureTable t{"x", "assumed", {"key", "value"}, {{10, 1}, {20, 3}, {40, 4}}};
  EXPECT_DOUBLE_EQ(t.Lookup(0, 1), 1);
  EXPECT_DOUBLE_EQ(t.Lookup(10, 1), 1);
  EXPECT_DOUBLE_EQ(t.Lookup(15, 1), 2);
  EXPECT_DOUBLE_EQ(t.Lookup(30, 1), 3.5);
  EXPECT_DOUBLE_EQ(t.Lookup(99, 1), 4);
  EXPECT_EQ(t.Column("value"), 1);
  EXPECT_EQ(t.Column("nothing"), -1);
}

}  // namespace
}  // namespace aicore::sim::testing
