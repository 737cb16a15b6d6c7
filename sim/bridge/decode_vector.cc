// Decoding of vector compute ops: the opcode and the element types come from the instruction
// table (sim/isa/instructions.def), so a new row needs no code here.
#include "sim/bridge/decode_context.h"
#include "sim/isa/opcode.h"
#include "sim/isa/semantics/binary_cast.h"
#include "sim/isa/semantics/cast.h"

namespace aicore::sim {

Status DecodeContext::CheckVectorDType(Opcode op, DType t) {
  if (VectorOpSupports(op, t)) return Status::Ok();
  DType listed[kNumDTypes];
  int n = ListDTypes(Info(op).dtypes, listed);
  std::string supported;
  for (int i = 0; i < n; ++i) {
    if (!supported.empty()) supported += ", ";
    supported += std::string(DTypeProtoName(listed[i]));
  }
  return OpError("dst.dtype", std::string(DTypeProtoName(t)) + " is not supported by " +
                                  std::string(Info(op).mnemonic) + " (supported: " + supported +
                                  ")");
}

Status DecodeContext::SameDType(const TensorOperand& dst, const TensorOperand& src,
                                const std::string& name) {
  if (src.dtype == dst.dtype) return Status::Ok();
  return OpError(name + ".dtype", std::string(DTypeProtoName(src.dtype)) +
                                      " differs from dst.dtype " +
                                      std::string(DTypeProtoName(dst.dtype)));
}

Status DecodeContext::FinishVector(Opcode op, MemOpInfo& m, uint32_t count, Instr* in) {
  if (Status s = CheckVectorDType(op, m.dst.dtype); !s.ok()) return s;
  if (!m.repeat_form) {
    if ((Info(op).forms & kCountForm) == 0) {
      return OpError("repeat", std::string(Info(op).mnemonic) +
                                   " has only the mask/repeat form; give repeat, not count");
    }
    if (Status u = UseInteger(count, "count"); !u.ok()) return u;
  } else if (count != 0) {
    return OpError("count", "is set together with repeat; the mask/repeat form has no count");
  }
  m.count = count;
  return AddVectorInstr(op, m.dst.dtype, m, in);
}

Status DecodeContext::AddVectorInstr(Opcode op, DType dtype, const MemOpInfo& m, Instr* in) {
  in->opcode = op;
  in->pipe = PipeId::kV;
  in->dtype = dtype;
  in->aux = static_cast<uint32_t>(p_->mem_ops.size());
  p_->mem_ops.push_back(m);
  return Status::Ok();
}

Status DecodeContext::VectorOpcode(const char* ir_op, const char* kind_enum, int kind,
                                   Opcode* out) {
  const OpcodeInfo* row = kind != 0 ? FindOpcode(ir_op, kind) : nullptr;
  if (row == nullptr) {
    return OpError("kind", std::to_string(kind) + " is not a " + kind_enum + " value");
  }
  *out = row->opcode;
  return Status::Ok();
}

Status DecodeContext::DecodeRepeat(Opcode op, const ir::VecRepeat& r, int operands, MemOpInfo* m) {
  if ((Info(op).forms & kRepeatForm) == 0) {
    return OpError("repeat", std::string(Info(op).mnemonic) + " has no mask/repeat form");
  }
  if (r.mask_len() != 0 && (r.mask_hi() != 0 || r.mask_lo() != 0)) {
    return OpError("repeat.mask_len", "is set together with mask_hi/mask_lo; give one mask");
  }
  if ((r.mask_hi() != 0) != (r.mask_lo() != 0)) {
    return OpError("repeat.mask_hi", "a bit mask needs both words (mask_hi and mask_lo)");
  }
  if (r.blk_stride_size() > operands || r.rep_stride_size() > operands) {
    return OpError("repeat.blk_stride", "more strides than the " + std::to_string(operands) +
                                            " operands of " + std::string(Info(op).mnemonic));
  }
  const std::pair<uint32_t, const char*> scalars[] = {{r.repeat_times(), "repeat.repeat_times"},
                                                      {r.mask_len(), "repeat.mask_len"},
                                                      {r.mask_hi(), "repeat.mask_hi"},
                                                      {r.mask_lo(), "repeat.mask_lo"}};
  for (const auto& [id, field] : scalars) {
    if (Status s = UseOptionalInteger(id, field); !s.ok()) return s;
  }
  m->repeat_form = true;
  m->repeat_times = r.repeat_times();
  m->mask_len = r.mask_len();
  m->mask_hi = r.mask_hi();
  m->mask_lo = r.mask_lo();
  for (int i = 0; i < r.blk_stride_size(); ++i) {
    if (Status s = UseOptionalInteger(r.blk_stride(i), "repeat.blk_stride"); !s.ok()) return s;
    m->blk_stride[i] = r.blk_stride(i);
  }
  for (int i = 0; i < r.rep_stride_size(); ++i) {
    if (Status s = UseOptionalInteger(r.rep_stride(i), "repeat.rep_stride"); !s.ok()) return s;
    m->rep_stride[i] = r.rep_stride(i);
  }
  return Status::Ok();
}

Status DecodeContext::DecodeVecMask(const ir::VecMaskOp& v, Instr* in) {
  in->opcode = Opcode::kVecMask;
  if (v.kind() < ir::VecMaskOp::SET_MASK || v.kind() > ir::VecMaskOp::RESET_MASK) {
    return OpError("kind", std::to_string(v.kind()) + " is not a VecMaskOp.Kind value");
  }
  in->kind = static_cast<uint8_t>(v.kind());
  if (v.kind() == ir::VecMaskOp::SET_MASK) {
    if (Status s = UseInteger(v.mask_hi(), "mask_hi"); !s.ok()) return s;
    if (Status s = UseInteger(v.mask_lo(), "mask_lo"); !s.ok()) return s;
    in->a = v.mask_hi();
    in->b = v.mask_lo();
  } else if (v.kind() == ir::VecMaskOp::SET_MASK_LENGTH) {
    if (Status s = UseInteger(v.length(), "length"); !s.ok()) return s;
    in->c = v.length();
    if (!ir::DType_IsValid(v.dtype()) || v.dtype() == ir::DT_INVALID || v.dtype() == ir::DT_BOOL) {
      return OpError("dtype",
                     IrDTypeName(v.dtype()) +
                         " is not an element type; a mask length needs the type it counts");
    }
    in->dtype = ToDType(v.dtype());
  }
  return Status::Ok();
}

// cast_deq: int16 -> int8 / uint8 by the DEQSCALE parameters; no round mode.
Status DecodeContext::DecodeCastDeq(const ir::VecCastOp& v, MemOpInfo& m, Instr* in) {
  if (m.src0.dtype != DType::kInt16 ||
      (m.dst.dtype != DType::kInt8 && m.dst.dtype != DType::kUInt8)) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.src0.dtype)) + " -> " +
                                    std::string(DTypeProtoName(m.dst.dtype)) +
                                    " is not cast_deq's; it converts DT_INT16 to DT_INT8 or "
                                    "DT_UINT8");
  }
  if (v.round_mode() != 0) return OpError("round_mode", "cast_deq has no round mode");
  in->src_dtype = m.src0.dtype;
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(Opcode::kVecCastDeq, v.repeat(), 2, &m); !s.ok()) return s;
  }
  return FinishVector(Opcode::kVecCastDeq, m, v.count(), in);
}

