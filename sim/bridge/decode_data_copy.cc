// Decoding of data_copy in its count and DataCopyParams forms. Its pipe is not chosen here: each
// core routes a copy by its source and destination memories (sim/soc/core_spec.cc); the decoder
// only checks that the kernel's core type has the path.
#include "sim/bridge/decode_context.h"
#include "sim/soc/core_spec.h"

namespace aicore::sim {

Status DecodeContext::DecodeDataCopy(const ir::DataCopyOp& c, Instr* in) {
  in->opcode = Opcode::kDataCopy;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
  if (m.dst.dtype != m.src0.dtype) {
    return OpError("dst.dtype",
                   std::string(DTypeProtoName(m.dst.dtype)) + " differs from src.dtype " +
                       std::string(DTypeProtoName(m.src0.dtype)) + "; data_copy does not convert");
  }
  // The cube's own moves have their instructions: load_data into L0A/L0B, fixpipe out of L0C.
  bool load = m.dst.space == MemSpace::kL0a || m.dst.space == MemSpace::kL0b;
  if (load || m.src0.space == MemSpace::kL0c) {
    return OpError("dst.space", std::string(MemSpaceName(m.src0.space)) + " -> " +
                                    std::string(MemSpaceName(m.dst.space)) +
                                    " is not a data_copy path: use " +
                                    (load ? "load_data" : "fixpipe"));
  }
  if (Status s = CheckRoute(m.src0.space, m.dst.space, "data_copy", "dst.space"); !s.ok()) {
    return s;
  }
  m.params_form = c.params_form();
  if (!c.params_form()) {
    if (Status u = UseInteger(c.count(), "count"); !u.ok()) return u;
    if (c.block_count() != 0 || c.block_len() != 0 || c.src_stride() != 0 || c.dst_stride() != 0) {
      return OpError("params_form",
                     "false, but block_count/block_len/src_stride/dst_stride "
                     "are set (set params_form for the DataCopyParams form)");
    }
    m.count = c.count();
  } else {
    if (c.count() != 0) {
      return OpError("count",
                     "set in the params form (params_form is true); use block_count "
                     "and block_len");
    }
    if (Status u = UseInteger(c.block_count(), "block_count"); !u.ok()) return u;
    if (Status u = UseInteger(c.block_len(), "block_len"); !u.ok()) return u;
    if (Status u = UseOptionalInteger(c.src_stride(), "src_stride"); !u.ok()) return u;
    if (Status u = UseOptionalInteger(c.dst_stride(), "dst_stride"); !u.ok()) return u;
    m.block_count = c.block_count();
    m.block_len = c.block_len();
    m.src_stride = c.src_stride();
    m.dst_stride = c.dst_stride();
  }
  if (c.pad_form()) {
    if (Status s = DecodePadForm(c, &m, in); !s.ok()) return s;
  } else if (c.is_pad() != 0 || c.left_padding() != 0 || c.right_padding() != 0 ||
             c.padding_value() != 0) {
    return OpError("pad_form",
                   "false, but is_pad/left_padding/right_padding/padding_value are set (they "
                   "belong to data_copy_pad)");
  }
  in->dtype = m.dst.dtype;
  in->aux = static_cast<uint32_t>(p_->mem_ops.size());
  p_->mem_ops.push_back(m);
  return Status::Ok();
}

// data_copy_pad: GM -> UB with optional padding, or UB -> GM of unaligned byte lengths
// (ascendc-semantics.md 5.11). 64-bit types go through the b32 instruction, paddings doubled.
Status DecodeContext::DecodePadForm(const ir::DataCopyOp& c, MemOpInfo* m, Instr* in) {
  in->opcode = Opcode::kDataCopyPad;
  if (!c.params_form()) {
    return OpError("params_form", "false; data_copy_pad has only the params form");
  }
  bool gm_in = m->src0.space == MemSpace::kGm && m->dst.space != MemSpace::kGm;
  bool gm_out = m->dst.space == MemSpace::kGm && m->src0.space != MemSpace::kGm;
  if (!gm_in && !gm_out) {
    return OpError("dst.space", std::string(MemSpaceName(m->src0.space)) + " -> " +
                                    std::string(MemSpaceName(m->dst.space)) +
                                    " is not a data_copy_pad path (GM -> UB or UB -> GM)");
  }
  uint64_t esize = DTypeSize(m->dst.dtype);
  if (esize != 1 && esize != 2 && esize != 4 && esize != 8) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m->dst.dtype)) +
                                    " is not a data_copy_pad element type (1, 2, 4 or 8 bytes)");
  }
  if (gm_out && (c.is_pad() != 0 || c.left_padding() != 0 || c.right_padding() != 0 ||
                 c.padding_value() != 0)) {
    return OpError("is_pad", "padding is set on a UB -> GM data_copy_pad; only GM -> UB pads");
  }
  if (Status u = UseOptionalInteger(c.is_pad(), "is_pad"); !u.ok()) return u;
  if (Status u = UseOptionalInteger(c.left_padding(), "left_padding"); !u.ok()) return u;
  if (Status u = UseOptionalInteger(c.right_padding(), "right_padding"); !u.ok()) return u;
  if (c.padding_value() != 0) {
    DType t;
    if (Status u = Use(c.padding_value(), "padding_value", &t); !u.ok()) return u;
  } else if (c.is_pad() != 0) {
    return OpError("padding_value", "unset, but is_pad is given; set the value it loads");
  }
  m->pad_form = true;
  m->is_pad = c.is_pad();
  m->left_padding = c.left_padding();
  m->right_padding = c.right_padding();
  m->padding_value = c.padding_value();
  return Status::Ok();
}

