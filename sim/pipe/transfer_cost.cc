// The transfer cost function and the registry of timing mechanisms (see transfer_cost.h).
#include "sim/pipe/transfer_cost.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "sim/pipe/burst_efficiency.h"

namespace aicore::sim {
namespace {

// The mechanisms every launch binds unless a caller unregisters them.
using SpecFunction = TransferMechanismSpec (*)();
constexpr SpecFunction kBuiltinMechanisms[] = {&BurstEfficiencySpec};

struct Registry {
  std::mutex mu;
  std::map<std::string, TransferMechanismSpec> specs;  // by name: the order of binding
};

Registry& TheRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    for (SpecFunction f : kBuiltinMechanisms) {
      TransferMechanismSpec spec = f();
      r->specs[spec.name] = std::move(spec);
    }
    return r;
  }();
  return *registry;
}

}  // namespace

bool RouteRowOf(DmaCostConfig SocConfig::*cost, RouteRow* row) {
  for (const RouteRowInfo& info : kRouteRows) {
    if (info.cost == cost) {
      *row = info.row;
      return true;
    }
  }
  return false;
}

void RegisterTransferMechanism(TransferMechanismSpec spec) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.specs[spec.name] = std::move(spec);
}

bool UnregisterTransferMechanism(const std::string& name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.specs.erase(name) > 0;
}

std::vector<std::string> TransferMechanismTables() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& [name, spec] : r.specs)
    names.insert(names.end(), spec.tables.begin(), spec.tables.end());
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<std::unique_ptr<TransferCostModel>> TransferCostModel::Bind(const SocConfig& config) {
  std::vector<TransferMechanismSpec> specs;
  {
    Registry& r = TheRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [name, spec] : r.specs) specs.push_back(spec);
  }
  std::unique_ptr<TransferCostModel> model(new TransferCostModel(config));
  for (const TransferMechanismSpec& spec : specs) {
    StatusOr<std::unique_ptr<TransferMechanism>> bound = spec.bind(config);
    if (!bound.ok()) {
      return InvalidArgument("timing mechanism \"" + spec.name + "\": " + bound.status().message());
    }
    if (*bound != nullptr) model->mechanisms_.push_back(std::move(*bound));
  }
  return model;
}

PipeTiming TransferCostModel::Cost(const TransferRequest& r, Cycle now, const GmTiming* gm,
                                   uint64_t* bandwidth_stall) const {
  const DmaCostConfig& cost = config_.*(InfoOf(r.route).cost);
  TransferTerms terms;
  for (const auto& mechanism : mechanisms_) mechanism->Apply(r, &terms);
  double efficiency = gm != nullptr ? gm->efficiency : 1.0;
  double stream =
      cost.per_burst_cycles * static_cast<double>(r.bursts) + terms.extra_cycles +
      static_cast<double>(r.bytes) / (cost.core_bytes_per_cycle * efficiency * terms.rate_factor);
  // Little's law: with at most read_window_bytes of reads in flight, each back after the
  // grant's latency (0 for writes), the engine streams no faster than window / latency.
  if (gm != nullptr && cost.read_window_bytes > 0 && gm->latency > 0) {
    stream = std::max(stream, static_cast<double>(r.bytes) * gm->latency / cost.read_window_bytes);
  }
  double moved = stream;
  double latency = 0;
  if (gm != nullptr && r.bytes > 0) {
    double start = static_cast<double>(now.value());
    moved = std::max(moved, gm->done - start);
    latency = gm->latency;
  }
  if (bandwidth_stall != nullptr) {
    *bandwidth_stall = (CeilCycles(moved) - CeilCycles(stream)).value();
  }
  // An engine that does not overlap a read's fixed cost and latency with its next copy waits
  // out that fraction of them before the next copy starts.
  double exposed = latency > 0 ? cost.latency_exposed * (cost.fixed_cycles + latency) : 0;
  PipeTiming t;
  t.accept_next = now + MaxCycle(Cycle(1), CeilCycles(stream + exposed));
  t.end = now + MaxCycle(Cycle(1), CeilCycles(moved + cost.fixed_cycles + latency));
  return t;
}

}  // namespace aicore::sim
