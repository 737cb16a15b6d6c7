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
#include "sim/pipe/core_registers.h"
#include "sim/pipe/cube_args.h"
#include "sim/pipe/instr.h"
#include "sim/pipe/payload_pool.h"
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
  // The core's registers (CoreRegisters), null where its core type has none.
  VectorMask* vector_mask = nullptr;           // the mask register
  StoreRegisters* store = nullptr;             // the pad value, atomic mode and DEQSCALE
  CubeRegisters* cube = nullptr;               // QUANT_PRE, HF32 and the Mmad order (cube cores)
  uint8_t* spr = nullptr;                      // the special registers (kSprBytes)
  uint64_t* gather_mask_count = nullptr;       // RSVD_CNT
  PayloadPool<MoveArgs>* moves = nullptr;      // the core's rearrangement operands (payload_pool.h)
  PayloadPool<CubeArgs>* cube_args = nullptr;  // the core's cube operands (cube_args.h)
  bool warn = false;  // checking is on: the issue stage may warn (never at CheckLevel::kOff)
};

// Fills `out` (except issue/ready). Returns false after recording an error diagnostic.
bool BuildIssued(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, IssuedInstr* out);

// A cross-core flag id as the chip takes it: its low bits (cross_core_flag_ids, 16 on C220), with
// a warning at `site` when the value is outside 0..ids-1 and `warn`.
uint32_t CrossCoreFlagId(int64_t id, const SocConfig& config, bool warn, const Site& site,
                         DiagnosticSink& diags, const char* api);

// The event id operand of set_flag / wait_flag, checked against the flag file. Returns false
// after recording an INVALID_OPERAND error.
bool ResolveFlag(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, uint32_t* flag);

}  // namespace aicore::sim
