// The scalar unit's per-op helpers, inline for the files that make up the scalar unit
// (scalar_unit.cc, scalar_exec.cc, scalar_sync.cc, scalar_debug.cc): every scalar op retires
// through them, and a call per op was a measurable part of a matmul's host time.
#pragma once

#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_unit.h"

namespace aicore::sim {

inline void ScalarUnit::Advance(uint32_t cycles) {
  time_ += Cycle(cycles);
  stats_.busy_cycles += cycles;
}

inline bool ScalarUnit::RetireScalar(uint32_t cycles) {
  ++frames_.back().pc;
  ++stats_.instructions;
  ++ctx_.instructions;
  Advance(cycles);
  return true;
}

inline bool ScalarUnit::RetireAlu(const Instr& in, bool ok) {
  if (!ok) return Fault(in, alu_.fault());
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

// Run calls it directly for the most frequent op, without the executor table.
inline bool ScalarUnit::ExecScalarBinary(const Instr& in, Cycle /*now*/) {
  return RetireAlu(in, alu_.Binary(in));
}

}  // namespace aicore::sim
