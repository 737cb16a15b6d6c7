// Decoding of rearrangement ops (VecMoveOp: brcb, gather, gatherb, scatter, gather_mask,
// transpose, trans_data_to_5hd) and of the gather_mask count read.
#include "sim/bridge/decode_context.h"
#include "sim/isa/opcode.h"
#include "sim/isa/semantics/movement.h"

namespace aicore::sim {
namespace {

bool IsTransposeType(uint32_t t) {
  return t == 0 || t == kTransposeNd2NdB16 || t == kTransposeNchw2Nhwc || t == kTransposeNhwc2Nchw;
}

}  // namespace

Status DecodeContext::DecodeVecMove(const ir::VecMoveOp& v, Instr* in) {
  in->opcode = Opcode::kVecBrcb;
  Opcode op;
  if (Status s = VectorOpcode("vec_move", "VecMoveOp.Kind", v.kind(), &op); !s.ok()) return s;
  in->opcode = op;
  MemOpInfo m;
  MoveInfo mv;
  auto kind = v.kind() == ir::VecMoveOp::TRANS_DATA_TO_5HD ? MoveKind::kTransDataTo5hd
                                                           : static_cast<MoveKind>(v.kind());
  auto tensor = [&](const ir::TensorRef& t, const char* name, TensorOperand* out) {
    return DecodeTensor(t, name, true, out);
  };
  auto need_dtype = [&](const TensorOperand& t, DType want, const char* name) -> Status {
    if (t.dtype == want) return Status::Ok();
    return OpError(
        std::string(name) + ".dtype",
        std::string(DTypeProtoName(t.dtype)) + " must be " + std::string(DTypeProtoName(want)));
  };
  DType dtype = DType::kInvalid;
  if (kind == MoveKind::kTransDataTo5hd) {
    if (Status s = CheckDType(v.dtype(), "dtype"); !s.ok()) return s;
    dtype = ToDType(v.dtype());
    mv.lists = v.dst_list_size() > 0 || v.src_list_size() > 0;
    if (mv.lists) {
      if (v.dst_list_size() != 16 || v.src_list_size() != 16) {
        return OpError("dst_list", "needs 16 addresses in dst_list and in src_list, got " +
                                       std::to_string(v.dst_list_size()) + " and " +
                                       std::to_string(v.src_list_size()));
      }
      for (int i = 0; i < 16; ++i) {
        if (Status s = UseInteger(v.dst_list(i), "dst_list"); !s.ok()) return s;
        if (Status s = UseInteger(v.src_list(i), "src_list"); !s.ok()) return s;
        mv.dst_list[i] = v.dst_list(i);
        mv.src_list[i] = v.src_list(i);
      }
    } else {
      if (Status s = tensor(v.dst_addrs(), "dst_addrs", &mv.dst_addrs); !s.ok()) return s;
      if (Status s = tensor(v.src_addrs(), "src_addrs", &mv.src_addrs); !s.ok()) return s;
      if (Status s = need_dtype(mv.dst_addrs, DType::kUInt64, "dst_addrs"); !s.ok()) return s;
      if (Status s = need_dtype(mv.src_addrs, DType::kUInt64, "src_addrs"); !s.ok()) return s;
    }
    mv.dst_high = v.dst_high_half();
    mv.src_high = v.src_high_half();
  } else {
    if (Status s = tensor(v.dst(), "dst", &m.dst); !s.ok()) return s;
    if (Status s = tensor(v.src(), "src", &m.src0); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
    dtype = m.dst.dtype;
  }
  if (Status s = CheckVectorDType(op, dtype); !s.ok()) return s;
  bool counted = kind == MoveKind::kGather || kind == MoveKind::kScatter;
  bool offsets = counted || kind == MoveKind::kGatherb;
  if (offsets) {
    if (Status s = tensor(v.offset(), "offset", &mv.offset); !s.ok()) return s;
    if (Status s = need_dtype(mv.offset, DType::kUInt32, "offset"); !s.ok()) return s;
  }
  if (counted) {
    if (Status s = UseInteger(v.base(), "base"); !s.ok()) return s;
    mv.base = v.base();
  }
  if (kind == MoveKind::kGatherMask) {
    mv.reduce_mode = v.reduce_mode();
    if (v.pattern() != 0) {
      if (v.has_offset()) return OpError("pattern", "is set together with the offset tensor");
      if (Status s = UseInteger(v.pattern(), "pattern"); !s.ok()) return s;
      mv.pattern = v.pattern();
    } else {
      if (Status s = tensor(v.offset(), "offset", &mv.offset); !s.ok()) return s;
      DType want = DTypeSize(dtype) == 2 ? DType::kUInt16 : DType::kUInt32;
      if (Status s = need_dtype(mv.offset, want, "offset"); !s.ok()) return s;
    }
  }
  if (kind == MoveKind::kTranspose) {
    if (!IsTransposeType(v.transpose_type())) {
      return OpError("transpose_type",
                     std::to_string(v.transpose_type()) +
                         " is not modelled: TRANSPOSE_ND2ND_B16 (10), TRANSPOSE_NCHW2NHWC (11) "
                         "and TRANSPOSE_NHWC2NCHW (12) are (asc-api.md 4.11)");
    }
    mv.transpose_type = static_cast<uint8_t>(v.transpose_type());
    if (mv.transpose_type != 0) {
      if (Status s = tensor(v.offset(), "offset", &mv.offset); !s.ok()) return s;
      if (Status s = need_dtype(mv.offset, DType::kUInt8, "offset"); !s.ok()) return s;
      const std::pair<uint32_t, const char*> dims[] = {{v.n_size(), "n_size"},
                                                       {v.c_size(), "c_size"},
                                                       {v.h_size(), "h_size"},
                                                       {v.w_size(), "w_size"}};
      for (const auto& [id, field] : dims) {
        if (Status s = UseOptionalInteger(id, field); !s.ok()) return s;
      }
      mv.n = v.n_size(), mv.c = v.c_size(), mv.h = v.h_size(), mv.w = v.w_size();
    }
  }
  bool repeat_only = kind == MoveKind::kBrcb || kind == MoveKind::kGatherb ||
                     kind == MoveKind::kGatherMask || kind == MoveKind::kTransDataTo5hd;
  if (v.has_repeat()) {
    if (kind == MoveKind::kTranspose) return OpError("repeat", "transpose has no repeat");
    if (kind == MoveKind::kTransDataTo5hd || kind == MoveKind::kGatherMask) {
      // Their parameter structs, not the vector repeat form: read the fields directly.
      const ir::VecRepeat& r = v.repeat();
      for (uint32_t id : {r.repeat_times(), r.mask_len()}) {
        if (Status s = UseOptionalInteger(id, "repeat"); !s.ok()) return s;
      }
      m.repeat_form = true;
      m.repeat_times = r.repeat_times();
      m.mask_len = r.mask_len();
      if (r.blk_stride_size() > 2 || r.rep_stride_size() > 2) {
        return OpError("repeat.rep_stride", "at most two strides each");
      }
      for (int i = 0; i < r.blk_stride_size(); ++i) {
        if (Status s = UseOptionalInteger(r.blk_stride(i), "repeat.blk_stride"); !s.ok()) return s;
        m.blk_stride[i] = r.blk_stride(i);
      }
      for (int i = 0; i < r.rep_stride_size(); ++i) {
        if (Status s = UseOptionalInteger(r.rep_stride(i), "repeat.rep_stride"); !s.ok()) return s;
        m.rep_stride[i] = r.rep_stride(i);
      }
    } else if (Status s = DecodeRepeat(op, v.repeat(), 2, &m); !s.ok()) {
      return s;
    }
    if (v.count() != 0) return OpError("count", "is set together with repeat");
  } else if (repeat_only) {
    return OpError("repeat", std::string(Info(op).mnemonic) + " needs its repeat fields");
  } else if (counted) {
    if (Status s = UseInteger(v.count(), "count"); !s.ok()) return s;
    m.count = v.count();
  }
  m.move = static_cast<uint32_t>(p_->move_ops.size()) + 1;
  p_->move_ops.push_back(mv);
  in->kind = static_cast<uint8_t>(kind);
  return AddVectorInstr(op, dtype, m, in);
}

Status DecodeContext::DecodeGatherMaskCount(const ir::GatherMaskCountOp& v, Instr* in) {
  in->opcode = Opcode::kGatherMaskCount;
  in->dtype = DType::kUInt64;
  in->result = v.result();
  return Define(v.result(), DType::kUInt64, "result");
}

}  // namespace aicore::sim
