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
  bool routed = false;
  std::string paths;
  for (const Route& r : RoutesOf(CoreType::kAiv)) {
    routed |= r.src == m.src0.space && r.dst == m.dst.space;
    // "on PIPE_V", not a bare "on V"; the DMA engines read well as MTE2/MTE3.
    std::string pipe = r.pipe == PipeId::kV ? "PIPE_V" : std::string(PipeName(r.pipe));
    paths += std::string(paths.empty() ? "" : ", ") + std::string(MemSpaceName(r.src)) + "->" +
             std::string(MemSpaceName(r.dst)) + " on " + pipe;
  }
  if (!routed) {
    return OpError("dst.space", std::string(MemSpaceName(m.src0.space)) + " -> " +
                                    std::string(MemSpaceName(m.dst.space)) +
                                    " is not a data_copy path (" + paths + ")");
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
  in->dtype = m.dst.dtype;
  in->aux = static_cast<uint32_t>(p_->mem_ops.size());
  p_->mem_ops.push_back(m);
  return Status::Ok();
}

}  // namespace aicore::sim
