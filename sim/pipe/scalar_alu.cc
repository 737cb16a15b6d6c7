// The scalar unit's ALU (see scalar_alu.h).
#include "sim/pipe/scalar_alu.h"

#include <bit>
#include <string>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"
#include "sim/isa/scalar_ops.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/scalar_unit.h"

namespace aicore::sim {
namespace {

// get_program_counter's layout of the decoded program: one 4-byte instruction per IR op, in the
// IR's pre-order, from address 0 (docs/frontend.md, "System registers").
constexpr int64_t kProgramCounterBytesPerOp = 4;

}  // namespace

ScalarAlu::ScalarAlu(LaunchContext& ctx, ScalarHost& host, CoreRegisters& registers,
                     std::vector<ScalarValue>& values)
    : ctx_(ctx), host_(host), regs_(registers), values_(values) {}

int64_t ScalarAlu::Int(uint32_t slot) const {
  return AsInt64(values_[slot], ctx_.program.value_dtypes[slot]);
}

bool ScalarAlu::Fail(std::string why) {
  fault_ = std::move(why);
  return false;
}

void ScalarAlu::Const(const Instr& in) {
  ScalarValue& out = values_[in.result];
  if (IsFloat(in.dtype)) {
    out.f = in.imm.f;
  } else {
    out.i = in.imm.i;
  }
}

bool ScalarAlu::DivisionByZero(const Instr& in) {
  return Fail("integer division or modulo by zero (" + std::string(DTypeProtoName(in.src_dtype)) +
              "). Fix: guard the divisor.");
}

void ScalarAlu::Unary(const Instr& in) {
  values_[in.result] =
      EvalScalarUnaryInline(static_cast<ScalarUnaryKind>(in.kind), in.dtype, in.src_dtype,
                            values_[in.a], static_cast<uint8_t>(in.imm.i));
}

void ScalarAlu::SysValue(const Instr& in, const Place& at) {
  int64_t v = 0;
  switch (static_cast<SysValueKind>(in.kind)) {
    // A group's cores of one type number their blocks in turn (asc-api.md 10.1: in MIX_AIC_1_2
    // vector core `sub` of group g is block 2g + sub); one core per type keeps the group's.
    case SysValueKind::kBlockIdx:
      v = int64_t{at.block} * host_.sub_block_num() + host_.sub_block_idx();
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
      v = at.system_counter;
      break;
    case SysValueKind::kProgramCounter:
      v = int64_t{kProgramCounterBytesPerOp} * in.op_index;
      break;
    case SysValueKind::kUnsetState:
      WarnUnsetState(at.site);
      break;
    // Cores of this core's type per group (asc-api.md 10.1): its place's count in the group.
    case SysValueKind::kTaskRatio:
      v = host_.sub_block_num();
      break;
  }
  values_[in.result] = CastScalar(IntValue(v), DType::kInt64, in.dtype);
}

void ScalarAlu::Select(const Instr& in) {
  values_[in.result] = IsTrue(values_[in.a], DType::kBool) ? values_[in.b] : values_[in.c];
}

void ScalarAlu::WarnUnsetState(const Site& site) {
  if (ctx_.check == CheckLevel::kOff) return;
  ctx_.diags.Warn(
      ctx_.diags.Make(Diagnostic::Kind::kUninitializedRead, Diagnostic::Severity::kWarning, site,
                      ctx_.diags.Prefix(site) +
                          ": reads state the kernel never set, which holds Ascend C's "
                          "default, 0 (a null pointer for an address). Fix: set it first "
                          "(ListTensorDesc.init and get_desc, set_shape_info, "
                          "set_sys_workspace, set_hccl_context)."),
      site.instr);
}

void ScalarAlu::VectorMask(const Instr& in) {
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
}

// The cube core's control registers; a vector core has none (the chip's vector cores have no
// cube to configure).
bool ScalarAlu::CubeConfig(const Instr& in) {
  static constexpr const char* kNames[] = {
      "set_fix_pipe_pre_quant_flag", "set_hf32_mode",          "set_hf32_trans_mode",
      "set_mm_layout_transform",     "set_load_data_boundary", "set_load_data_padding_value",
      "set_load_data_repeat"};
  auto kind = static_cast<StoreConfigKind>(in.kind);
  const char* name = kNames[in.kind - static_cast<uint8_t>(StoreConfigKind::kSetFixPipePreQuant)];
  if (!regs_.Has(kCubeRegisters)) {
    return Fail(std::string(name) + " sets a cube core's register, and a " + host_.core_name() +
                " has none: call it on the cube core (under " + "asc.ascend_is_aic())");
  }
  CubeRegisters& r = regs_.cube;
  bool on = values_[in.a].u != 0;
  if (kind == StoreConfigKind::kSetFixPipePreQuant) r.quant_pre = values_[in.a].u;
  if (kind == StoreConfigKind::kSetHf32Mode) r.hf32 = on;
  if (kind == StoreConfigKind::kSetHf32TransMode) r.hf32_toward_zero = on;
  if (kind == StoreConfigKind::kSetMmLayoutTransform) r.mm_n_first = on;
  if (kind == StoreConfigKind::kSetLoadDataBoundary) {
    // SetLoadDataBoundary: 0 is no boundary; 1..1023 is undefined behaviour (its page).
    uint64_t b = values_[in.a].u;
    if (b > 0xffffffffu || (b > 0 && b < 1024)) {
      return Fail("set_load_data_boundary(" + std::to_string(Int(in.a)) +
                  "): the boundary is 0 (none) or 1024 .. 2^32-1 bytes (1..1023 is undefined)");
    }
    r.load_boundary = static_cast<uint32_t>(b);
  }
  if (kind == StoreConfigKind::kSetLoadDataPaddingValue) {
    // Load3DSetPaddingCal: a b16/b32 value as its bits, a b8 one in both low bytes.
    DType t = ctx_.program.value_dtypes[in.a];
    uint64_t bits = ToElementBits(values_[in.a], t, t);
    r.load_padding = DTypeSize(t) == 1 ? (bits & 0xff) << 8 | (bits & 0xff) : bits;
  }
  if (kind == StoreConfigKind::kSetLoadDataRepeat) {
    int64_t time = in.a == 0 ? 1 : Int(in.a), stride = in.b == 0 ? 0 : Int(in.b);
    int64_t mode = in.c == 0 ? 0 : Int(in.c);
    if (time < 0 || time > 255 || stride < 0 || stride > 65535 || mode < 0 || mode > 1) {
      return Fail("set_load_data_repeat: repeat_time " + std::to_string(time) + ", repeat_stride " +
                  std::to_string(stride) + ", repeat_mode " + std::to_string(mode) +
                  " (LoadDataRepeatParam: repeat_time 0..255, repeat_stride 0..65535, "
                  "repeat_mode 0 or 1)");
    }
    r.load_repeat_time = static_cast<uint32_t>(time);
    r.load_repeat_stride = static_cast<uint32_t>(stride);
    r.load_repeat_mode = static_cast<uint32_t>(mode);
  }
  return true;
}

// The pad value and atomic-store registers (ascendc-semantics.md 5.11, 5.12; CTRL bits 2..0
// the atomic type, 4..3 the op) and DEQSCALE.
bool ScalarAlu::StoreConfig(const Instr& in) {
  switch (static_cast<StoreConfigKind>(in.kind)) {
    case StoreConfigKind::kSetPadValue:
      regs_.store.pad_value = values_[in.a];
      regs_.store.pad_dtype = ctx_.program.value_dtypes[in.a];
      return true;
    case StoreConfigKind::kSetAtomic:
    case StoreConfigKind::kSetAtomicType: {
      int64_t type = Int(in.a);
      if (type < 0 || type > 6) {
        return Fail("atomic type " + std::to_string(type) +
                    " is not an AtomicDtype (ATOMIC_NONE 0 .. ATOMIC_BF16 6)");
      }
      regs_.store.atomic_type = AtomicDtypeToDType(type);
      if (static_cast<StoreConfigKind>(in.kind) == StoreConfigKind::kSetAtomicType) return true;
      int64_t op = Int(in.b);
      if (op < 0 || op >= static_cast<int64_t>(kNumAtomicOps)) {
        return Fail("atomic op " + std::to_string(op) +
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
    case StoreConfigKind::kSetFixPipePreQuant:
    case StoreConfigKind::kSetHf32Mode:
    case StoreConfigKind::kSetHf32TransMode:
    case StoreConfigKind::kSetMmLayoutTransform:
    case StoreConfigKind::kSetLoadDataBoundary:
    case StoreConfigKind::kSetLoadDataPaddingValue:
    case StoreConfigKind::kSetLoadDataRepeat:
      return CubeConfig(in);
    case StoreConfigKind::kGetStoreAtomicConfig:
      values_[in.result] = CastScalar(IntValue(AtomicDtypeOf(regs_.store.atomic_type)),
                                      DType::kInt64, DType::kInt16);
      values_[in.c] = CastScalar(IntValue(static_cast<int64_t>(regs_.store.atomic_op)),
                                 DType::kInt64, DType::kInt16);
      return true;
  }
  return true;
}

}  // namespace aicore::sim
