// Turns a decoded pipe instruction plus the scalar unit's current values into an IssuedInstr:
// evaluates addresses, counts, strides and event ids, checks them (sim/check/bounds) against the
// core's memories and resolves them to host pointers, and takes a copy's transfer kind from the
// core's route. Runs at issue time, so a fault names the cycle the scalar unit reached the op.
#pragma once

#include <vector>

#include "sim/check/diagnostics.h"
#include "sim/core/config.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/mem/global_memory.h"
#include "sim/mem/memory_map.h"
#include "sim/pipe/instr.h"
#include "sim/pipe/route.h"
#include "sim/pipe/vector_mask.h"
#include "sim/sync/flags.h"

namespace aicore::sim {

struct IssueEnv {
  const Program& program;
  const SocConfig& config;
  MemoryMap& memories;
  const RouteTable& routes;
  GlobalMemory& gm;
  FlagFile& flags;
  DiagnosticSink& diags;
  VectorMask* vector_mask = nullptr;      // the core's mask register (the scalar unit's)
  uint64_t* gather_mask_count = nullptr;  // the core's RSVD_CNT register (the scalar unit's)
};

// Fills `out` (except issue/ready). Returns false after recording an error diagnostic.
bool BuildIssued(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, IssuedInstr* out);

// The event id operand of set_flag / wait_flag, checked against the flag file. Returns false
// after recording an INVALID_OPERAND error.
bool ResolveFlag(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, uint32_t* flag);

}  // namespace aicore::sim
