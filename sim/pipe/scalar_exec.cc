// The scalar unit's executors of the layout table (the `sexec` column of sim/isa/layouts.def):
// each runs one op on its unit (the ALU, or the walk itself for RSVD_CNT) and retires it.
#include <string>

#include "sim/core/invariant.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_unit.h"
#include "sim/pipe/scalar_unit_inline.h"

namespace aicore::sim {

bool ScalarUnit::ExecConst(const Instr& in, Cycle /*now*/) {
  alu_.Const(in);
  return RetireAlu(in, true);
}

bool ScalarUnit::ExecScalarUnary(const Instr& in, Cycle /*now*/) {
  alu_.Unary(in);
  return RetireAlu(in, true);
}

bool ScalarUnit::ExecSysValue(const Instr& in, Cycle /*now*/) {
  alu_.SysValue(in, ScalarAlu::Place{block_, SystemCounter(), SiteOf(&in, PipeId::kS)});
  return RetireAlu(in, true);
}

bool ScalarUnit::ExecSelect(const Instr& in, Cycle /*now*/) {
  alu_.Select(in);
  return RetireAlu(in, true);
}

bool ScalarUnit::ExecVectorMask(const Instr& in, Cycle /*now*/) {
  alu_.VectorMask(in);
  return RetireAlu(in, true);
}

bool ScalarUnit::ExecStoreConfig(const Instr& in, Cycle /*now*/) {
  return RetireAlu(in, alu_.StoreConfig(in));
}

// The count the last gather_mask kept: the library syncs V_S before reading the register, so
// the scalar unit waits for PIPE_V to finish and is then ordered after it.
// RSVD_CNT is written by the last gather_mask when it ends: the read waits for PIPE_V to drain.
bool ScalarUnit::ExecGatherMaskCount(const Instr& in, Cycle now) {
  if (time_ > now) {
    ScheduleResume(time_);
    return false;
  }
  if (!VectorDrained()) {
    wait_ = Wait::kDrainV;
    wait_instr_ = &in;
    return false;
  }
  wait_ = Wait::kNone;
  if (observe_) order_.OnDrain(PipeId::kV);
  values_[in.result].u = regs_.gather_mask_count;
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::NoScalarExec(const Instr& in, Cycle /*now*/) {
  SIM_CHECK(false, std::string(Info(in.opcode).mnemonic) + " is not a scalar-unit op");
  return false;
}

bool ScalarUnit::ExecOnScalar(const Instr& in, Cycle now) {
  using Exec = bool (ScalarUnit::*)(const Instr&, Cycle);
  // The layout table's scalar-unit executors (sim/isa/layouts.def).
  static constexpr Exec kExec[] = {
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  &ScalarUnit::sexec,
#include "sim/isa/layouts.def"
  };
  auto cls = static_cast<int>(Info(in.opcode).op_class);
  Exec exec = cls < kNumLayouts ? kExec[cls] : &ScalarUnit::NoScalarExec;
  return (this->*exec)(in, now);
}

}  // namespace aicore::sim