Status DecodeContext::DecodeVecCast(const ir::VecCastOp& v, Instr* in) {
  in->opcode = Opcode::kVecCast;
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
  if (v.deq()) return DecodeCastDeq(v, m, in);
  RoundModeSet modes = CastModes(m.src0.dtype, m.dst.dtype);
  std::string pair =
      std::string(DTypeName(m.src0.dtype)) + " -> " + std::string(DTypeName(m.dst.dtype));
  if (modes == 0) {
    return OpError("dst.dtype", "the chip has no cast " + pair + " (ascendc-semantics.md 5.2)");
  }
  if (v.round_mode() >= static_cast<uint32_t>(kNumRoundModes) ||
      (modes & (1u << v.round_mode())) == 0) {
    std::string given = v.round_mode() < static_cast<uint32_t>(kNumRoundModes)
                            ? std::string(RoundModeName(static_cast<RoundMode>(v.round_mode())))
                            : std::to_string(v.round_mode());
    return OpError("round_mode", given + " is not a mode of the cast " + pair + "; use one of " +
                                     RoundModeList(modes));
  }
  in->kind = static_cast<uint8_t>(v.round_mode());
  in->src_dtype = m.src0.dtype;
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(Opcode::kVecCast, v.repeat(), 2, &m); !s.ok()) return s;
  }
  return FinishVector(Opcode::kVecCast, m, v.count(), in);
}

