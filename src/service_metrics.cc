// ServiceMetrics (see service_metrics.h).
#include "src/service_metrics.h"

#include "grpc_code_name.h"
#include "src/session_manager.h"

namespace aicore::daemon {

ServiceMetrics::ServiceMetrics(const JobPool* pool, const MemoryBudget* budget,
                               const sim::ProgramCache* programs, const SessionManager* sessions)
    : cycles_(registry_.GetCounter("aicore_simulated_cycles_total",
                                   "Simulated cycles of every finished launch and run")),
      instructions_(
          registry_.GetCounter("aicore_simulated_instructions_total",
                               "Simulated instructions of every finished launch and run")),
      launches_(registry_.GetCounter("aicore_launches_total",
                                     "Launches and runs simulated to a report")) {
  registry_.AddCallbackGauge("aicore_queue_depth", "Simulations admitted and waiting for a worker",
                             {},
                             [pool] { return static_cast<double>(pool->simulations_queued()); });
  registry_.AddCallbackGauge("aicore_inflight_launches", "Simulations running on a worker now", {},
                             [pool] { return static_cast<double>(pool->simulations_running()); });
  registry_.AddCallbackGauge("aicore_workers", "Simulation worker threads (--workers)", {},
                             [pool] { return static_cast<double>(pool->workers()); });
  registry_.AddCallbackGauge("aicore_admitted", "Launches and runs admitted, running or queued", {},
                             [pool] { return static_cast<double>(pool->admitted()); });
  registry_.AddCallbackGauge("aicore_memory_bytes", "Host memory the daemon holds, by kind",
                             {{"kind", "device"}},
                             [budget] { return static_cast<double>(budget->device_bytes()); });
  registry_.AddCallbackGauge("aicore_memory_bytes", "Host memory the daemon holds, by kind",
                             {{"kind", "program_cache"}},
                             [programs] { return static_cast<double>(programs->bytes()); });
  registry_.AddCallbackGauge("aicore_memory_budget_bytes",
                             "The daemon's memory budget (--memory-budget)", {},
                             [budget] { return static_cast<double>(budget->total()); });
  registry_.AddCallbackGauge("aicore_program_cache_bytes_limit",
                             "The program cache's bound (--program-cache-bytes)", {},
                             [programs] { return static_cast<double>(programs->max_bytes()); });
  registry_.AddCallbackGauge("aicore_program_cache_entries", "Decoded programs kept", {},
                             [programs] { return static_cast<double>(programs->entries()); });
  registry_.AddCallbackGauge("aicore_program_cache_hits",
                             "Launches whose kernel was already decoded", {},
                             [programs] { return static_cast<double>(programs->hits()); });
  registry_.AddCallbackGauge("aicore_program_cache_misses", "Launches that decoded their kernel",
                             {}, [programs] { return static_cast<double>(programs->misses()); });
  registry_.AddCallbackGauge("aicore_sessions", "Open sessions", {},
                             [sessions] { return static_cast<double>(sessions->size()); });
}

void ServiceMetrics::CountRpc(const char* method, grpc::StatusCode code) {
  registry_
      .GetCounter("aicore_rpc_requests_total", "Finished RPCs by method and status code",
                  {{"method", method}, {"code", aicore::GrpcCodeName(code)}})
      .Increment();
}

void ServiceMetrics::CountLaunch(uint64_t cycles, uint64_t instructions) {
  cycles_.Increment(static_cast<double>(cycles));
  instructions_.Increment(static_cast<double>(instructions));
  launches_.Increment();
}

}  // namespace aicore::daemon
