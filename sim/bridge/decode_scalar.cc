// Decoding of scalar-unit ops: constants, scalar arithmetic and casts, system values, select.
#include "sim/bridge/decode_context.h"
#include "sim/isa/scalar_ops.h"
#include "sim/isa/semantics/cast.h"

namespace aicore::sim {

Status DecodeContext::DecodeConst(const ir::ConstOp& c, Instr* in) {
  in->opcode = Opcode::kConst;
  Status s = CheckDType(c.dtype(), "dtype");
  if (!s.ok()) return s;
  DType t = ToDType(c.dtype());
  in->dtype = t;
  in->result = c.result();
  switch (c.value_case()) {
    case ir::ConstOp::kIntValue: {
      int64_t v = c.int_value();
      if (IsFloat(t)) {
        in->imm.f = RoundFloat(static_cast<double>(v), t).f;
      } else if (t == DType::kBool) {
        if (v != 0 && v != 1) return OpError("int_value", "a DT_BOOL constant must be 0 or 1");
        in->imm.i = v;
      } else {
        uint32_t bits = DTypeBits(t);
        if (bits < 64) {
          int64_t lo = IsSigned(t) ? -(int64_t{1} << (bits - 1)) : 0;
          int64_t hi = IsSigned(t) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
          if (v < lo || v > hi) {
            return OpError("int_value", std::to_string(v) + " does not fit " +
                                            std::string(DTypeProtoName(t)) + " [" +
                                            std::to_string(lo) + ", " + std::to_string(hi) + "]");
          }
        } else if (t == DType::kInt64 || v >= 0) {
          // int64 holds any value; uint64 takes non-negative values as is.
        } else {
          // A negative int_value for DT_UINT64 is the two's complement bit pattern (the proto
          // field is signed), so 2^63..2^64-1 can be expressed.
        }
        in->imm.i = v;
      }
      break;
    }
    case ir::ConstOp::kFloatValue: {
      if (!IsFloat(t)) {
        return OpError("float_value", "given for " + std::string(DTypeProtoName(t)) +
                                          "; integer and bool constants use int_value");
      }
      in->imm.f = RoundFloat(c.float_value(), t).f;
      break;
    }
    case ir::ConstOp::VALUE_NOT_SET:
      return OpError("value", "neither int_value nor float_value is set");
  }
  return Define(c.result(), t, "result");
}

Status DecodeContext::DecodeScalarBinary(const ir::ScalarBinaryOp& b, Instr* in) {
  in->opcode = Opcode::kScalarBinary;
  if (!ir::ScalarBinaryOp::Kind_IsValid(b.kind()) || b.kind() == ir::ScalarBinaryOp::KIND_INVALID) {
    return OpError("kind", std::to_string(b.kind()) + " is not a ScalarBinaryOp.Kind value");
  }
  Status s = CheckDType(b.dtype(), "dtype");
  if (!s.ok()) return s;
  DType t = ToDType(b.dtype());
  auto kind = static_cast<ScalarBinaryKind>(b.kind());
  using K = ScalarBinaryKind;
  bool ok = false;
  bool to_bool = false;
  std::string allowed;
  switch (kind) {
    case K::kAdd:
    case K::kSub:
    case K::kMul:
    case K::kDiv:
    case K::kMin:
    case K::kMax:
      ok = IsInteger(t) || IsFloat(t);
      allowed = "integer or floating dtypes";
      break;
    case K::kMod:
    case K::kShl:
    case K::kShr:
      ok = IsInteger(t);
      allowed = "integer dtypes";
      break;
    case K::kAnd:
    case K::kOr:
    case K::kXor:
      ok = IsInteger(t) || t == DType::kBool;
      allowed = "integer dtypes or DT_BOOL";
      break;
    case K::kEq:
    case K::kNe:
    case K::kLt:
    case K::kLe:
    case K::kGt:
    case K::kGe:
      ok = true;
      to_bool = true;
      break;
    case K::kLogicalAnd:
    case K::kLogicalOr:
      ok = IsInteger(t) || t == DType::kBool;
      to_bool = true;
      allowed = "DT_BOOL or integer dtypes";
      break;
  }
  std::string kind_name = ir::ScalarBinaryOp::Kind_Name(b.kind());
  if (!ok) {
    return OpError("dtype", std::string(DTypeProtoName(t)) + " is not allowed for " + kind_name +
                                " (" + allowed + ")");
  }
  if (Status u = UseTyped(b.lhs(), "lhs", t); !u.ok()) return u;
  if (Status u = UseTyped(b.rhs(), "rhs", t); !u.ok()) return u;
  in->kind = static_cast<uint8_t>(kind);
  in->src_dtype = t;
  in->dtype = to_bool ? DType::kBool : t;
  in->a = b.lhs();
  in->b = b.rhs();
  in->result = b.result();
  return Define(b.result(), in->dtype, "result");
}

Status DecodeContext::DecodeScalarUnary(const ir::ScalarUnaryOp& u, Instr* in) {
  in->opcode = Opcode::kScalarUnary;
  if (!ir::ScalarUnaryOp::Kind_IsValid(u.kind()) || u.kind() == ir::ScalarUnaryOp::KIND_INVALID) {
    return OpError("kind", std::to_string(u.kind()) + " is not a ScalarUnaryOp.Kind value");
  }
  Status s = CheckDType(u.dtype(), "dtype");
  if (!s.ok()) return s;
  DType t = ToDType(u.dtype());
  auto kind = static_cast<ScalarUnaryKind>(u.kind());
  DType operand;
  if (Status v = Use(u.operand(), "operand", &operand); !v.ok()) return v;
  bool src_given = u.src_dtype() != ir::DT_INVALID;
  if (src_given) {
    if (Status v = CheckDType(u.src_dtype(), "src_dtype"); !v.ok()) return v;
    if (ToDType(u.src_dtype()) != operand) {
      return OpError("src_dtype", std::string(DTypeProtoName(ToDType(u.src_dtype()))) +
                                      " does not match the operand %" +
                                      std::to_string(u.operand()) + " of dtype " +
                                      std::string(DTypeProtoName(operand)));
    }
  }
  switch (kind) {
    case ScalarUnaryKind::kNeg:
      if (!IsInteger(t) && !IsFloat(t)) {
        return OpError("dtype", "NEG needs an integer or floating dtype");
      }
      if (operand != t) return UseTyped(u.operand(), "operand", t);
      break;
    case ScalarUnaryKind::kBitNot:
      if (!IsInteger(t)) return OpError("dtype", "BIT_NOT needs an integer dtype");
      if (operand != t) return UseTyped(u.operand(), "operand", t);
      break;
    case ScalarUnaryKind::kLogicalNot:
      if (t != DType::kBool) return OpError("dtype", "LOGICAL_NOT produces DT_BOOL");
      if (operand != DType::kBool && !IsInteger(operand)) {
        return OpError("operand", "LOGICAL_NOT needs a DT_BOOL or integer operand");
      }
      break;
    case ScalarUnaryKind::kCast:
      if (!src_given) return OpError("src_dtype", "CAST needs the operand type");
      break;
    case ScalarUnaryKind::kFirstZero:
    case ScalarUnaryKind::kFirstOne:
    case ScalarUnaryKind::kCountZeros:
    case ScalarUnaryKind::kCountOnes:
    case ScalarUnaryKind::kClz:
    case ScalarUnaryKind::kCls: {
      DType want = kind == ScalarUnaryKind::kCls ? DType::kInt64 : DType::kUInt64;
      if (t != DType::kInt64) return OpError("dtype", "the bit helpers produce DT_INT64");
      if (operand != want) return UseTyped(u.operand(), "operand", want);
      break;
    }
    case ScalarUnaryKind::kRoundCast: {
      if (operand != DType::kFloat32) return UseTyped(u.operand(), "operand", DType::kFloat32);
      RoundModeSet modes = CastModes(DType::kFloat32, t);
      if (t != DType::kInt32 && t != DType::kFloat16) {
        return OpError("dtype", "ROUND_CAST converts float32 to DT_INT32 or DT_FLOAT16 only");
      }
      if (u.round_mode() >= kNumRoundModes ||
          (modes & RoundModeBit(static_cast<RoundMode>(u.round_mode()))) == 0) {
        return OpError("round_mode",
                       std::to_string(u.round_mode()) + " is not a mode of float32 -> " +
                           std::string(DTypeName(t)) + "; use one of " + RoundModeList(modes));
      }
      in->imm.i = u.round_mode();
      break;
    }
  }
  in->kind = static_cast<uint8_t>(kind);
  in->dtype = t;
  in->src_dtype = operand;
  in->a = u.operand();
  in->result = u.result();
  return Define(u.result(), t, "result");
}

Status DecodeContext::DecodeSysValue(const ir::SysValueOp& v, Instr* in) {
  in->opcode = Opcode::kSysValue;
  if (!ir::SysValueOp::Kind_IsValid(v.kind()) || v.kind() == ir::SysValueOp::KIND_INVALID) {
    return OpError("kind", std::to_string(v.kind()) + " is not a SysValueOp.Kind value");
  }
  Status s = CheckDType(v.dtype(), "dtype");
  if (!s.ok()) return s;
  DType t = ToDType(v.dtype());
  bool flag = v.kind() == ir::SysValueOp::IS_AIC || v.kind() == ir::SysValueOp::IS_AIV;
  if (!IsInteger(t) && !(flag && t == DType::kBool)) {
    return OpError("dtype", std::string(DTypeProtoName(t)) + " is not allowed for " +
                                ir::SysValueOp::Kind_Name(v.kind()) +
                                (flag ? " (DT_BOOL or an integer)" : " (an integer dtype)"));
  }
  in->kind = static_cast<uint8_t>(v.kind());
  in->dtype = t;
  in->result = v.result();
  return Define(v.result(), t, "result");
}

Status DecodeContext::DecodeSelect(const ir::SelectOp& sel, Instr* in) {
  in->opcode = Opcode::kSelect;
  Status s = CheckDType(sel.dtype(), "dtype");
  if (!s.ok()) return s;
  DType t = ToDType(sel.dtype());
  if (Status u = UseTyped(sel.cond(), "cond", DType::kBool); !u.ok()) return u;
  if (Status u = UseTyped(sel.true_value(), "true_value", t); !u.ok()) return u;
  if (Status u = UseTyped(sel.false_value(), "false_value", t); !u.ok()) return u;
  in->dtype = t;
  in->a = sel.cond();
  in->b = sel.true_value();
  in->c = sel.false_value();
  in->result = sel.result();
  return Define(sel.result(), t, "result");
}

}  // namespace aicore::sim