Status DecodeContext::DecodeVecCompare(const ir::VecCompareOp& v, Instr* in) {
  in->opcode = Opcode::kVecCompare;
  Opcode op;
  if (Status s = VectorOpcode("vec_compare", "VecCompareOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  bool scalar = op == Opcode::kVecCompareScalar;
  MemOpInfo m;
  m.to_cmp_mask = v.to_cmp_mask();
  if (m.to_cmp_mask) {
    // vcmp: one iteration whose bits go to CMPMASK (ascendc-semantics.md 5.6).
    if (scalar)
      return OpError("to_cmp_mask", "the register form is compare's, not compare_scalar's");
    if (v.has_dst()) return OpError("dst", "the register form writes CMPMASK; give no dst");
    if (!v.has_repeat()) return OpError("repeat", "the register form needs its mask (repeat)");
    if (v.repeat().repeat_times() != 0) {
      return OpError("repeat.repeat_times", "the register form runs one iteration; give none");
    }
  } else if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) {
    return s;
  }
  if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
  if (!m.to_cmp_mask && !IsInteger(m.dst.dtype)) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) +
                                    " cannot hold a bit mask; use DT_UINT8");
  }
  if (Status s = CheckVectorDType(op, m.src0.dtype); !s.ok()) return s;
  constexpr uint32_t kEq = 2, kNumModes = 6;
  if (v.cmp_mode() >= kNumModes) {
    return OpError("cmp_mode", std::to_string(v.cmp_mode()) + " is not a CMPMODE (LT 0 .. NE 5)");
  }
  if (m.src0.dtype == DType::kInt32 && v.cmp_mode() != kEq) {
    return OpError("cmp_mode", "int32 compares only EQ on the chip (ascendc-semantics.md 5.6)");
  }
  if (scalar) {
    if (v.has_src1()) return OpError("src1", "compare_scalar compares against `scalar`, not src1");
    DType st;
    if (Status u = Use(v.scalar(), "scalar", &st); !u.ok()) return u;
    m.scalar = v.scalar();
  } else {
    if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
    if (m.src1.dtype != m.src0.dtype) {
      return OpError("src1.dtype", std::string(DTypeProtoName(m.src1.dtype)) +
                                       " differs from src0.dtype " +
                                       std::string(DTypeProtoName(m.src0.dtype)));
    }
  }
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(op, v.repeat(), scalar ? 2 : 3, &m); !s.ok()) return s;
  } else if (Status u = UseInteger(v.count(), "count"); !u.ok()) {
    return u;
  }
  m.count = v.count();
  in->kind = static_cast<uint8_t>(v.cmp_mode());
  // The element type compared; dst is bytes of bits.
  return AddVectorInstr(op, m.src0.dtype, m, in);
}

