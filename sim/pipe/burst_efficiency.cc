// "burst_efficiency" (see burst_efficiency.h).
#include "sim/pipe/burst_efficiency.h"

#include <array>

#include "sim/core/figure_table.h"

namespace aicore::sim {
namespace {

constexpr char kSuffix[] = ".burst_efficiency";
constexpr int kRoutes = sizeof(kRouteRows) / sizeof(kRouteRows[0]);

class BurstEfficiency : public TransferMechanism {
 public:
  explicit BurstEfficiency(std::array<const FigureTable*, kRoutes> tables) : tables_(tables) {}

  void Apply(const TransferRequest& r, TransferTerms* terms) const override {
    const FigureTable* table = tables_[static_cast<int>(r.route)];
    if (table != nullptr)
      terms->rate_factor *= table->Lookup(static_cast<double>(r.burst_bytes), 1);
  }

 private:
  std::array<const FigureTable*, kRoutes> tables_;  // by RouteRow; nullptr: the row's rate
};

StatusOr<std::unique_ptr<TransferMechanism>> Bind(const SocConfig& config) {
  std::array<const FigureTable*, kRoutes> tables{};
  bool any = false;
  for (const RouteRowInfo& route : kRouteRows) {
    const FigureTable* t = config.Table(std::string(route.name) + kSuffix);
    if (t == nullptr) continue;
    if (t->columns != std::vector<std::string>{"burst_bytes", "efficiency"}) {
      return InvalidArgument("table \"" + t->name +
                             "\" needs the columns \"burst_bytes\", \"efficiency\"");
    }
    for (size_t i = 0; i < t->rows.size(); ++i) {
      double e = t->rows[i][1];
      if (!(e > 0 && e <= 1)) {
        return InvalidArgument("table \"" + t->name + "\" row " + std::to_string(i + 1) +
                               ": efficiency " + std::to_string(e) +
                               " is outside (0, 1]; the route row's core_bytes_per_cycle is "
                               "its peak rate");
      }
    }
    tables[static_cast<int>(route.row)] = t;
    any = true;
  }
  if (!any) return std::unique_ptr<TransferMechanism>();
  return std::unique_ptr<TransferMechanism>(new BurstEfficiency(tables));
}

}  // namespace

TransferMechanismSpec BurstEfficiencySpec() {
  TransferMechanismSpec spec;
  spec.name = "burst_efficiency";
  for (const RouteRowInfo& route : kRouteRows)
    spec.tables.push_back(route.name + std::string(kSuffix));
  spec.bind = &Bind;
  return spec;
}

}  // namespace aicore::sim
