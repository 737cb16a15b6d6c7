// Decoding of bilinear_interpolation (the layout row kVecBilinear of sim/isa/layouts.def; its
// builder and executor are sim/pipe/bilinear.cc): dst, src0, the uint32 block offsets into src0
// and src1's scalars, all in UB, the mask and the step counts.
#include <utility>

#include "sim/bridge/decode_context.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {

Status DecodeContext::DecodeVecBilinear(const ir::VecBilinearOp& v, Instr* in) {
  in->opcode = Opcode::kVecBilinear;
  MemOpInfo m;
  if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src0_offset(), "src0_offset", true, &m.sel); !s.ok()) return s;
  if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
  if (Status s = SameDType(m.dst, m.src1, "src1"); !s.ok()) return s;
  if (m.sel.dtype != DType::kUInt32) {
    return OpError("src0_offset.dtype", std::string(DTypeName(m.sel.dtype)) +
                                            " is not uint32: the offsets are uint32 byte offsets");
  }
  if (!v.has_mask()) return OpError("mask", "is missing: bilinear_interpolation needs its mask");
  if (Status s = DecodeRepeat(Opcode::kVecBilinear, v.mask(), 1, &m); !s.ok()) return s;
  const std::pair<uint32_t, const char*> fields[] = {{v.h_repeat(), "h_repeat"},
                                                     {v.repeat_mode(), "repeat_mode"},
                                                     {v.dst_blk_stride(), "dst_blk_stride"},
                                                     {v.v_r_offset(), "v_r_offset"},
                                                     {v.v_repeat(), "v_repeat"}};
  for (const auto& [id, field] : fields) {
    if (Status s = UseInteger(id, field); !s.ok()) return s;
  }
  m.h_repeat = v.h_repeat();
  m.repeat_mode = v.repeat_mode();
  m.blk_stride[0] = v.dst_blk_stride();
  m.v_offset = v.v_r_offset();
  m.v_repeat = v.v_repeat();
  return FinishVector(Opcode::kVecBilinear, m, 0, in);
}

}  // namespace aicore::sim
