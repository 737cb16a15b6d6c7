// Decoding of the cube instructions (the layout rows kCubeNd2Nz, kCubeLoad2D, kCubeMmad and
// kCubeFixpipe of sim/isa/layouts.def; builders sim/pipe/cube_issue.cc, executors
// sim/pipe/cube_moves.cc and sim/pipe/cube_pipe.cc): their tensors with the memories and element
// types each takes, their routes on the kernel's cores, and their parameter fields as slots.
#include <string>
#include <utility>

#include "sim/bridge/decode_context.h"
#include "sim/isa/opcode.h"
#include "sim/soc/group_shape.h"

namespace aicore::sim {
namespace {

// The MmadOp element types of ascendc-semantics.md 3.3: fm/filter type -> L0C (and bias) type.
struct MmadTypes {
  DType input;
  DType output;
};
constexpr MmadTypes kMmadTypes[] = {
    {DType::kFloat16, DType::kFloat32},
    {DType::kBFloat16, DType::kFloat32},
    {DType::kFloat32, DType::kFloat32},
    {DType::kInt8, DType::kInt32},
};

// The (L0C, destination) types of each fixpipe quantisation mode (FixpipeParamsV220,
// ascendc-semantics.md 4.1; the library's checks, kernel_operator_fixpipe_v2_impl.h). `vector`:
// the words come one per column from cbuf_workspace (L1); else from QUANT_PRE, or none.
struct FixpipeModes {
  ir::FixpipeOp::QuantMode mode;
  DType from;
  DType to;
  bool vector;
};
using Q = ir::FixpipeOp;
constexpr FixpipeModes kFixpipeModes[] = {
    {Q::NO_QUANT, DType::kFloat32, DType::kFloat32, false},
    {Q::NO_QUANT, DType::kInt32, DType::kInt32, false},
    {Q::F322F16, DType::kFloat32, DType::kFloat16, false},
    {Q::F322BF16, DType::kFloat32, DType::kBFloat16, false},
    {Q::DEQF16, DType::kInt32, DType::kFloat16, false},
    {Q::VDEQF16, DType::kInt32, DType::kFloat16, true},
    {Q::QF322B8_PRE, DType::kFloat32, DType::kInt8, false},
    {Q::QF322B8_PRE, DType::kFloat32, DType::kUInt8, false},
    {Q::VQF322B8_PRE, DType::kFloat32, DType::kInt8, true},
    {Q::VQF322B8_PRE, DType::kFloat32, DType::kUInt8, true},
    {Q::REQ8, DType::kInt32, DType::kInt8, false},
    {Q::REQ8, DType::kInt32, DType::kUInt8, false},
    {Q::VREQ8, DType::kInt32, DType::kInt8, true},
    {Q::VREQ8, DType::kInt32, DType::kUInt8, true},
};

// "DT_INT32 -> DT_INT8 or DT_UINT8": the type pairs a mode converts.
std::string FixpipePairs(ir::FixpipeOp::QuantMode mode) {
  std::string out;
  for (const FixpipeModes& f : kFixpipeModes) {
    if (f.mode != mode) continue;
    out += out.empty() ? "" : " or ";
    out += std::string(DTypeProtoName(f.from)) + " -> " + std::string(DTypeProtoName(f.to));
  }
  return out;
}

}  // namespace

Status DecodeContext::UseSlots(std::initializer_list<SlotField> fields) const {
  for (const SlotField& f : fields) {
    Status s = f.flag ? UseOptionalFlag(f.id, f.name) : UseOptionalInteger(f.id, f.name);
    if (!s.ok()) return s;
    *f.slot = f.id;
  }
  return Status::Ok();
}

void DecodeContext::AddCubeInstr(MemOpInfo& m, const CubeInfo& c, Instr* in) {
  m.cube = static_cast<uint32_t>(p_->cube_ops.size()) + 1;
  p_->cube_ops.push_back(c);
  in->aux = static_cast<uint32_t>(p_->mem_ops.size());
  p_->mem_ops.push_back(m);
}

Status DecodeContext::DecodeNd2NzCopy(const ir::Nd2NzCopyOp& c, Instr* in) {
  in->opcode = Opcode::kNd2NzCopy;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
  if (m.src0.space != MemSpace::kGm || m.dst.space != MemSpace::kL1) {
    return OpError("dst.space", std::string(MemSpaceName(m.src0.space)) + " -> " +
                                    std::string(MemSpaceName(m.dst.space)) +
                                    " is not an ND -> NZ path (GM -> L1 only)");
  }
  if (Status s = CheckRoute(m.src0.space, m.dst.space, "data_copy", "dst.space"); !s.ok()) {
    return s;
  }
  if (m.dst.dtype != m.src0.dtype) {
    return OpError("dst.dtype",
                   std::string(DTypeProtoName(m.dst.dtype)) + " differs from src.dtype " +
                       std::string(DTypeProtoName(m.src0.dtype)) + "; data_copy does not convert");
  }
  uint64_t esize = DTypeSize(m.dst.dtype);
  if (esize != 1 && esize != 2 && esize != 4) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) +
                                    " is not an ND -> NZ element type (1, 2 or 4 bytes)");
  }
  CubeInfo info;
  Nd2NzInfo& f = info.nd2nz;
  if (Status s =
          UseSlots({{c.nd_num(), "nd_num", &f.nd_num},
                    {c.n_value(), "n_value", &f.n_value},
                    {c.d_value(), "d_value", &f.d_value},
                    {c.src_nd_matrix_stride(), "src_nd_matrix_stride", &f.src_nd_matrix_stride},
                    {c.src_d_value(), "src_d_value", &f.src_d_value},
                    {c.dst_nz_c0_stride(), "dst_nz_c0_stride", &f.dst_nz_c0_stride},
                    {c.dst_nz_n_stride(), "dst_nz_n_stride", &f.dst_nz_n_stride},
                    {c.dst_nz_matrix_stride(), "dst_nz_matrix_stride", &f.dst_nz_matrix_stride}});
      !s.ok()) {
    return s;
  }
  in->dtype = m.dst.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

