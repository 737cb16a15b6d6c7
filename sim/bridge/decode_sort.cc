// Decoding of the sort and region-proposal ops (asc-api.md 4.12): sort32, mrg_sort/mrg_sort4,
// rp_sort16, proposal_concat/extract and get_mrg_sort_result. Operand values (repeats, lengths,
// valid bits, fields) are runtime scalars checked at issue (sim/pipe/issue.cc).
#include "sim/bridge/decode_context.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {

namespace {

constexpr int kMaxLists = 4;
constexpr uint32_t kMrgSortResults = 4;  // VMS4_SR holds four uint16 counts

}  // namespace

Status DecodeContext::DecodeVecSort32(const ir::VecSort32Op& v, Instr* in) {
  in->opcode = Opcode::kVecSort32;
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
  if (Status s = CheckVectorDType(Opcode::kVecSort32, m.dst.dtype); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
  if (m.src1.dtype != DType::kUInt32) {
    return OpError("src1.dtype", std::string(DTypeProtoName(m.src1.dtype)) +
                                     " is not DT_UINT32: sort32's indices are uint32");
  }
  if (Status u = UseInteger(v.repeat_time(), "repeat_time"); !u.ok()) return u;
  m.repeat_form = true;
  m.repeat_times = v.repeat_time();
  return AddVectorInstr(Opcode::kVecSort32, m.dst.dtype, m, in);
}

Status DecodeContext::DecodeVecMrgSort(const ir::VecMrgSortOp& v, Instr* in) {
  in->opcode = Opcode::kVecMrgSort;
  Opcode op;
  if (Status s = VectorOpcode("vec_mrg_sort", "VecMrgSortOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = CheckVectorDType(op, m.dst.dtype); !s.ok()) return s;
  if (v.src_size() < 2 || v.src_size() > kMaxLists) {
    return OpError("src", "has " + std::to_string(v.src_size()) + " lists; a merge takes 2 to 4");
  }
  if (v.element_lengths_size() != v.src_size()) {
    return OpError("element_lengths", "has " + std::to_string(v.element_lengths_size()) +
                                          " entries for " + std::to_string(v.src_size()) +
                                          " lists");
  }
  TensorOperand* lists[kMaxLists] = {&m.src0, &m.src1, &m.src2, &m.src3};
  for (int i = 0; i < v.src_size(); ++i) {
    std::string name = "src[" + std::to_string(i) + "]";
    if (Status s = DecodeTensor(v.src(i), name, true, lists[i]); !s.ok()) return s;
    if (Status s = SameDType(m.dst, *lists[i], name); !s.ok()) return s;
    if (Status u = UseInteger(v.element_lengths(i), "element_lengths"); !u.ok()) return u;
    m.lengths[i] = v.element_lengths(i);
  }
  if (Status u = UseInteger(v.valid_bit(), "valid_bit"); !u.ok()) return u;
  if (Status u = UseInteger(v.repeat_times(), "repeat_times"); !u.ok()) return u;
  m.valid_bit = v.valid_bit();
  m.repeat_times = v.repeat_times();
  m.exhausted_suspension = v.exhausted_suspension();
  m.repeat_form = true;
  return AddVectorInstr(op, m.dst.dtype, m, in);
}

Status DecodeContext::DecodeVecProposal(const ir::VecProposalOp& v, Instr* in) {
  in->opcode = Opcode::kVecRpSort16;
  Opcode op;
  if (Status s = VectorOpcode("vec_proposal", "VecProposalOp.Kind", v.kind(), &op); !s.ok()) {
    return s;
  }
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
  if (Status s = CheckVectorDType(op, m.dst.dtype); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
  if (Status u = UseInteger(v.repeat_time(), "repeat_time"); !u.ok()) return u;
  if (op != Opcode::kVecRpSort16) {
    if (Status u = UseInteger(v.mode_number(), "mode_number"); !u.ok()) return u;
    m.mode_number = v.mode_number();
  }
  m.repeat_form = true;
  m.repeat_times = v.repeat_time();
  return AddVectorInstr(op, m.dst.dtype, m, in);
}

Status DecodeContext::DecodeMrgSortResult(const ir::MrgSortResultOp& v, Instr* in) {
  in->opcode = Opcode::kMrgSortResult;
  if (v.index() >= kMrgSortResults) {
    return OpError("index", std::to_string(v.index()) + " is not a list of VMS4_SR (0..3)");
  }
  in->kind = static_cast<uint8_t>(v.index());
  in->dtype = DType::kUInt16;
  in->result = v.result();
  return Define(v.result(), DType::kUInt16, "result");
}

}  // namespace aicore::sim
