// The metrics the daemon exports (docs/metrics.md): one place that names them, registers the
// gauges read at scrape time (queue, workers, memory, sessions, program cache), and counts what
// happens (RPCs by method and code, simulated cycles and instructions).
#pragma once

#include <grpcpp/support/status.h>

#include <cstdint>
#include <string>

#include "sim/host/program_cache.h"
#include "src/job_pool.h"
#include "src/memory_budget.h"
#include "src/metrics.h"

namespace aicore::daemon {

class SessionManager;

class ServiceMetrics {
 public:
  ServiceMetrics(const JobPool* pool, const MemoryBudget* budget, const sim::ProgramCache* programs,
                 const SessionManager* sessions);

  void CountRpc(const char* method, grpc::StatusCode code);
  void CountLaunch(uint64_t cycles, uint64_t instructions);

  std::string Render() const { return registry_.Render(); }

 private:
  MetricsRegistry registry_;
  Counter& cycles_;
  Counter& instructions_;
  Counter& launches_;
};

}  // namespace aicore::daemon
