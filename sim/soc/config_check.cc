// Completeness and sanity checks of a SocConfig (see config_check.h).
#include "sim/soc/config_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/isa/cost_table.h"
#include "sim/pipe/transfer_cost.h"

namespace aicore::sim {
namespace {

// The checks soc_figures.def names. Each failure names the field with its path so the message
// points into the file; the first one found is the result.
class ConfigChecker {
 public:
  ConfigChecker(const SocConfig& config, std::string origin)
      : c_(config), origin_(std::move(origin)) {}

  // Figure checks, by the row's `check` column.
  template <typename T>
  void Unchecked(const T& /*v*/, const char* /*field*/) {}
  void Set(const std::string& v, const char* field) {
    if (v.empty()) Fail(field, "must be set");
  }
  template <typename T>
  void Positive(T value, const char* field) {
    auto v = static_cast<double>(value);
    if (!(v > 0) || !std::isfinite(v)) Fail(field, "must be > 0 (got " + Num(v) + ")");
  }
  template <typename T>
  void NonNegative(T value, const char* field) {
    auto v = static_cast<double>(value);
    if (!(v >= 0) || !std::isfinite(v)) Fail(field, "must be >= 0 (got " + Num(v) + ")");
  }
  void PositivePowerOfTwo(uint64_t v, const char* field) {
    Positive(v, field);
    if (v != 0 && (v & (v - 1)) != 0) Fail(field, "must be a power of two (got " + Num(v) + ")");
  }
  void Fraction(double v, const char* field) {
    if (!(v > 0 && v <= 1)) Fail(field, "must be in (0, 1]");
  }
  void UnitInterval(double v, const char* field) {
    if (!(v >= 0 && v <= 1)) Fail(field, "must be in [0, 1]");
  }

  // Rules relating figures, by the row's name.
  void RepeatBytesInBlocks() {
    if (c_.vector_repeat_bytes % 32 != 0) Fail("vector.repeat_bytes", "must be a multiple of 32");
  }
  void L2WholeSets() {
    const L2Config& l2 = c_.l2;
    if (l2.line_bytes != 0 && l2.ways != 0 &&
        c_.l2_bytes % (static_cast<uint64_t>(l2.line_bytes) * l2.ways) != 0) {
      Fail("l2.ways", "memory.l2_bytes must be a whole number of sets of ways * line_bytes");
    }
  }
  void AllocAlignmentPowerOfTwo() {
    uint64_t a = c_.gm_alloc_alignment_bytes;
    if (a != 0 && (a & (a - 1)) != 0) Fail("gm.alloc_alignment_bytes", "must be a power of two");
  }
  void AllocBlockInAlignments() {
    uint64_t a = c_.gm_alloc_alignment_bytes;
    if (a != 0 && c_.gm_alloc_block_bytes % a != 0) {
      Fail("gm.alloc_block_bytes", "must be a multiple of gm.alloc_alignment_bytes");
    }
  }
  void FlagIdsAtMost64() {
    if (c_.flag_ids_per_event > 64) Fail("flag_ids_per_event", "must be <= 64");
  }
  void FlagSetWaitsForClearIsZeroOrOne() {
    if (c_.flag_set_waits_for_clear > 1) {
      Fail("flag_set_waits_for_clear", "must be 0 (a second set is lost) or 1 (it waits)");
    }
  }
  // A cross-core set carries its id in 4 bits (hardware-910b.md 3.4).
  void CrossCoreFlagIdsAtMost16() {
    if (c_.cross_core_flag_ids > 16) Fail("cross_core_flag_ids", "must be <= 16");
  }

  const Status& status() const { return status_; }

 private:
  void Fail(const std::string& field, const std::string& why) {
    if (status_.ok()) status_ = InvalidArgument(origin_ + ": field " + field + ": " + why);
  }
  static std::string Num(uint64_t v) { return std::to_string(v); }
  static std::string Num(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
  }

  const SocConfig& c_;
  std::string origin_;
  Status status_;
};

// The tables' shape: a plain unique name some mechanism reads, a source, named columns (a key
// and at least one value), rows of one value per column, keys strictly increasing. "" if sound.
std::string TableProblem(const SocConfig& c) {
  std::vector<std::string> known = TransferMechanismTables();
  for (size_t i = 0; i < c.tables.size(); ++i) {
    const FigureTable& t = c.tables[i];
    std::string where = "tables[" + std::to_string(i) + "] (name \"" + t.name + "\")";
    if (t.name.empty()) return where + ": name must be set";
    for (size_t j = 0; j < i; ++j) {
      if (c.tables[j].name == t.name) {
        return where + ": a second table of this name; give each table once";
      }
    }
    if (!std::binary_search(known.begin(), known.end(), t.name)) {
      std::string names;
      for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
      return where + ": no timing mechanism reads this table (tables read: " + names + ")";
    }
    if (t.source.empty())
      return where + ": source must be set (where the figures come from, or \"assumed\")";
    if (t.columns.size() < 2) return where + ": needs a key column and at least one value column";
    if (t.rows.empty()) return where + ": needs at least one row";
    for (size_t r = 0; r < t.rows.size(); ++r) {
      const std::vector<double>& row = t.rows[r];
      std::string at = where + " row " + std::to_string(r + 1);
      if (row.size() != t.columns.size()) {
        return at + ": " + std::to_string(row.size()) + " values for " +
               std::to_string(t.columns.size()) + " columns";
      }
      for (double v : row) {
        if (!std::isfinite(v)) return at + ": values must be finite";
      }
      if (r > 0 && !(row[0] > t.rows[r - 1][0])) {
        return at + ": its key " + t.columns[0] + " must be greater than the row before's";
      }
    }
  }
  return "";
}

}  // namespace

Status ValidateSocConfig(const SocConfig& c, const std::string& origin) {
  ConfigChecker k(c, origin);
#define AICORE_SOC_FIGURE(type, member, path, check, from) k.check(c.member, path);
#define AICORE_SOC_PART(member, path, check, from) k.check(c.member, path);
#define AICORE_SOC_RULE(rule) k.rule();
#include "sim/core/soc_figures.def"
  if (!k.status().ok()) return k.status();
  StatusOr<CostTable> costs = CostTable::Build(c);
  if (!costs.ok()) return InvalidArgument(origin + ": " + costs.status().message());
  if (std::string problem = TableProblem(c); !problem.empty()) {
    return InvalidArgument(origin + ": field " + problem);
  }
  StatusOr<std::unique_ptr<TransferCostModel>> transfers = TransferCostModel::Bind(c);
  if (!transfers.ok()) return InvalidArgument(origin + ": " + transfers.status().message());
  return Status::Ok();
}

}  // namespace aicore::sim