Status DecodeContext::DecodeLoadData2D(const ir::LoadData2DOp& c, Instr* in) {
  in->opcode = Opcode::kLoadData2D;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
  bool to_l0 = m.dst.space == MemSpace::kL0a || m.dst.space == MemSpace::kL0b;
  bool from = m.src0.space == MemSpace::kL1 || m.src0.space == MemSpace::kGm;
  if (!to_l0 || !from) {
    return OpError("dst.space", std::string(MemSpaceName(m.src0.space)) + " -> " +
                                    std::string(MemSpaceName(m.dst.space)) +
                                    " is not a load_data path (L1 or GM -> L0A or L0B)");
  }
  if (Status s = CheckRoute(m.src0.space, m.dst.space, "load_data", "dst.space"); !s.ok()) {
    return s;
  }
  if (DTypeSize(m.dst.dtype) != DTypeSize(m.src0.dtype)) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) + " and src.dtype " +
                                    std::string(DTypeProtoName(m.src0.dtype)) +
                                    " differ in size; load_data moves fractals as they are");
  }
  CubeInfo info;
  LoadData2DInfo& f = info.load2d;
  if (Status s = UseSlots({{c.start_index(), "start_index", &f.start_index},
                           {c.repeat_times(), "repeat_times", &f.repeat_times},
                           {c.src_stride(), "src_stride", &f.src_stride},
                           {c.sid(), "sid", &f.sid},
                           {c.dst_gap(), "dst_gap", &f.dst_gap},
                           {c.addr_mode(), "addr_mode", &f.addr_mode},
                           {c.if_transpose(), "if_transpose", &f.if_transpose, true}});
      !s.ok()) {
    return s;
  }
  in->dtype = m.dst.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

