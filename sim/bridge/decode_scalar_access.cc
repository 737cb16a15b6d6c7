// Decoding of the scalar unit's element accesses (get_value / set_value): one tensor operand in
// any memory the kernel's cores have, an integer element index and, for a store, a numeric value
// the simulator converts to the element type.
#include "sim/bridge/decode_context.h"

namespace aicore::sim {

Status DecodeContext::DecodeScalarAccess(const ir::TensorRef& tensor, const std::string& name,
                                         uint32_t index, Instr* in, TensorOperand* out) {
  if (Status s = DecodeTensor(tensor, name, false, out); !s.ok()) return s;
  if (out->space != MemSpace::kGm) {
    if (Status s = CheckMemoryOnCore(out->space, out->position, name + ".space"); !s.ok()) {
      return s;
    }
  }
  if (Status u = UseInteger(index, "index"); !u.ok()) return u;
  in->dtype = out->dtype;
  in->a = index;
  return Status::Ok();
}

Status DecodeContext::DecodeScalarLoad(const ir::ScalarLoadOp& l, Instr* in) {
  in->opcode = Opcode::kScalarLoad;
  MemOpInfo m;
  if (Status s = DecodeScalarAccess(l.src(), "src", l.index(), in, &m.src0); !s.ok()) return s;
  in->result = l.result();
  in->aux = static_cast<uint32_t>(p_->mem_ops.size());
  p_->mem_ops.push_back(m);
  return Define(l.result(), in->dtype, "result");
}

Status DecodeContext::DecodeScalarStore(const ir::ScalarStoreOp& st, Instr* in) {
  in->opcode = Opcode::kScalarStore;
  MemOpInfo m;
  if (Status s = DecodeScalarAccess(st.dst(), "dst", st.index(), in, &m.dst); !s.ok()) return s;
  DType value;
  if (Status u = Use(st.value(), "value", &value); !u.ok()) return u;
  in->b = st.value();
  in->src_dtype = value;
  in->aux = static_cast<uint32_t>(p_->mem_ops.size());
  p_->mem_ops.push_back(m);
  return Status::Ok();
}

}  // namespace aicore::sim
