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

// The store registers of a core, written by the scalar unit in program order and read by each
// copy at issue: the pad value of data_copy_pad (MOV_PAD_VAL; set_pad_value, or a copy with
// is_pad) and the atomic mode of stores into GM (set_atomic_*; ascendc-semantics.md 5.11, 5.12).
struct StoreRegisters {
  ScalarValue pad_value{};              // converted to each copy's element type
  DType pad_dtype = DType::kInvalid;    // kInvalid: never set (the pad is 0)
  DType atomic_type = DType::kInvalid;  // kInvalid: ATOMIC_NONE, stores overwrite
  AtomicOp atomic_op = AtomicOp::kSum;
  // DEQSCALE: a half scale (low 16 bits), a quant word, or the UB address of 16 quant words.
  uint64_t deq_word = 0;
  DeqMode deq_mode = DeqMode::kUnset;
};

// The special registers PIPE_V writes and the scalar unit reads: byte offsets in MemSpace::kSpr.
inline constexpr uint64_t kVms4SrOffset = 0, kVms4SrBytes = 8;  // four uint16 merge counts
inline constexpr uint64_t kAccValOffset = 8, kAccValBytes = 8;  // vcadd's accumulated total
inline constexpr uint64_t kSprBytes = 16;

struct IssueEnv {
  const Program& program;
  const SocConfig& config;
  MemoryMap& memories;
  const RouteTable& routes;
  GlobalMemory& gm;
  FlagFile& flags;
  DiagnosticSink& diags;
  VectorMask* vector_mask = nullptr;  // the core's mask register (the scalar unit's)
  StoreRegisters* store = nullptr;    // the core's pad value and atomic mode (the scalar unit's)
  uint8_t* spr = nullptr;             // the core's special registers (kSprBytes, see above)
  uint64_t* gather_mask_count = nullptr;  // the core's RSVD_CNT register (the scalar unit's)
  bool warn = false;  // checking is on: the issue stage may warn (never at CheckLevel::kOff)
};

// Fills `out` (except issue/ready). Returns false after recording an error diagnostic.
bool BuildIssued(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, IssuedInstr* out);

// The event id operand of set_flag / wait_flag, checked against the flag file. Returns false
// after recording an INVALID_OPERAND error.
bool ResolveFlag(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, uint32_t* flag);

}  // namespace aicore::sim