Status DecodeContext::DecodeMmad(const ir::MmadOp& c, Instr* in) {
  in->opcode = Opcode::kMmad;
  in->pipe = PipeId::kM;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.fm(), "fm", false, &m.src0); !s.ok()) return s;
  if (Status s = DecodeTensor(c.filter(), "filter", false, &m.src1); !s.ok()) return s;
  const std::pair<const TensorOperand*, MemSpace> places[] = {
      {&m.dst, MemSpace::kL0c}, {&m.src0, MemSpace::kL0a}, {&m.src1, MemSpace::kL0b}};
  const char* names[] = {"dst", "fm", "filter"};
  for (int i = 0; i < 3; ++i) {
    if (places[i].first->space != places[i].second) {
      return OpError(std::string(names[i]) + ".space",
                     std::string(MemSpaceName(places[i].first->space)) + " is not " +
                         std::string(MemSpaceName(places[i].second)) + ": mmad computes " +
                         "L0C (CO1) from L0A (A2) and L0B (B2)");
    }
  }
  if (!KernelHasMemory(MemSpace::kL0c)) {
    return OpError("dst.space", "mmad runs on a cube core, which a " +
                                    std::string(KernelTypeLabel(p_->kernel_type)) +
                                    " kernel does not have");
  }
  if (m.src0.dtype != m.src1.dtype) {
    return OpError("filter.dtype", std::string(DTypeProtoName(m.src1.dtype)) +
                                       " differs from fm.dtype " +
                                       std::string(DTypeProtoName(m.src0.dtype)));
  }
  const MmadTypes* types = nullptr;
  for (const MmadTypes& t : kMmadTypes) {
    if (t.input == m.src0.dtype) types = &t;
  }
  if (types == nullptr) {
    return OpError("fm.dtype", std::string(DTypeProtoName(m.src0.dtype)) +
                                   " is not an mmad input type (DT_FLOAT16, DT_BFLOAT16, "
                                   "DT_FLOAT32 or DT_INT8)");
  }
  if (m.dst.dtype != types->output) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) + " is not " +
                                    std::string(DTypeProtoName(types->output)) + ": " +
                                    std::string(DTypeProtoName(types->input)) + " inputs give " +
                                    std::string(DTypeProtoName(types->output)) + " in L0C");
  }
  if (c.has_bias() && c.bias().space() != ir::MEM_INVALID) {
    if (Status s = DecodeTensor(c.bias(), "bias", false, &m.src2); !s.ok()) return s;
    if (m.src2.space != MemSpace::kBt) {
      return OpError("bias.space", std::string(MemSpaceName(m.src2.space)) +
                                       " is not BT: the bias row comes from the bias table "
                                       "(C2); to accumulate onto L0C, pass no bias and "
                                       "cmatrix_init_val=False");
    }
    if (m.src2.dtype != types->output) {
      return OpError("bias.dtype", std::string(DTypeProtoName(m.src2.dtype)) + " is not " +
                                       std::string(DTypeProtoName(types->output)) +
                                       ", the type of L0C");
    }
  }
  CubeInfo info;
  MmadInfo& f = info.mmad;
  if (Status s =
          UseSlots({{c.m(), "m", &f.m},
                    {c.n(), "n", &f.n},
                    {c.k(), "k", &f.k},
                    {c.unit_flag(), "unit_flag", &f.unit_flag},
                    {c.is_bias(), "is_bias", &f.is_bias, true},
                    {c.cmatrix_source(), "cmatrix_source", &f.cmatrix_source, true},
                    {c.cmatrix_init_val(), "cmatrix_init_val", &f.cmatrix_init_val, true},
                    {c.k_direction_align(), "k_direction_align", &f.k_direction_align, true}});
      !s.ok()) {
    return s;
  }
  in->dtype = m.src0.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

