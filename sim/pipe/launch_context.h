// Everything one launch shares between its cores: config, program, costs, GM and its L2/HBM
// path, the global event queue, diagnostics and the stop state. Units receive a reference at
// construction ("connected once") instead of reaching for globals.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/check/diagnostics.h"
#include "sim/check/gm_checker.h"
#include "sim/core/config.h"
#include "sim/core/cycle.h"
#include "sim/core/debug_output.h"
#include "sim/core/event_queue.h"
#include "sim/core/invariant.h"
#include "sim/core/launch_result.h"
#include "sim/isa/cost_table.h"
#include "sim/isa/program.h"
#include "sim/mem/global_memory.h"
#include "sim/mem/gm_path.h"
#include "sim/mem/unknown_bytes.h"
#include "sim/pipe/transfer_cost.h"
#include "sim/sync/cross_core_sync.h"

namespace aicore::sim {

struct TimelineEntry;  // sim/pipe/timeline.h

struct LaunchContext {
  LaunchContext(const SocConfig& c, const Program& p, const CostTable& t, GlobalMemory& g)
      : config(c),
        program(p),
        costs(t),
        gm(g),
        gm_path(c),
        transfers(BindTransfers(c)),
        diags(p),
        debug_out(c.debug.output_bytes_per_core, c.debug.output_bytes_per_launch) {}

  const SocConfig& config;
  const Program& program;
  const CostTable& costs;
  GlobalMemory& gm;
  GmPath gm_path;  // L2 + HBM channels shared by every core; cold for every launch
  // Every copy's cost: route rows and the timing mechanisms bound to the config.
  std::unique_ptr<TransferCostModel> transfers;
  EventQueue events;
  // The global time: the cycle of the event being handled, or later once a scalar unit caught
  // up in place (ScalarUnit::CatchUp) instead of through the queue.
  Cycle now;
  DiagnosticSink diags;
  DebugSink debug_out;  // printf / dump_tensor / print_time_stamp text

  uint32_t block_dim = 0;
  CheckLevel check = CheckLevel::kWarn;  // kOff: no race / initialisation / hygiene checks
  std::unique_ptr<GmChecker> gm_check;   // GM across cores; null when checking is off
  std::unique_ptr<CrossCoreSync> cross;  // cross-core flags, GM waits, the cores' clocks
  uint64_t max_cycles = 0;               // 0 = unlimited
  // Set when LaunchOptions.record_timeline: named into LaunchResult::timeline at the end.
  std::vector<TimelineEntry>* timeline = nullptr;
  // LaunchOptions.timing_only: which bytes the launch did not compute; null in a full run.
  std::unique_ptr<UnknownBytes> unknown;
  // Set while a pipe starts an instruction whose sources are not all known: its executor skips
  // the element math and leaves only the timing (the pipe marks its destination unknown).
  bool skip_payload = false;

  bool debug_log = false;     // "sim" logger at debug level: units log their milestones
  uint64_t instructions = 0;  // scalar ops + pipe instructions executed
  bool stopped = false;       // a fault, the cycle limit or a cancel ended the launch
  const std::atomic<bool>* cancel = nullptr;
  bool cancelled = false;
  // Set by the launch engine when the host follows progress (LaunchOptions::progress): publishes
  // a snapshot at the given cycle. Called where the cancel flag is polled.
  std::function<void(Cycle)> publish_progress;
  LaunchResult::Status status = LaunchResult::Status::kOk;

  // Polls the host's cancel flag; true (and stopped) once it is set.
  bool CheckCancel() {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      cancelled = true;
      stopped = true;
    }
    return cancelled;
  }

  // ValidateSocConfig bound the mechanisms before any launch, so a refusal here is our bug.
  static std::unique_ptr<TransferCostModel> BindTransfers(const SocConfig& c) {
    StatusOr<std::unique_ptr<TransferCostModel>> bound = TransferCostModel::Bind(c);
    SIM_CHECK(bound.ok(),
              "a validated config's timing mechanisms refused it: " + bound.status().message());
    return std::move(*bound);
  }

  void Stop(LaunchResult::Status s) {
    if (!stopped) status = s;
    stopped = true;
  }
};

}  // namespace aicore::sim
