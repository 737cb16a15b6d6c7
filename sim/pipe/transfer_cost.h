// One cost function for every data movement (docs/timing-model.md 3). A copy, load, fixpipe or
// UB -> UB move is described once as a TransferRequest: its route row of the preset, its bytes
// and bursts and, when one side is GM, that side (address, pitch, direction, cache mode). Its GM
// side first asks the shared memory system for its bytes (GmPath::Grant: the grant says when they
// have passed L2 and HBM); TransferCostModel::Cost then combines the route row, the grant and the
// timing mechanisms bound to the launch's config.
//
// A timing mechanism is a named rule with its own figures (rows or tables of the preset) that
// adjusts a transfer's rate or adds cycles. Adding one is a recipe of three places: its figures
// (a FigureTable in configs/presets/, or scalar rows of soc_figures.def), its function (a
// TransferMechanismSpec, registered here or at run time by RegisterTransferMechanism), and its
// test (docs/architecture.md "Adding a timing mechanism").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/cycle.h"
#include "sim/core/status.h"
#include "sim/mem/gm_path.h"
#include "sim/pipe/pipe.h"

namespace aicore::sim {

// The preset's route rows (DmaCost messages): which one costs a transfer.
enum class RouteRow : uint8_t { kMte2, kCubeMte2, kMte3, kUbCopy, kMte1, kFixpipe };

struct RouteRowInfo {
  RouteRow row;
  const char* name;                // its field in the preset: "cube_mte2"
  DmaCostConfig SocConfig::*cost;  // its figures
};

inline constexpr RouteRowInfo kRouteRows[] = {
    {RouteRow::kMte2, "mte2", &SocConfig::mte2},
    {RouteRow::kCubeMte2, "cube_mte2", &SocConfig::cube_mte2},
    {RouteRow::kMte3, "mte3", &SocConfig::mte3},
    {RouteRow::kUbCopy, "ub_copy", &SocConfig::ub_copy},
    {RouteRow::kMte1, "mte1", &SocConfig::mte1},
    {RouteRow::kFixpipe, "fixpipe", &SocConfig::fixpipe},
};

constexpr bool RouteRowsInOrder() {
  for (int i = 0; i < static_cast<int>(sizeof(kRouteRows) / sizeof(kRouteRows[0])); ++i) {
    if (static_cast<int>(kRouteRows[i].row) != i) return false;
  }
  return true;
}
static_assert(RouteRowsInOrder(), "kRouteRows rows must follow RouteRow");

inline const RouteRowInfo& InfoOf(RouteRow row) { return kRouteRows[static_cast<int>(row)]; }

// The route row whose figures are `cost`; false if none is.
bool RouteRowOf(DmaCostConfig SocConfig::*cost, RouteRow* row);

// One transfer as the cost model sees it.
struct TransferRequest {
  RouteRow route = RouteRow::kMte2;
  uint64_t bytes = 0;              // bytes the engine moves
  uint64_t bursts = 0;             // contiguous chunks of a params-form copy (0 or 1: one)
  uint64_t burst_bytes = 0;        // bytes of one chunk (the GM side's, else bytes / bursts)
  const GmTransfer* gm = nullptr;  // the GM side, when the transfer reads or writes GM
};

// A move between two local memories: `in`'s bytes and bursts, bursts of equal length.
inline TransferRequest LocalTransfer(RouteRow route, const IssuedInstr& in) {
  uint64_t bursts = in.bursts > 0 ? in.bursts : 1;
  return TransferRequest{route, in.bytes, in.bursts, in.bytes / bursts, nullptr};
}

// What the bound mechanisms make of one transfer: the engine streams its bytes at
// core_bytes_per_cycle * rate_factor and spends extra_cycles more.
struct TransferTerms {
  double rate_factor = 1;
  double extra_cycles = 0;
};

class TransferMechanism {
 public:
  virtual ~TransferMechanism() = default;
  // Adjusts `terms` for `request`; called once per transfer, so keep it O(1) in its size.
  virtual void Apply(const TransferRequest& request, TransferTerms* terms) const = 0;
};

struct TransferMechanismSpec {
  std::string name;                 // "burst_efficiency"
  std::vector<std::string> tables;  // the FigureTables it may read (a config may hold no other)
  // The mechanism for a config: nullptr when the config gives it no figures (it then costs
  // nothing); an error names what is wrong with its figures.
  std::function<StatusOr<std::unique_ptr<TransferMechanism>>(const SocConfig&)> bind;
};

// Adds `spec`, or replaces the mechanism of its name; thread-safe. Launches that start later
// bind it. The built-in mechanisms (transfer_cost.cc) are registered before any call returns.
void RegisterTransferMechanism(TransferMechanismSpec spec);
// Removes the mechanism `name`; false if there was none.
bool UnregisterTransferMechanism(const std::string& name);
// The table names some registered mechanism reads, sorted.
std::vector<std::string> TransferMechanismTables();

// A launch's transfer costs: the config's route rows and the mechanisms bound to it, in name
// order so that the result does not depend on registration order.
class TransferCostModel {
 public:
  // Binds every registered mechanism to `config`; the error of the first that refuses it.
  static StatusOr<std::unique_ptr<TransferCostModel>> Bind(const SocConfig& config);

  // The timing of `r` started at `now`, its GM side granted as `gm` (nullptr for a move between
  // local memories):
  //   stream = bursts * per_burst_cycles + extra_cycles
  //            + bytes / (core_bytes_per_cycle * efficiency * rate_factor)
  //   stream = max(stream, bytes * gm->latency / read_window_bytes)   (a read, window > 0)
  //   moved  = max(stream, gm->done - now)
  //   end    = now + max(1, ceil(moved + fixed_cycles + gm->latency))
  //   accept_next = now + max(1, ceil(stream + latency_exposed * (fixed_cycles + gm->latency)))
  //                 (the last term for a read only)
  // (efficiency: the grant's gm.misaligned_efficiency or 1). `bandwidth_stall` (optional)
  // receives ceil(moved) - ceil(stream): time waiting for shared bandwidth.
  PipeTiming Cost(const TransferRequest& r, Cycle now, const GmTiming* gm,
                  uint64_t* bandwidth_stall = nullptr) const;

 private:
  explicit TransferCostModel(const SocConfig& config) : config_(config) {}
  const SocConfig& config_;
  std::vector<std::unique_ptr<TransferMechanism>> mechanisms_;
};

}  // namespace aicore::sim