Status DecodeContext::DecodeFixpipe(const ir::FixpipeOp& c, Instr* in) {
  in->opcode = Opcode::kFixpipe;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
  if (m.src0.space != MemSpace::kL0c) {
    return OpError("src.space", std::string(MemSpaceName(m.src0.space)) +
                                    " is not L0C: fixpipe drains L0C (CO1)");
  }
  if (Status s = CheckRoute(m.src0.space, m.dst.space, "fixpipe", "dst.space"); !s.ok()) {
    return s;
  }
  if (!ir::FixpipeOp::QuantMode_IsValid(c.quant_pre())) {
    return OpError("quant_pre", std::to_string(c.quant_pre()) + " is not a QuantModes value");
  }
  const std::string mode_name = "QuantModes." + ir::FixpipeOp::QuantMode_Name(c.quant_pre());
  const FixpipeModes* mode = nullptr;
  for (const FixpipeModes& f : kFixpipeModes) {
    if (f.mode == c.quant_pre() && f.from == m.src0.dtype && f.to == m.dst.dtype) mode = &f;
  }
  if (m.src0.dtype == DType::kInt32 && m.dst.dtype == DType::kBFloat16) {
    return OpError("dst.dtype",
                   "DT_INT32 -> DT_BFLOAT16: Ascend 910B (C220)'s fixpipe has no int32 -> bf16 "
                   "conversion (4.1); dequantise to DT_FLOAT16 with DEQF16 or VDEQF16");
  }
  if (mode == nullptr) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.src0.dtype)) + " -> " +
                                    std::string(DTypeProtoName(m.dst.dtype)) + " is not what " +
                                    mode_name + " converts (" + FixpipePairs(c.quant_pre()) +
                                    "); pick the mode of the pair");
  }
  if (m.dst.space == MemSpace::kL1 && c.quant_pre() == ir::FixpipeOp::NO_QUANT) {
    return OpError("quant_pre",
                   "NO_QUANT into L1: Ascend 910B (C220) has no f32 -> f32 or "
                   "s32 -> s32 fixpipe into L1; convert (F322F16) on the way");
  }
  if (m.dst.space == MemSpace::kL1 && !c.nz_layout()) {
    return OpError("nz_layout",
                   "false (row-major) into L1: NZ2ND writes GM only; use "
                   "FixpipeConfig.cfg_nz() into L1");
  }
  if (c.nz_layout() && DTypeSize(m.dst.dtype) == 1) {
    return OpError("nz_layout", std::string(DTypeProtoName(m.dst.dtype)) +
                                    " NZ output is not supported by aicore-sim yet: the int8 "
                                    "channel merge (4.3) needs the merged blocks' destination "
                                    "stride, which no reference states; write row-major into GM");
  }
  bool workspace = c.has_cbuf_workspace() && c.cbuf_workspace().space() != ir::MEM_INVALID;
  if (mode->vector && !workspace) {
    return OpError("cbuf_workspace", mode_name +
                                         " reads one quant word per column from the workspace: "
                                         "pass the L1 tensor of n_size uint64 words "
                                         "(fixpipe(dst, src, cbuf_workspace, params))");
  }
  if (!mode->vector && workspace) {
    return OpError("cbuf_workspace",
                   "is given with " + mode_name +
                       ", which takes no per-column words (the library's workspace form runs "
                       "only VDEQF16, VQF322B8_PRE and VREQ8); drop it or pick a vector mode");
  }
  CubeInfo info;
  FixpipeInfo& f = info.fixpipe;
  if (Status s = UseSlots({{c.n_size(), "n_size", &f.n_size},
                           {c.m_size(), "m_size", &f.m_size},
                           {c.src_stride(), "src_stride", &f.src_stride},
                           {c.dst_stride(), "dst_stride", &f.dst_stride},
                           {c.deq_scalar(), "deq_scalar", &f.deq_scalar},
                           {c.nd_num(), "nd_num", &f.nd_num},
                           {c.src_nd_stride(), "src_nd_stride", &f.src_nd_stride},
                           {c.dst_nd_stride(), "dst_nd_stride", &f.dst_nd_stride},
                           {c.unit_flag(), "unit_flag", &f.unit_flag},
                           {c.relu_en(), "relu_en", &f.relu_en, true},
                           {c.is_channel_split(), "is_channel_split", &f.is_channel_split, true}});
      !s.ok()) {
    return s;
  }
  if (workspace) {
    if (Status s = DecodeTensor(c.cbuf_workspace(), "cbuf_workspace", false, &m.src2); !s.ok()) {
      return s;
    }
    if (m.src2.space != MemSpace::kL1) {
      return OpError("cbuf_workspace.space", std::string(MemSpaceName(m.src2.space)) +
                                                 " is not L1: the per-channel quant vector "
                                                 "goes from L1 to the fixpipe buffer");
    }
    if (DTypeSize(m.src2.dtype) != 8) {
      return OpError("cbuf_workspace.dtype", std::string(DTypeProtoName(m.src2.dtype)) +
                                                 " is not DT_UINT64: the workspace holds one "
                                                 "64-bit quant word per column");
    }
  }
  f.quant_pre = static_cast<uint8_t>(c.quant_pre());
  f.nz_layout = c.nz_layout();
  in->dtype = m.dst.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