Status DecodeContext::DecodeVecSelect(const ir::VecSelectOp& v, Instr* in) {
  in->opcode = Opcode::kVecSelect;
  constexpr uint32_t kCmpMask = 0, kTensorScalar = 1, kTensorTensor = 2;
  if (v.sel_mode() > kTensorTensor) {
    return OpError("sel_mode", std::to_string(v.sel_mode()) +
                                   " is not a SelMode: VSEL_CMPMASK_SPR (0), "
                                   "VSEL_TENSOR_SCALAR_MODE (1) or VSEL_TENSOR_TENSOR_MODE (2)");
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (v.from_cmp_mask() && v.sel_mode() == kCmpMask) {
    return OpError("from_cmp_mask",
                   "is for VSEL_TENSOR_SCALAR_MODE (1) and "
                   "VSEL_TENSOR_TENSOR_MODE (2); mode 0 always reads CMPMASK");
  }
  m.from_cmp_mask = v.from_cmp_mask();
  if (v.sel_mode() == kTensorTensor && v.from_cmp_mask()) {
    if (v.has_sel_mask()) {
      return OpError("sel_mask", "is in CMPMASK (its UB address) with from_cmp_mask; give none");
    }
  } else if (v.sel_mode() == kCmpMask) {
    if (v.has_sel_mask()) {
      return OpError("sel_mask",
                     "VSEL_CMPMASK_SPR takes its bits from the CMPMASK register; "
                     "load it with set_cmp_mask first and give no sel_mask");
    }
  } else if (Status s = DecodeTensor(v.sel_mask(), "sel_mask", true, &m.sel); !s.ok()) {
    return s;
  }
  if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
  if (v.sel_mode() != kTensorScalar) {
    if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src1, "src1"); !s.ok()) return s;
  } else if (v.from_cmp_mask()) {
    if (v.scalar() != 0) return OpError("scalar", "is set together with from_cmp_mask");
  } else {
    DType st;
    if (Status u = Use(v.scalar(), "scalar", &st); !u.ok()) return u;
    m.scalar = v.scalar();
  }
  in->kind = static_cast<uint8_t>(v.sel_mode());
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(Opcode::kVecSelect, v.repeat(), 3, &m); !s.ok()) return s;
  }
  return FinishVector(Opcode::kVecSelect, m, v.count(), in);
}

