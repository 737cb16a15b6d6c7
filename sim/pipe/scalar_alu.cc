// The scalar unit's ALU and registers (ascendc-semantics.md 2): constants, scalar arithmetic,
// system values, scalar selects, the vector mask register, the store-configuration registers
// and RSVD_CNT reads. One executor per layout row (the `sexec` column of sim/isa/layouts.def);
// each retires its op on the scalar unit.
#include <bit>
#include <string>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_unit.h"

namespace aicore::sim {
namespace {

// get_program_counter's layout of the decoded program: one 4-byte instruction per IR op, in the
// IR's pre-order, from address 0 (docs/frontend.md, "System registers").
constexpr int64_t kProgramCounterBytesPerOp = 4;

}  // namespace

bool ScalarUnit::ExecConst(const Instr& in, Cycle /*now*/) {
  ScalarValue& out = values_[in.result];
  if (IsFloat(in.dtype)) {
    out.f = in.imm.f;
  } else {
    out.i = in.imm.i;
  }
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::ExecScalarBinary(const Instr& in, Cycle /*now*/) {
  ScalarValue r;
  ScalarFault fault = EvalScalarBinary(static_cast<ScalarBinaryKind>(in.kind), in.src_dtype,
                                       values_[in.a], values_[in.b], &r);
  if (fault == ScalarFault::kDivisionByZero) {
    return Fault(in, "integer division or modulo by zero (" +
                         std::string(DTypeProtoName(in.src_dtype)) + "). Fix: guard the divisor.");
  }
  values_[in.result] = r;
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::ExecScalarUnary(const Instr& in, Cycle /*now*/) {
  values_[in.result] = EvalScalarUnary(static_cast<ScalarUnaryKind>(in.kind), in.dtype,
                                       in.src_dtype, values_[in.a], static_cast<uint8_t>(in.imm.i));
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::ExecSysValue(const Instr& in, Cycle /*now*/) {
  int64_t v = 0;
  switch (static_cast<SysValueKind>(in.kind)) {
    case SysValueKind::kBlockIdx:
      v = block_;
      break;
    case SysValueKind::kBlockNum:
      v = ctx_.block_dim;
      break;
    // The core's place in its group (an AIV-only launch: sub-block 0 of 1).
    case SysValueKind::kSubBlockIdx:
      v = host_.sub_block_idx();
      break;
    case SysValueKind::kSubBlockNum:
      v = host_.sub_block_num();
      break;
    case SysValueKind::kIsAic:
      v = host_.core_type() == CoreType::kAic ? 1 : 0;
      break;
    case SysValueKind::kIsAiv:
      v = host_.core_type() == CoreType::kAiv ? 1 : 0;
      break;
    case SysValueKind::kSystemCycle:
      v = SystemCounter();
      break;
    case SysValueKind::kProgramCounter:
      v = int64_t{kProgramCounterBytesPerOp} * in.op_index;
      break;
    case SysValueKind::kUnsetState:
      WarnUnsetState(in);
      break;
  }
  values_[in.result] = CastScalar(IntValue(v), DType::kInt64, in.dtype);
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::ExecSelect(const Instr& in, Cycle /*now*/) {
  values_[in.result] = IsTrue(values_[in.a], DType::kBool) ? values_[in.b] : values_[in.c];
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

void ScalarUnit::WarnUnsetState(const Instr& in) {
  if (ctx_.check == CheckLevel::kOff) return;
  Site site = SiteOf(&in, PipeId::kS);
  ctx_.diags.Warn(
      ctx_.diags.Make(Diagnostic::Kind::kUninitializedRead, Diagnostic::Severity::kWarning, site,
                      ctx_.diags.Prefix(site) +
                          ": reads state the kernel never set, which holds Ascend C's "
                          "default, 0 (a null pointer for an address). Fix: set it first "
                          "(ListTensorDesc.init and get_desc, set_shape_info, "
                          "set_sys_workspace, set_hccl_context)."),
      &in);
}

bool ScalarUnit::ExecVectorMask(const Instr& in, Cycle /*now*/) {
  switch (static_cast<VecMaskKind>(in.kind)) {
    case VecMaskKind::kSetMask:
      regs_.vector_mask.hi = values_[in.a].u;
      regs_.vector_mask.lo = values_[in.b].u;
      break;
    case VecMaskKind::kSetMaskLength: {
      int64_t len = Int(in.c);
      bool counter = regs_.vector_mask.counter;
      regs_.vector_mask = MaskForLength(len < 0 ? 0 : static_cast<uint64_t>(len),
                                        static_cast<uint32_t>(DTypeSize(in.dtype)), counter);
      regs_.vector_mask.counter = counter;  // a mask write leaves the mode as it was
      break;
    }
    case VecMaskKind::kSetMaskCount:
      regs_.vector_mask.counter = true;
      break;
    case VecMaskKind::kSetMaskNorm:
      regs_.vector_mask.counter = false;
      break;
    case VecMaskKind::kResetMask:
      regs_.vector_mask.hi = regs_.vector_mask.lo = ~uint64_t{0};
      break;
  }
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

// The pad value and atomic-store registers (ascendc-semantics.md 5.11, 5.12; CTRL bits 2..0
// the atomic type, 4..3 the op).
bool ScalarUnit::ExecStoreConfig(const Instr& in, Cycle /*now*/) {
  if (!SetStoreConfig(in)) return false;
  return RetireScalar(ctx_.config.scalar_op_cycles);
}

bool ScalarUnit::SetStoreConfig(const Instr& in) {
  switch (static_cast<StoreConfigKind>(in.kind)) {
    case StoreConfigKind::kSetPadValue:
      regs_.store.pad_value = values_[in.a];
      regs_.store.pad_dtype = ctx_.program.value_dtypes[in.a];
      return true;
    case StoreConfigKind::kSetAtomic:
    case StoreConfigKind::kSetAtomicType: {
      int64_t type = Int(in.a);
      if (type < 0 || type > 6) {
        return Fault(in, "atomic type " + std::to_string(type) +
                             " is not an AtomicDtype (ATOMIC_NONE 0 .. ATOMIC_BF16 6)");
      }
      regs_.store.atomic_type = AtomicDtypeToDType(type);
      if (static_cast<StoreConfigKind>(in.kind) == StoreConfigKind::kSetAtomicType) return true;
      int64_t op = Int(in.b);
      if (op < 0 || op >= static_cast<int64_t>(kNumAtomicOps)) {
        return Fault(in, "atomic op " + std::to_string(op) +
                             " is not one of sum 0, max 1, min 2 (CTRL bits 4..3)");
      }
      regs_.store.atomic_op = static_cast<AtomicOp>(op);
      return true;
    }
    case StoreConfigKind::kSetDeqScale: {
      // The library's words (ascendc-semantics.md 4.4 layout): scale bits 31..0, offset bits
      // 45..37, sign bit 46; a half scale in the low 16 bits.
      auto mode = static_cast<DeqMode>(in.imm.i);
      const ScalarValue& v = values_[in.a];
      uint64_t word = 0;
      if (mode == DeqMode::kHalfScale) {
        word = FloatToHalf(static_cast<float>(v.f));
      } else if (mode == DeqMode::kWord) {
        word = std::bit_cast<uint32_t>(static_cast<float>(v.f)) |
               (static_cast<uint64_t>(Int(in.b)) & 0x1ffu) << 37 |
               static_cast<uint64_t>(values_[in.c].u != 0) << 46;
      } else {
        word = v.u;
      }
      regs_.store.deq_word = word;
      regs_.store.deq_mode = mode;
      return true;
    }
    case StoreConfigKind::kCheckLocalMemory:
      regs_.watch.Apply(values_[in.a].u);
      return true;
    case StoreConfigKind::kGetStoreAtomicConfig:
      values_[in.result] = CastScalar(IntValue(AtomicDtypeOf(regs_.store.atomic_type)),
                                      DType::kInt64, DType::kInt16);
      values_[in.c] = CastScalar(IntValue(static_cast<int64_t>(regs_.store.atomic_op)),
                                 DType::kInt64, DType::kInt16);
      return true;
  }
  return true;
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
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, sexec, \
                      maker)                                                                 \
  &ScalarUnit::sexec,
#include "sim/isa/layouts.def"
  };
  auto cls = static_cast<int>(Info(in.opcode).op_class);
  Exec exec = cls < kNumLayouts ? kExec[cls] : &ScalarUnit::NoScalarExec;
  return (this->*exec)(in, now);
}

}  // namespace aicore::sim