Status DecodeContext::DecodeInitConstValue(const ir::InitConstValueOp& c, Instr* in) {
  in->opcode = Opcode::kInitConstValue;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  // SET_L1_2D runs on MTE2, SET_L0A/L0B_2D on MTE1 (the CCE pipe list).
  const std::pair<MemSpace, PipeId> pipes[] = {{MemSpace::kL1, PipeId::kMte2},
                                               {MemSpace::kL0a, PipeId::kMte1},
                                               {MemSpace::kL0b, PipeId::kMte1}};
  bool found = false;
  for (const auto& [space, pipe] : pipes) {
    if (space == m.dst.space) {
      in->pipe = pipe;
      found = true;
    }
  }
  if (!found) {
    return OpError("dst.space", std::string(MemSpaceName(m.dst.space)) +
                                    " is not an init_const_value destination (A1/B1 in L1, A2 "
                                    "in L0A, B2 in L0B)");
  }
  if (m.dst.position == ir::POS_C1) {
    return OpError("dst.position", "POS_C1: init_const_value fills A1, B1, A2 or B2 tensors");
  }
  const DType kTypes[] = {DType::kFloat16, DType::kInt16, DType::kUInt16, DType::kBFloat16,
                          DType::kFloat32, DType::kInt32, DType::kUInt32};
  bool typed = false;
  for (DType t : kTypes) typed |= t == m.dst.dtype;
  if (!typed) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) +
                                    " is not an init_const_value type on Ascend 910B (half, "
                                    "int16, uint16, bfloat16, float, int32, uint32)");
  }
  CubeInfo info;
  InitConstInfo& f = info.init;
  if (Status s = UseSlots({{c.repeat_times(), "repeat_times", &f.repeat_times},
                           {c.block_num(), "block_num", &f.block_num},
                           {c.dst_gap(), "dst_gap", &f.dst_gap}});
      !s.ok()) {
    return s;
  }
  if (c.init_value() != 0) {
    DType t;
    if (Status s = Use(c.init_value(), "init_value", &t); !s.ok()) return s;
  }
  f.init_value = c.init_value();
  in->dtype = m.dst.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

Status DecodeContext::DecodeLoadDataTranspose(const ir::LoadDataTransposeOp& c, Instr* in) {
  in->opcode = Opcode::kLoadDataTranspose;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
  bool to_l0 = m.dst.space == MemSpace::kL0a || m.dst.space == MemSpace::kL0b;
  if (!to_l0 || m.src0.space != MemSpace::kL1) {
    return OpError("dst.space", std::string(MemSpaceName(m.src0.space)) + " -> " +
                                    std::string(MemSpaceName(m.dst.space)) +
                                    " is not a load_data_with_transpose path (L1 -> L0A or L0B)");
  }
  if (Status s = CheckRoute(m.src0.space, m.dst.space, "load_data_with_transpose", "dst.space");
      !s.ok()) {
    return s;
  }
  uint64_t esize = DTypeSize(m.dst.dtype);
  if (DTypeSize(m.src0.dtype) != esize || (esize != 1 && esize != 2 && esize != 4)) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) + " from " +
                                    std::string(DTypeProtoName(m.src0.dtype)) +
                                    ": load_data_with_transpose moves b8, b16 or b32 squares of "
                                    "one element size");
  }
  CubeInfo info;
  LoadTransposeInfo& f = info.transpose;
  if (Status s = UseSlots({{c.start_index(), "start_index", &f.start_index},
                           {c.repeat_times(), "repeat_times", &f.repeat_times},
                           {c.src_stride(), "src_stride", &f.src_stride},
                           {c.dst_gap(), "dst_gap", &f.dst_gap},
                           {c.dst_frac_gap(), "dst_frac_gap", &f.dst_frac_gap},
                           {c.addr_mode(), "addr_mode", &f.addr_mode}});
      !s.ok()) {
    return s;
  }
  in->dtype = m.dst.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