Status DecodeContext::DecodeVecReduce(const ir::VecReduceOp& v, Instr* in) {
  in->opcode = Opcode::kVecWholeReduceMax;
  Opcode op;
  if (Status s = VectorOpcode("vec_reduce", "VecReduceOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
  bool ordered = op == Opcode::kVecWholeReduceMax || op == Opcode::kVecWholeReduceMin;
  if (v.order() >= kNumReduceOrders || (!ordered && v.order() != 0)) {
    return OpError("order", ordered ? std::to_string(v.order()) +
                                          " is not a ReduceOrder (ORDER_VALUE_INDEX 0 .. "
                                          "ORDER_ONLY_INDEX 3)"
                                    : std::string(Info(op).mnemonic) + " has no order");
  }
  in->kind = static_cast<uint8_t>(v.order());
  if (!v.has_repeat()) {
    return OpError("repeat", std::string(Info(op).mnemonic) + " has only the mask/repeat form");
  }
  if (Status s = DecodeRepeat(op, v.repeat(), 2, &m); !s.ok()) return s;
  return FinishVector(op, m, 0, in);
}

Status DecodeContext::DecodeVecCmpMask(const ir::VecCmpMaskOp& v, Instr* in) {
  in->opcode = Opcode::kVecSetCmpMask;
  Opcode op;
  if (Status s = VectorOpcode("vec_cmp_mask", "VecCmpMaskOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.tensor(), "tensor", true, &m.src0); !s.ok()) return s;
  m.dst = m.src0;  // the row's dtype check reads dst
  if (Status s = CheckVectorDType(op, m.dst.dtype); !s.ok()) return s;
  return AddVectorInstr(op, m.src0.dtype, m, in);
}

Status DecodeContext::DecodeVecBinary(const ir::VecBinaryOp& v, Instr* in) {
  in->opcode = Opcode::kVecAdd;
  Opcode op;
  if (Status s = VectorOpcode("vec_binary", "VecBinaryOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
  if (Info(op).op_class == OpClass::kVecBinCast) {
    // mul_cast and the relu casts: both sources of one type, dst of the narrower one.
    if (Status s = SameDType(m.src0, m.src1, "src1"); !s.ok()) return s;
    if (!BinaryCastLegal(op, m.src0.dtype, m.dst.dtype)) {
      return OpError("dst.dtype", std::string(DTypeProtoName(m.src0.dtype)) + " -> " +
                                      std::string(DTypeProtoName(m.dst.dtype)) +
                                      " is not a conversion " + std::string(Info(op).mnemonic) +
                                      " has on the chip");
    }
    in->src_dtype = m.src0.dtype;
  } else {
    if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src1, "src1"); !s.ok()) return s;
  }
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(op, v.repeat(), 3, &m); !s.ok()) return s;
  }
  return FinishVector(op, m, v.count(), in);
}

Status DecodeContext::DecodeVecUnary(const ir::VecUnaryOp& v, Instr* in) {
  in->opcode = Opcode::kVecAbs;
  Opcode op;
  if (Status s = VectorOpcode("vec_unary", "VecUnaryOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(op, v.repeat(), 2, &m); !s.ok()) return s;
  }
  if (v.accumulate() && op != Opcode::kVecWholeReduceSum) {
    return OpError("accumulate", "is whole_reduce_sum's flag (vcadd), not " +
                                     std::string(Info(op).mnemonic) + "'s");
  }
  m.accumulate = v.accumulate();
  return FinishVector(op, m, v.count(), in);
}

Status DecodeContext::DecodeAccValRead(const ir::AccValReadOp& v, Instr* in) {
  in->opcode = Opcode::kAccValRead;
  if (v.dtype() != ir::DT_FLOAT16 && v.dtype() != ir::DT_FLOAT32) {
    return OpError("dtype", "must be DT_FLOAT16 or DT_FLOAT32 (ACC_VAL holds a vcadd total)");
  }
  in->dtype = ToDType(v.dtype());
  in->result = v.result();
  return Define(v.result(), in->dtype, "result");
}

Status DecodeContext::DecodeVecScalar(const ir::VecScalarOp& v, Instr* in) {
  in->opcode = Opcode::kVecAdds;
  Opcode op;
  if (Status s = VectorOpcode("vec_scalar", "VecScalarOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  bool fill = Info(op).op_class == OpClass::kVecFill;
  if (fill && v.has_src()) {
    return OpError("src", std::string(Info(op).mnemonic) + " has no source tensor");
  }
  // axpy's mixed form: half src into a float dst (ascendc-semantics.md 5.8c).
  bool mixed =
      op == Opcode::kVecAxpy && m.dst.dtype == DType::kFloat32 && v.src().dtype() == ir::DT_FLOAT16;
  if (!fill) {
    if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
    if (!mixed) {
      if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
    }
  }
  DType st;
  if (Status u = Use(v.scalar(), "scalar", &st); !u.ok()) return u;
  if (!IsInteger(st) && !IsFloat(st)) {
    return OpError("scalar", "%" + std::to_string(v.scalar()) + " has dtype " +
                                 std::string(DTypeProtoName(st)) + "; a number is required");
  }
  m.scalar = v.scalar();
  in->src_dtype = Info(op).op_class == OpClass::kVecScalarDst ? m.src0.dtype : st;
  if (v.has_repeat()) {
    if (Status s = DecodeRepeat(op, v.repeat(), 2, &m); !s.ok()) return s;
  }
  return FinishVector(op, m, v.count(), in);
}

}  // namespace aicore::sim
