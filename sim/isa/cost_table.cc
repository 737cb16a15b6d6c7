// Resolution of config cost rows into the per-opcode table (see cost_table.h).
#include "sim/isa/cost_table.h"

#include <cmath>

namespace aicore::sim {
namespace {

// Cost rows the preset holds for an instruction the table does not have yet: the vector copy
// (its per-repeat figure also derives ub_copy). Any other row must name a table row's cost.
constexpr std::string_view kReservedCostOps[] = {"copy"};

bool ParseDType(const std::string& s, DType* out) {
  for (int i = 1; i < kNumDTypes; ++i) {
    if (DTypeName(static_cast<DType>(i)) == s) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsKnownVectorCostOp(const std::string& op) {
  for (const OpcodeInfo& row : kOpcodeTable) {
    if (row.semantics != nullptr && row.cost == op) return true;
  }
  for (std::string_view r : kReservedCostOps) {
    if (r == op) return true;
  }
  return false;
}

StatusOr<CostTable> CostTable::Build(const SocConfig& config) {
  CostTable table;
  for (size_t r = 0; r < config.vector_costs.size(); ++r) {
    const VectorCostRow& row = config.vector_costs[r];
    std::string where = "vector.costs[" + std::to_string(r) + "] (op \"" + row.op + "\", dtype \"" +
                        row.dtype + "\")";
    if (!IsKnownVectorCostOp(row.op)) {
      return InvalidArgument(where + ": unknown vector op \"" + row.op + "\"");
    }
    DType t = DType::kInvalid;
    if (row.dtype != "*" && !ParseDType(row.dtype, &t)) {
      return InvalidArgument(where + ": unknown dtype \"" + row.dtype +
                             "\" (use float16, float32, int16, int32 ... or *)");
    }
    if (!(row.per_call_cycles >= 0) || !std::isfinite(row.per_call_cycles) ||
        !(row.cycles_per_repeat > 0) || !std::isfinite(row.cycles_per_repeat)) {
      return InvalidArgument(where + ": per_call_cycles must be >= 0 and cycles_per_repeat > 0");
    }
  }
  for (int i = 0; i < kNumOpcodes; ++i) {
    auto op = static_cast<Opcode>(i);
    if (!IsVectorCompute(op)) continue;
    for (int d = 1; d < kNumDTypes; ++d) {
      auto t = static_cast<DType>(d);
      if (!VectorOpSupports(op, t)) continue;
      const VectorCostRow* exact = nullptr;
      const VectorCostRow* any = nullptr;
      for (const VectorCostRow& row : config.vector_costs) {
        if (row.op != kOpcodeTable[i].cost) continue;
        if (row.dtype == DTypeName(t)) {
          if (exact != nullptr) {
            return InvalidArgument("vector.costs: two rows for op \"" + row.op + "\" dtype \"" +
                                   row.dtype + "\"");
          }
          exact = &row;
        } else if (row.dtype == "*") {
          any = &row;
        }
      }
      const VectorCostRow* use = exact != nullptr ? exact : any;
      if (use == nullptr) {
        return InvalidArgument("vector.costs: no row for op \"" +
                               std::string(kOpcodeTable[i].cost) + "\" dtype \"" +
                               std::string(DTypeName(t)) + "\" (add one, or a \"*\" row)");
      }
      table.vector_[i][d] = VectorCost{true, use->per_call_cycles, use->cycles_per_repeat};
    }
  }
  return table;
}

}  // namespace aicore::sim