// load_data with LoadData3DParamsV2 / V2Pro (docs/cube.md "LoadData 3D"): the types Ascend C's
// LoadData_3D page lists for A2 (L0A: b8, b16, b32; L0B: b16, b32).
Status DecodeContext::DecodeLoadData3D(const ir::LoadData3DOp& c, Instr* in) {
  in->opcode = Opcode::kLoadData3D;
  MemOpInfo m;
  if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
  if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
  bool to_l0 = m.dst.space == MemSpace::kL0a || m.dst.space == MemSpace::kL0b;
  if (!to_l0 || m.src0.space != MemSpace::kL1) {
    return OpError("dst.space", std::string(MemSpaceName(m.src0.space)) + " -> " +
                                    std::string(MemSpaceName(m.dst.space)) +
                                    " is not a LoadData 3D path (L1 -> L0A or L0B)");
  }
  if (Status s = CheckRoute(m.src0.space, m.dst.space, "load_data", "dst.space"); !s.ok()) {
    return s;
  }
  const DType kL0aTypes[] = {DType::kInt8,    DType::kUInt8, DType::kFloat16, DType::kBFloat16,
                             DType::kFloat32, DType::kInt32, DType::kUInt32};
  bool typed = false;
  for (DType t : kL0aTypes) typed |= t == m.dst.dtype;
  if (!typed || m.src0.dtype != m.dst.dtype) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) + " from " +
                                    std::string(DTypeProtoName(m.src0.dtype)) +
                                    ": LoadData 3D moves one type of int8, uint8, half, bfloat16, "
                                    "float, int32 or uint32");
  }
  if (m.dst.space == MemSpace::kL0b && DTypeSize(m.dst.dtype) == 1) {
    return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) +
                                    ": Ascend 910B's LoadData 3D has no b8 path into L0B");
  }
  CubeInfo info;
  LoadData3DInfo& f = info.load3d;
  f.pro = c.pro();
  if (c.pad_list_size() != 0 && c.pad_list_size() != 4) {
    return OpError("pad_list", "has " + std::to_string(c.pad_list_size()) +
                                   " values; it is (left, right, top, bottom)");
  }
  for (int i = 0; i < c.pad_list_size(); ++i) {
    if (Status s = UseOptionalInteger(c.pad_list(i), "pad_list"); !s.ok()) return s;
    f.pad_list[i] = c.pad_list(i);
  }
  const std::pair<uint32_t, const char*> v2_ints[] = {{c.l1_h(), "l1_h"},
                                                      {c.l1_w(), "l1_w"},
                                                      {c.k_extension(), "k_extension"},
                                                      {c.m_extension(), "m_extension"},
                                                      {c.k_start_pt(), "k_start_pt"},
                                                      {c.m_start_pt(), "m_start_pt"},
                                                      {c.stride_w(), "stride_w"},
                                                      {c.stride_h(), "stride_h"},
                                                      {c.filter_w(), "filter_w"},
                                                      {c.filter_h(), "filter_h"},
                                                      {c.dilation_filter_w(), "dilation_filter_w"},
                                                      {c.dilation_filter_h(), "dilation_filter_h"}};
  for (const auto& [id, field] : v2_ints) {
    if (f.pro && id != 0) {
      return OpError(field,
                     "is a LoadData3DParamsV2 field; the V2Pro form packs its window into "
                     "ext_config and filter_config and reads the feature map's from FMATRIX");
    }
    if (Status s = UseOptionalInteger(id, field); !s.ok()) return s;
  }
  if (f.pro && (c.pad_list_size() != 0 || c.pad_value() != 0)) {
    return OpError("pad_list",
                   "and pad_value are LoadData3DParamsV2 fields; the V2Pro form reads "
                   "FMATRIX and PADDING");
  }
  if (!f.pro && (c.ext_config() != 0 || c.filter_config() != 0 || c.en_small_k() != 0)) {
    return OpError("ext_config", "filter_config and en_small_k belong to the V2Pro form (pro)");
  }
  const std::pair<uint32_t, const char*> pro_ints[] = {{c.channel_size(), "channel_size"},
                                                       {c.ext_config(), "ext_config"},
                                                       {c.filter_config(), "filter_config"}};
  for (const auto& [id, field] : pro_ints) {
    if (Status s = UseOptionalInteger(id, field); !s.ok()) return s;
  }
  const std::pair<uint32_t, const char*> flags[] = {{c.en_transpose(), "en_transpose"},
                                                    {c.filter_size_w(), "filter_size_w"},
                                                    {c.filter_size_h(), "filter_size_h"},
                                                    {c.f_matrix_ctrl(), "f_matrix_ctrl"},
                                                    {c.en_small_k(), "en_small_k"}};
  for (const auto& [id, field] : flags) {
    if (Status s = UseOptionalFlag(id, field); !s.ok()) return s;
  }
  if (c.pad_value() != 0) {
    DType t;
    if (Status s = Use(c.pad_value(), "pad_value", &t); !s.ok()) return s;
  }
  f.l1_h = c.l1_h();
  f.l1_w = c.l1_w();
  f.channel_size = c.channel_size();
  f.k_extension = c.k_extension();
  f.m_extension = c.m_extension();
  f.k_start_pt = c.k_start_pt();
  f.m_start_pt = c.m_start_pt();
  f.stride_w = c.stride_w();
  f.stride_h = c.stride_h();
  f.filter_w = c.filter_w();
  f.filter_h = c.filter_h();
  f.dilation_filter_w = c.dilation_filter_w();
  f.dilation_filter_h = c.dilation_filter_h();
  f.en_transpose = c.en_transpose();
  f.pad_value = c.pad_value();
  f.filter_size_w = c.filter_size_w();
  f.filter_size_h = c.filter_size_h();
  f.f_matrix_ctrl = c.f_matrix_ctrl();
  f.en_small_k = c.en_small_k();
  f.ext_config = c.ext_config();
  f.filter_config = c.filter_config();
  in->dtype = m.dst.dtype;
  AddCubeInstr(m, info, in);
  return Status::Ok();
}

}  // namespace aicore::sim
