// Decoding of vector compute ops: the opcode and the element types come from the instruction
// table (sim/isa/instructions.def), so a new row needs no code here.
#include "sim/bridge/decode_context.h"
#include "sim/isa/opcode.h"

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
  if (Status u = UseInteger(count, "count"); !u.ok()) return u;
  m.count = count;
  in->opcode = op;
  in->pipe = PipeId::kV;
  in->dtype = m.dst.dtype;
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
  if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src1, "src1"); !s.ok()) return s;
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
  return FinishVector(op, m, v.count(), in);
}

Status DecodeContext::DecodeVecScalar(const ir::VecScalarOp& v, Instr* in) {
  in->opcode = Opcode::kVecAdds;
  Opcode op;
  if (Status s = VectorOpcode("vec_scalar", "VecScalarOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
  DType st;
  if (Status u = Use(v.scalar(), "scalar", &st); !u.ok()) return u;
  if (!IsInteger(st) && !IsFloat(st)) {
    return OpError("scalar", "%" + std::to_string(v.scalar()) + " has dtype " +
                                 std::string(DTypeProtoName(st)) + "; a number is required");
  }
  m.scalar = v.scalar();
  in->src_dtype = st;
  return FinishVector(op, m, v.count(), in);
}

}  // namespace aicore::sim