// set_pad_value, set_atomic_* and get_store_atomic_config: scalar-unit register accesses.
Status DecodeContext::DecodeStoreConfig(const ir::StoreConfigOp& c, Instr* in) {
  in->opcode = Opcode::kStoreConfig;
  if (c.kind() < ir::StoreConfigOp::SET_PAD_VALUE ||
      c.kind() > ir::StoreConfigOp::SET_LOAD_DATA_REPEAT) {
    return OpError("kind", std::to_string(c.kind()) + " is not a StoreConfigOp.Kind value");
  }
  in->kind = static_cast<uint8_t>(c.kind());
  switch (c.kind()) {
    case ir::StoreConfigOp::SET_PAD_VALUE: {
      DType t;
      if (Status u = Use(c.value(), "value", &t); !u.ok()) return u;
      in->a = c.value();
      break;
    }
    case ir::StoreConfigOp::SET_ATOMIC:
      if (Status u = UseInteger(c.atomic_type(), "atomic_type"); !u.ok()) return u;
      if (Status u = UseInteger(c.atomic_op(), "atomic_op"); !u.ok()) return u;
      in->a = c.atomic_type();
      in->b = c.atomic_op();
      break;
    case ir::StoreConfigOp::SET_ATOMIC_TYPE:
      if (Status u = UseInteger(c.atomic_type(), "atomic_type"); !u.ok()) return u;
      in->a = c.atomic_type();
      break;
    case ir::StoreConfigOp::SET_LOAD_DATA_PADDING_VALUE: {
      if (c.value() == 0) return OpError("value", "is missing: the pad value");
      DType t;
      if (Status u = Use(c.value(), "value", &t); !u.ok()) return u;
      in->a = c.value();
      break;
    }
    case ir::StoreConfigOp::SET_LOAD_DATA_REPEAT:
      if (Status u = UseOptionalInteger(c.value(), "value"); !u.ok()) return u;
      if (Status u = UseOptionalInteger(c.repeat_stride(), "repeat_stride"); !u.ok()) return u;
      if (Status u = UseOptionalInteger(c.repeat_mode(), "repeat_mode"); !u.ok()) return u;
      in->a = c.value();
      in->b = c.repeat_stride();
      in->c = c.repeat_mode();
      break;
    case ir::StoreConfigOp::SET_LOAD_DATA_BOUNDARY:
    case ir::StoreConfigOp::CHECK_LOCAL_MEMORY:
    case ir::StoreConfigOp::SET_FIX_PIPE_PRE_QUANT:
      if (Status u = UseInteger(c.value(), "value"); !u.ok()) return u;
      in->a = c.value();
      break;
    case ir::StoreConfigOp::SET_HF32_MODE:
    case ir::StoreConfigOp::SET_HF32_TRANS_MODE:
    case ir::StoreConfigOp::SET_MM_LAYOUT_TRANSFORM: {
      if (c.value() == 0) return OpError("value", "is missing: the register's new setting");
      if (Status u = UseOptionalFlag(c.value(), "value"); !u.ok()) return u;
      in->a = c.value();
      break;
    }
    case ir::StoreConfigOp::SET_DEQ_SCALE: {
      DType t;
      if (Status u = Use(c.value(), "value", &t); !u.ok()) return u;
      in->a = c.value();
      DeqMode mode = DeqMode::kHalfScale;
      if (c.deq_vector()) {
        if (!IsInteger(t)) return OpError("value", "must be the vdeq tensor's UB address");
        mode = DeqMode::kVector;
      } else if (t == DType::kFloat32) {
        if (Status u = UseInteger(c.deq_offset(), "deq_offset"); !u.ok()) return u;
        if (Status u = Use(c.deq_sign_mode(), "deq_sign_mode", &t); !u.ok()) return u;
        in->b = c.deq_offset();
        in->c = c.deq_sign_mode();
        mode = DeqMode::kWord;
      } else if (t != DType::kFloat16) {
        return OpError("value",
                       "must be a float16 scale, a float32 scale with deq_offset and "
                       "deq_sign_mode, or an address with deq_vector");
      }
      in->imm.i = static_cast<int64_t>(mode);
      break;
    }
    default:
      if (Status d = Define(c.result(), DType::kInt16, "result"); !d.ok()) return d;
      if (Status d = Define(c.result2(), DType::kInt16, "result2"); !d.ok()) return d;
      in->result = c.result();
      in->c = c.result2();
      in->dtype = DType::kInt16;
      break;
  }
  return Status::Ok();
}

}  // namespace aicore::sim
