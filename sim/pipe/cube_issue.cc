// The issue stage's builders of the cube instructions (the layout rows kCubeNd2Nz, kCubeLoad2D,
// kCubeMmad and kCubeFixpipe of sim/isa/layouts.def): their parameter fields evaluated and
// checked against the limits of ascendc-semantics.md 1-4, their operands' spans (from
// sim/isa/semantics/cube.h) checked against the memories and resolved, and the evaluated
// arguments left in a slot of the core's cube pool for the executor (sim/pipe/cube_moves.cc,
// sim/pipe/cube_pipe.cc).
//
// Fractal loads and the cube read whole fractals, of which a tail tile fills only some rows or
// columns; the rest never reaches a result (mmad writes m x n, fixpipe reads it). Their source
// ranges are hulls for the checkers: raced as a whole, never reported as uninitialised reads.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <tuple>

#include "sim/core/invariant.h"
#include "sim/isa/semantics/cube.h"
#include "sim/pipe/issue_internal.h"

namespace aicore::sim::issue {
namespace {

constexpr int64_t kMaxMmadExtent = 4095;       // m, n, k (3.1)
constexpr int64_t kMaxLoadRepeats = 255;       // LoadData 2D repeatTimes (hardware-910b.md 5)
constexpr int64_t kMaxFixpipeN = 4095;         // nSize (4.1)
constexpr int64_t kMaxInitConstField = 32767;  // InitConstValueParams on A2 (Ascend C page)
constexpr uint64_t kL0cRowBytes = 16 * 4;      // a row of a 16 x 16 L0C fractal of 32-bit C

const CubeInfo& CubeOf(const Instr& instr, const IssueEnv& env, const MemOpInfo** m) {
  *m = &env.program.mem_ops[instr.aux];
  SIM_CHECK((*m)->cube != 0, "a cube instruction without its parameters reached the issue stage");
  return env.program.cube_ops[(*m)->cube - 1];
}

// The last range added was a hull (see the file comment).
void MarkHull(IssuedInstr* out) {
  if (out->num_ranges > 0) out->ranges[out->num_ranges - 1].hull = true;
}

// A flag field: 0 (absent) is `absent`.
bool Flag(const Evaluator& ev, uint32_t slot, bool absent) {
  return slot == 0 ? absent : ev.Int(slot) != 0;
}

CubeArgs& TakeArgs(const IssueEnv& env, IssuedInstr* out) {
  SIM_CHECK(env.cube_args != nullptr, "a cube instruction issued on a core without a cube pool");
  return env.cube_args->Acquire(&out->payload_slot);
}

// A move whose result lands as an image of dst's span (only the bytes it writes): src (a hull
// when `src_hull`) and dst resolved and checked, its transfers and addresses set.
bool ResolveImageMove(const MemOpInfo& m, uint64_t src_span, uint64_t dst_span, bool src_hull,
                      const Evaluator& ev, const IssueEnv& env, const Site& site, IssuedInstr* out,
                      uint64_t dst_chunk = 0, uint64_t dst_pitch = 0) {
  const Route* route = env.routes.Find(m.src0.space, m.dst.space);
  SIM_CHECK(route != nullptr, "a cube move without a route reached the issue stage");
  uint64_t dst_addr = 0, src_addr = 0;
  if (!ev.Address(m.dst.addr, "dst.addr", &dst_addr)) return false;
  if (!ev.Address(m.src0.addr, "src.addr", &src_addr)) return false;
  uint8_t* src_host = nullptr;
  uint8_t* dst_host = nullptr;
  if (!ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src_host, out)) {
    return false;
  }
  if (src_hull) MarkHull(out);
  if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst_host, out, dst_chunk,
                   dst_pitch)) {
    return false;
  }
  out->transfer = route->kind;
  out->src0 = Transfer{src_host, src_span, src_span, src_span > 0 ? 1u : 0u};
  out->dst = Transfer{dst_host, dst_span, dst_span, dst_span > 0 ? 1u : 0u};
  out->repeat_form = true;
  out->src0_addr = src_addr;
  out->dst_addr = dst_addr;
  out->gm_cache_mode = m.src0.cache_mode;
  return true;
}

// The arithmetic of each FixpipeOp.QuantMode, indexed by its value; `scalar`: the quant word is
// QUANT_PRE (the vector modes read theirs from cbuf_workspace, which the decoder requires).
struct FixpipeModeRow {
  cube::FixpipeQuant quant;
  bool scalar;
};
constexpr FixpipeModeRow kFixpipeModes[] = {
    {cube::FixpipeQuant::kNone, false},     {cube::FixpipeQuant::kF322F16, false},
    {cube::FixpipeQuant::kF322Bf16, false}, {cube::FixpipeQuant::kDeqF16, true},
    {cube::FixpipeQuant::kDeqF16, false},   {cube::FixpipeQuant::kQf322B8, true},
    {cube::FixpipeQuant::kQf322B8, false},  {cube::FixpipeQuant::kReq8, true},
    {cube::FixpipeQuant::kReq8, false},
};

std::string Hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// unit_flag is 0 (off), 2 or 3 (ascendc-semantics.md 3.5, 4.1); 1 has no meaning there.
bool UnitFlagValid(const Evaluator& ev, uint64_t unit) {
  if (unit == 1) {
    return ev.Fail(
        "unit_flag = 1 is not a unit-flag mode: 0 (off), 2 (wait for the L0C ready "
        "bits) or 3 (wait, then flip them) (ascendc-semantics.md 3.5)");
  }
  return true;
}

cube::MmadTypes MmadTypesOf(DType input) {
  switch (input) {
    case DType::kBFloat16:
      return cube::MmadTypes::kBf16F32;
    case DType::kFloat32:
      return cube::MmadTypes::kF32F32;
    case DType::kInt8:
      return cube::MmadTypes::kS8S32;
    default:
      return cube::MmadTypes::kF16F32;
  }
}

}  // namespace

bool BuildNd2Nz(const Instr& instr, const std::vector<ScalarValue>& /*values*/, const Evaluator& ev,
                const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const Nd2NzInfo& f = CubeOf(instr, env, &m).nd2nz;
  cube::Nd2NzArgs a;
  a.esize = static_cast<uint32_t>(DTypeSize(m->dst.dtype));
  uint64_t v[8];
  const std::pair<uint32_t, const char*> fields[] = {
      {f.nd_num, "nd_num"},
      {f.n_value, "n_value"},
      {f.d_value, "d_value"},
      {f.src_nd_matrix_stride, "src_nd_matrix_stride"},
      {f.src_d_value, "src_d_value"},
      {f.dst_nz_c0_stride, "dst_nz_c0_stride"},
      {f.dst_nz_n_stride, "dst_nz_n_stride"},
      {f.dst_nz_matrix_stride, "dst_nz_matrix_stride"}};
  for (int i = 0; i < 8; ++i) {
    if (!ev.InRange(fields[i].first, fields[i].second, kMaxU16, &v[i])) return false;
  }
  a.nd_num = static_cast<uint32_t>(v[0]);
  a.n_value = static_cast<uint32_t>(v[1]);
  a.d_value = static_cast<uint32_t>(v[2]);
  a.src_nd_matrix_stride = static_cast<uint32_t>(v[3]);
  a.src_d_value = static_cast<uint32_t>(v[4]);
  a.dst_nz_c0_stride = static_cast<uint32_t>(v[5]);
  a.dst_nz_n_stride = static_cast<uint32_t>(v[6]);
  a.dst_nz_matrix_stride = static_cast<uint32_t>(v[7]);
  if (a.n_value > 1 && a.src_d_value < a.d_value) {
    return ev.Fail("field src_d_value = " + std::to_string(a.src_d_value) +
                   " is below d_value = " + std::to_string(a.d_value) +
                   ": the rows of the source would overlap (src_d_value is the row pitch)");
  }
  // Only the rows it writes land (cube_moves.cc). One matrix of consecutive rows writes each
  // C0 column's rows as one chunk, every dst_nz_c0_stride blocks: its range says so, so that
  // slices of one tile copied side by side (a Norm Matmul's) are not taken for overlapping.
  bool columns = a.nd_num == 1 && a.dst_nz_n_stride == 1;
  if (!ResolveImageMove(*m, Bytes(cube::Nd2NzSrcElements(a), a.esize), cube::Nd2NzDstBytes(a),
                        false, ev, env, site, out,
                        columns ? uint64_t{a.n_value} * cube::kRowBytes : 0,
                        columns ? uint64_t{a.dst_nz_c0_stride} * cube::kRowBytes : 0)) {
    return false;
  }
  out->bursts = uint64_t{a.nd_num} * a.n_value;
  out->bytes = out->bursts * a.d_value * a.esize;
  TakeArgs(env, out).nd2nz = a;
  return true;
}

bool BuildLoadData2D(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                     const Evaluator& ev, const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const LoadData2DInfo& f = CubeOf(instr, env, &m).load2d;
  cube::LoadData2DArgs a;
  uint64_t start = 0, repeats = 1, stride = 0, gap = 0;
  if (!ev.InRange(f.start_index, "start_index", kMaxU16, &start)) return false;
  if (f.repeat_times != 0 &&
      !ev.InRange(f.repeat_times, "repeat_times", kMaxLoadRepeats, &repeats)) {
    return false;
  }
  if (!ev.InRange(f.src_stride, "src_stride", kMaxU16, &stride)) return false;
  if (!ev.InRange(f.dst_gap, "dst_gap", kMaxU16, &gap)) return false;
  a.start_index = static_cast<uint32_t>(start);
  a.repeat_times = static_cast<uint32_t>(repeats);
  a.src_stride = static_cast<uint32_t>(stride);
  a.dst_gap = static_cast<uint32_t>(gap);
  a.transpose = Flag(ev, f.if_transpose, false);
  if (a.transpose && DTypeSize(m->dst.dtype) != 2) {
    return ev.Fail(std::string("if_transpose is set on ") + std::string(DTypeName(m->dst.dtype)) +
                   " fractals; LoadData 2D transposes 16 x 16 b16 fractals only (b8 and b32 use "
                   "load_data_with_transpose)");
  }
  // dst_gap leaves the fractals between untouched.
  if (!ResolveImageMove(*m, cube::LoadData2DSrcBytes(a), cube::LoadData2DDstBytes(a), true, ev, env,
                        site, out)) {
    return false;
  }
  out->bursts = a.repeat_times;
  out->bytes = uint64_t{a.repeat_times} * cube::kFractalBytes;
  TakeArgs(env, out).load2d = a;
  return true;
}

bool BuildMmad(const Instr& instr, const std::vector<ScalarValue>& /*values*/, const Evaluator& ev,
               const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const MmadInfo& f = CubeOf(instr, env, &m).mmad;
  cube::MmadArgs a;
  a.types = MmadTypesOf(m->src0.dtype);
  uint64_t mv = 0, nv = 0, kv = 0, unit = 0;
  if (!ev.InRange(f.m, "m", kMaxMmadExtent, &mv) || !ev.InRange(f.n, "n", kMaxMmadExtent, &nv) ||
      !ev.InRange(f.k, "k", kMaxMmadExtent, &kv) ||
      !ev.InRange(f.unit_flag, "unit_flag", 3, &unit)) {
    return false;
  }
  if (!UnitFlagValid(ev, unit)) return false;
  a.m = static_cast<uint32_t>(mv);
  a.n = static_cast<uint32_t>(nv);
  a.k = static_cast<uint32_t>(kv);
  // The library passes initVal = cmatrixInitVal && !isBias (3.1); a bias tensor sets
  // cmatrixSource (3.2).
  a.init = Flag(ev, f.cmatrix_init_val, true) && !Flag(ev, f.is_bias, false);
  bool has_bias = m->src2.space != MemSpace::kInvalid;
  a.bias = has_bias || Flag(ev, f.cmatrix_source, false);
  if (a.bias && !has_bias) {
    return ev.Fail(
        "cmatrix_source is set but no bias tensor is given: pass the bias table "
        "tensor (C2) to mmad");
  }
  a.k_direction_align = Flag(ev, f.k_direction_align, false);
  if (env.cube != nullptr) {  // CTRL[46], CTRL[47] as the scalar unit left them
    a.hf32 = env.cube->hf32;
    a.hf32_toward_zero = env.cube->hf32_toward_zero;
  }
  uint64_t c_addr = 0, a_addr = 0, b_addr = 0, bias_addr = 0;
  if (!ev.Address(m->dst.addr, "dst.addr", &c_addr)) return false;
  if (!ev.Address(m->src0.addr, "fm.addr", &a_addr)) return false;
  if (!ev.Address(m->src1.addr, "filter.addr", &b_addr)) return false;
  if (has_bias && !ev.Address(m->src2.addr, "bias.addr", &bias_addr)) return false;
  uint64_t a_span = cube::MmadABytes(a);
  uint64_t b_span = cube::MmadBBytes(a);
  uint64_t bias_span = cube::MmadBiasBytes(a);
  uint64_t c_span = cube::MmadCBytes(a);
  uint8_t* a_host = nullptr;
  uint8_t* b_host = nullptr;
  uint8_t* bias_host = nullptr;
  uint8_t* c_host = nullptr;
  if (!ResolveSide(m->src0, a_addr, a_span, {"fm", false}, env, site, &a_host, out)) return false;
  MarkHull(out);
  if (!ResolveSide(m->src1, b_addr, b_span, {"filter", false}, env, site, &b_host, out)) {
    return false;
  }
  MarkHull(out);
  if (has_bias &&
      !ResolveSide(m->src2, bias_addr, bias_span, {"bias", false}, env, site, &bias_host, out)) {
    return false;
  }
  bool accumulate = !a.init && !a.bias;
  bool interlock =
      (cube::CeilTo(a.m, 16) / 16) * (cube::CeilTo(a.n, 16) / 16) >=
      env.config.cube.interlock_fractals;  // the cube orders them itself (cube.interlock_fractals)
  if (accumulate && c_span > 0 && out->num_ranges < IssuedInstr::kMaxRanges) {
    MemRange old_c{MemSpace::kL0c, c_addr, c_addr + c_span, false, 0, 0};
    old_c.hull = true;  // C_old is read where the result lands
    old_c.pipe_ordered = interlock;
    out->ranges[out->num_ranges++] = old_c;
  }
  if (!ResolveSide(m->dst, c_addr, c_span, {"dst", true}, env, site, &c_host, out, 0, 0,
                   env.config.cube.dst_alignment_bytes)) {
    return false;
  }
  if (c_span > 0) out->ranges[out->num_ranges - 1].pipe_ordered = interlock;
  // The rows [0, m) of each 16-column block of C (3.5's bits are per 512-byte block).
  out->unit = UnitFlagUse{static_cast<uint8_t>(unit),
                          true,
                          c_addr,
                          a.m * kL0cRowBytes,
                          cube::CeilTo(a.m, 16) * kL0cRowBytes,
                          c_span > 0 ? cube::CeilTo(a.n, 16) / 16 : 0};
  out->src0 = Transfer{a_host, a_span, a_span, a_span > 0 ? 1u : 0u};
  out->src1 = Transfer{b_host, b_span, b_span, b_span > 0 ? 1u : 0u};
  out->dst = Transfer{c_host, c_span, c_span, c_span > 0 ? 1u : 0u};
  out->repeat_form = true;  // only the m x n elements land
  out->src0_addr = a_addr;
  out->src1_addr = b_addr;
  out->dst_addr = c_addr;
  out->bytes = c_span;
  CubeArgs& args = TakeArgs(env, out);
  args.mmad = a;
  args.bias = bias_host;
  args.interlock = interlock && accumulate;
  return true;
}

bool BuildFixpipe(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                  const Evaluator& ev, const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const FixpipeInfo& f = CubeOf(instr, env, &m).fixpipe;
  const Route* route = env.routes.Find(m->src0.space, m->dst.space);
  SIM_CHECK(route != nullptr, "a fixpipe without a route reached the issue stage");
  cube::FixpipeArgs a;
  uint64_t n = 0, mv = 0, src_stride = 0, dst_stride = 0, nd_num = 1, unit = 0;
  if (!ev.InRange(f.n_size, "n_size", kMaxFixpipeN, &n) ||
      !ev.InRange(f.m_size, "m_size", kMaxU16, &mv) ||
      !ev.InRange(f.src_stride, "src_stride", kMaxU16, &src_stride) ||
      !ev.InRange(f.dst_stride, "dst_stride", kMaxU32, &dst_stride) ||
      !ev.InRange(f.unit_flag, "unit_flag", 3, &unit)) {
    return false;
  }
  if (f.nd_num != 0 && !ev.InRange(f.nd_num, "nd_num", kMaxU16, &nd_num)) return false;
  if (nd_num != 1) {
    return ev.Fail("nd_num = " + std::to_string(nd_num) +
                   " is not supported by aicore-sim yet (NZ2ND batches come with the Matmul "
                   "library); issue one fixpipe per matrix");
  }
  if (!UnitFlagValid(ev, unit)) return false;
  if (unit != 0 && Flag(ev, f.is_channel_split, false)) {
    return ev.Fail("unit_flag = " + std::to_string(unit) +
                   " cannot be combined with is_channel_split (ascendc-semantics.md 3.5)");
  }
  if (Flag(ev, f.is_channel_split, false)) {
    return ev.Fail(
        "is_channel_split is not supported by aicore-sim yet (f32 channel split, "
        "ascendc-semantics.md 4.3)");
  }
  a.n = static_cast<uint32_t>(n);
  a.m = static_cast<uint32_t>(mv);
  a.src_stride = static_cast<uint32_t>(src_stride);
  a.dst_stride = static_cast<uint32_t>(dst_stride);
  a.nz2nd = !f.nz_layout;
  a.relu = Flag(ev, f.relu_en, false);
  a.integer = m->src0.dtype == DType::kInt32;
  SIM_CHECK(f.quant_pre < std::size(kFixpipeModes), "a fixpipe mode the decoder let through");
  const FixpipeModeRow& mode = kFixpipeModes[f.quant_pre];
  a.quant = mode.quant;
  if (mode.scalar) {
    SIM_CHECK(env.cube != nullptr, "a quantising fixpipe issued on a core without QUANT_PRE");
    a.quant_word = env.cube->quant_pre;  // the register as the fixpipe issues
    if (!cube::QuantScaleIsNormal(a.quant_word)) {
      return ev.Fail("QUANT_PRE = " + Hex(a.quant_word) + " has an infinite, NaN or denormal " +
                     "scale M1 (bits 31..13), which the fixpipe's quant parameters must not be " +
                     "(4.1); pass a normal float's bits as deq_scalar " +
                     "(set_fix_pipe_pre_quant_flag)");
    }
  }
  if (a.m > 0 && a.n > 0 && a.src_stride < a.m) {
    return ev.Fail("field src_stride = " + std::to_string(a.src_stride) +
                   " is below m_size = " + std::to_string(a.m) +
                   ": it is the row count between two 16-column blocks of L0C (normally "
                   "ceil16(m_size))");
  }
  uint64_t es = cube::FixpipeDstElementBytes(a);
  uint64_t chunk = 0, pitch = 0, chunks = 0;
  if (a.m > 0 && a.n > 0) {
    if (a.nz2nd) {
      if (a.dst_stride < a.n) {
        return ev.Fail("field dst_stride = " + std::to_string(a.dst_stride) +
                       " is below n_size = " + std::to_string(a.n) +
                       ": with the row-major config it is the row pitch in elements");
      }
      chunk = a.n * es;
      pitch = a.dst_stride * es;
      chunks = a.m;
    } else {
      if (a.n % 16 != 0) {
        return ev.Fail("field n_size = " + std::to_string(a.n) +
                       " is not a multiple of 16, which an NZ fixpipe needs (4.1)");
      }
      chunk = a.m * 16 * es;
      pitch = a.dst_stride * cube::kRowBytes;
      chunks = a.n / 16;
      if (chunks > 1 && pitch < chunk) {
        return ev.Fail("field dst_stride = " + std::to_string(a.dst_stride) +
                       " puts the NZ column blocks closer than their " + std::to_string(chunk) +
                       " bytes (it is the start-to-start distance in 32-byte units)");
      }
    }
  }
  uint64_t dst_addr = 0, src_addr = 0;
  if (!ev.Address(m->dst.addr, "dst.addr", &dst_addr)) return false;
  if (!ev.Address(m->src0.addr, "src.addr", &src_addr)) return false;
  uint64_t src_span = cube::FixpipeSrcBytes(a);
  uint64_t dst_span = chunks > 0 ? (chunks - 1) * pitch + chunk : 0;
  uint8_t* src_host = nullptr;
  uint8_t* dst_host = nullptr;
  if (!ResolveSide(m->src0, src_addr, src_span, {"src", false}, env, site, &src_host, out)) {
    return false;
  }
  MarkHull(out);
  if (m->src2.space != MemSpace::kInvalid) {
    // The vector modes' words, one per column: read from L1 when the fixpipe starts, as the
    // library's L1 -> FB copy before it on PIPE_FIX would (docs/cube.md, "Fixpipe").
    uint64_t ws_addr = 0;
    uint8_t* ws_host = nullptr;
    if (!ev.Address(m->src2.addr, "cbuf_workspace.addr", &ws_addr)) return false;
    if (!ResolveSide(m->src2, ws_addr, uint64_t{a.n} * 8, {"cbuf_workspace", false}, env, site,
                     &ws_host, out)) {
      return false;
    }
    a.quant_words = ws_host;
  }
  if (!ResolveSide(m->dst, dst_addr, dst_span, {"dst", true}, env, site, &dst_host, out, chunk,
                   pitch)) {
    return false;
  }
  out->transfer = route->kind;
  out->src0 = Transfer{src_host, src_span, src_span, src_span > 0 ? 1u : 0u};
  if (route->kind == TransferKind::kGmWrite) {
    out->dst = Transfer{dst_host, chunk, pitch, chunks};
    // Stores into GM combine with it while an atomic mode is set (ascendc-semantics.md 4.4).
    if (env.store != nullptr) {
      out->atomic_type = env.store->atomic_type;
      out->atomic_op = env.store->atomic_op;
    }
  } else {
    out->dst = Transfer{dst_host, dst_span, dst_span, dst_span > 0 ? 1u : 0u};
    out->repeat_form = true;  // the NZ blocks' gaps keep what L1 holds
  }
  out->src0_addr = src_addr;
  out->dst_addr = dst_addr;
  // The rows [0, m) of each 16-column block it reads, src_stride rows apart.
  out->unit = UnitFlagUse{
      static_cast<uint8_t>(unit), false, src_addr, a.m * kL0cRowBytes, a.src_stride * kL0cRowBytes,
      cube::CeilTo(a.n, 16) / 16};
  out->gm_cache_mode = m->dst.cache_mode;
  out->bursts = chunks;
  out->bytes = chunks * chunk;
  TakeArgs(env, out).fixpipe = a;
  return true;
}

bool BuildInitConst(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev,
                    const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const InitConstInfo& f = CubeOf(instr, env, &m).init;
  cube::InitConstArgs a;
  a.esize = static_cast<uint32_t>(DTypeSize(m->dst.dtype));
  a.block_bytes =
      static_cast<uint32_t>(m->dst.space == MemSpace::kL1 ? kBlockBytes : cube::kFractalBytes);
  uint64_t repeats = 0, blocks = 0, gap = 0;
  if (!ev.InRange(f.repeat_times, "repeat_times", kMaxInitConstField, &repeats) ||
      !ev.InRange(f.block_num, "block_num", kMaxInitConstField, &blocks) ||
      !ev.InRange(f.dst_gap, "dst_gap", kMaxInitConstField, &gap)) {
    return false;
  }
  a.repeat_times = static_cast<uint32_t>(repeats);
  a.block_num = static_cast<uint32_t>(blocks);
  a.dst_gap = static_cast<uint32_t>(gap);
  a.value_bits = f.init_value == 0
                     ? 0
                     : ToElementBits(values[f.init_value], ev.DTypeOf(f.init_value), m->dst.dtype);
  uint64_t dst_addr = 0;
  if (!ev.Address(m->dst.addr, "dst.addr", &dst_addr)) return false;
  uint64_t span = cube::InitConstDstBytes(a);
  uint8_t* host = nullptr;
  if (!ResolveSide(m->dst, dst_addr, span, {"dst", true}, env, site, &host, out)) return false;
  out->dst = Transfer{host, span, span, span > 0 ? 1u : 0u};
  out->repeat_form = true;  // the gaps between repeats keep what they hold
  out->dst_addr = dst_addr;
  out->bursts = a.repeat_times;
  out->bytes = uint64_t{a.repeat_times} * a.block_num * a.block_bytes;
  TakeArgs(env, out).init = a;
  return true;
}

bool BuildLoadTranspose(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                        const Evaluator& ev, const IssueEnv& env, const Site& site,
                        IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const LoadTransposeInfo& f = CubeOf(instr, env, &m).transpose;
  cube::LoadTransposeArgs a;
  a.esize = static_cast<uint32_t>(DTypeSize(m->dst.dtype));
  uint64_t start = 0, repeats = 1, stride = 0, gap = 0, frac_gap = 0;
  if (!ev.InRange(f.start_index, "start_index", kMaxU16, &start)) return false;
  if (f.repeat_times != 0 &&
      !ev.InRange(f.repeat_times, "repeat_times", kMaxLoadRepeats, &repeats)) {
    return false;
  }
  if (!ev.InRange(f.src_stride, "src_stride", kMaxU16, &stride) ||
      !ev.InRange(f.dst_gap, "dst_gap", kMaxU16, &gap) ||
      !ev.InRange(f.dst_frac_gap, "dst_frac_gap", kMaxU16, &frac_gap)) {
    return false;
  }
  a.start_index = static_cast<uint32_t>(start);
  a.repeat_times = static_cast<uint32_t>(repeats);
  a.src_stride = static_cast<uint32_t>(stride);
  a.dst_gap = static_cast<uint32_t>(gap);
  a.dst_frac_gap = static_cast<uint32_t>(frac_gap);
  // The gaps keep what they hold.
  if (!ResolveImageMove(*m, cube::LoadTransposeSrcBytes(a), cube::LoadTransposeDstBytes(a), true,
                        ev, env, site, out)) {
    return false;
  }
  uint64_t fractals = uint64_t{a.repeat_times} * cube::TransposeSquareFractals(a.esize);
  out->bursts = fractals;
  out->bytes = fractals * cube::kFractalBytes;
  TakeArgs(env, out).transpose = a;
  return true;
}

// load_data with LoadData3DParamsV2 / V2Pro (docs/cube.md "LoadData 3D"). The V2 form writes
// FMATRIX and PADDING from its fields first, as the library's LoadData does before img2colv2;
// V2Pro reads them. The repeat and boundary registers are read as the instruction issues.
bool BuildLoadData3D(const Instr& instr, const std::vector<ScalarValue>& values,
                     const Evaluator& ev, const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo* m = nullptr;
  const LoadData3DInfo& f = CubeOf(instr, env, &m).load3d;
  const Route* route = env.routes.Find(m->src0.space, m->dst.space);
  SIM_CHECK(route != nullptr && env.cube != nullptr,
            "a LoadData 3D without a route or cube registers reached the issue stage");
  CubeRegisters& regs = *env.cube;
  cube::LoadData3DArgs a;
  a.esize = static_cast<uint32_t>(DTypeSize(m->dst.dtype));
  a.to_l0b = m->dst.space == MemSpace::kL0b;
  uint64_t c0 = cube::kRowBytes / a.esize;
  // A field's value, `absent` when the IR leaves it out (Ascend C's struct defaults).
  auto field = [&](uint32_t slot, const char* name, int64_t max, uint64_t absent, uint64_t* v) {
    *v = absent;
    return slot == 0 || ev.InRange(slot, name, max, v);
  };
  uint64_t v[12] = {};
  if (!f.pro) {
    uint64_t pads[4] = {};
    for (int i = 0; i < 4; ++i) {
      if (!field(f.pad_list[i], "pad_list", 255, 0, &pads[i])) return false;
    }
    uint64_t h = 0, w = 0;
    if (!field(f.l1_h, "l1_h", 32767, 0, &h) || !field(f.l1_w, "l1_w", 32767, 0, &w)) {
      return false;
    }
    regs.fmatrix = w | h << 16 | pads[0] << 32 | pads[1] << 40 | pads[2] << 48 | pads[3] << 56;
    uint64_t bits = f.pad_value == 0
                        ? 0
                        : ToElementBits(values[f.pad_value], ev.DTypeOf(f.pad_value), m->dst.dtype);
    regs.load_padding = a.esize == 1 ? (bits & 0xff) << 8 | (bits & 0xff) : bits;
    const std::tuple<uint32_t, const char*, int64_t, uint64_t> fields[] = {
        {f.k_extension, "k_extension", 65535, 0},
        {f.m_extension, "m_extension", 65535, 0},
        {f.k_start_pt, "k_start_pt", 65535, 0},
        {f.m_start_pt, "m_start_pt", 32767, 0},
        {f.stride_w, "stride_w", 63, 1},
        {f.stride_h, "stride_h", 63, 1},
        {f.filter_w, "filter_w", 255, 1},
        {f.filter_h, "filter_h", 255, 1},
        {f.dilation_filter_w, "dilation_filter_w", 255, 1},
        {f.dilation_filter_h, "dilation_filter_h", 255, 1}};
    for (int i = 0; i < 10; ++i) {
      const auto& [slot, name, max, absent] = fields[i];
      if (!field(slot, name, max, absent, &v[i])) return false;
    }
  } else {
    // ext_config and filter_config as the LoadData_3D page packs them (16- and 8-bit fields).
    uint64_t ext = f.ext_config == 0 ? 0 : ev.Value(f.ext_config).u;
    uint64_t filter = f.filter_config == 0 ? 0x10101010101u : ev.Value(f.filter_config).u;
    const int ext_shift[] = {0, 16, 32, 48}, filter_shift[] = {0, 8, 16, 24, 32, 40};
    for (int i = 0; i < 4; ++i) v[i] = ext >> ext_shift[i] & 0xffff;
    for (int i = 0; i < 6; ++i) v[4 + i] = filter >> filter_shift[i] & 0xff;
    if (v[3] > 32767 || v[4] > 63 || v[5] > 63) {
      return ev.Fail("ext_config / filter_config = " + Hex(ext) + " / " + Hex(filter) +
                     ": m_start_pt is 0..32767, stride_w and stride_h 0..63");
    }
  }
  // FMATRIX (the left one: f_matrix_ctrl = false) as the V2 form left it or SetFmatrix set it.
  a.l1_w = static_cast<uint32_t>(regs.fmatrix & 0xffff);
  a.l1_h = static_cast<uint32_t>(regs.fmatrix >> 16 & 0xffff);
  a.pad_left = static_cast<uint32_t>(regs.fmatrix >> 32 & 0xff);
  a.pad_right = static_cast<uint32_t>(regs.fmatrix >> 40 & 0xff);
  a.pad_top = static_cast<uint32_t>(regs.fmatrix >> 48 & 0xff);
  a.pad_bottom = static_cast<uint32_t>(regs.fmatrix >> 56 & 0xff);
  a.pad_bits = regs.load_padding;
  uint64_t channels = 0;
  if (!field(f.channel_size, "channel_size", 65535, 0, &channels)) return false;
  a.channels = static_cast<uint32_t>(channels);
  a.k_ext = static_cast<uint32_t>(v[0]);
  a.m_ext = static_cast<uint32_t>(v[1]);
  a.k_start = static_cast<uint32_t>(v[2]);
  a.m_start = static_cast<uint32_t>(v[3]);
  a.stride_w = static_cast<uint32_t>(v[4]);
  a.stride_h = static_cast<uint32_t>(v[5]);
  bool size_w = Flag(ev, f.filter_size_w, false), size_h = Flag(ev, f.filter_size_h, false);
  a.filter_w = static_cast<uint32_t>(v[6] + (size_w ? 256 : 0));
  a.filter_h = static_cast<uint32_t>(v[7] + (size_h ? 256 : 0));
  a.dilation_w = static_cast<uint32_t>(v[8]);
  a.dilation_h = static_cast<uint32_t>(v[9]);
  a.repeat_time = regs.load_repeat_time;
  a.repeat_stride = regs.load_repeat_stride;
  a.repeat_mode = regs.load_repeat_mode;
  a.transpose = !a.to_l0b && Flag(ev, f.en_transpose, false);  // L0B ignores it (transposes)
  if (Flag(ev, f.f_matrix_ctrl, false)) {
    return ev.Fail(
        "f_matrix_ctrl is true: LoadData 3D takes the feature map from the left "
        "matrix's FMATRIX only (Ascend C's LoadData_3D page: only false is supported)");
  }
  if (Flag(ev, f.en_small_k, false)) {
    return ev.Fail(
        "en_small_k is true: the small-k mode is no longer supported by the chip "
        "(Ascend C's LoadData_3D page)");
  }
  // Any of these zero is a NOP (the LoadData_3D page); the registers are written all the same.
  bool nop = a.l1_h == 0 || a.l1_w == 0 || a.channels == 0 || a.k_ext == 0 || a.m_ext == 0 ||
             a.filter_w == 0 || a.filter_h == 0 || a.repeat_time == 0;
  if (!nop) {
    if (a.stride_w == 0 || a.stride_h == 0 || a.dilation_w == 0 || a.dilation_h == 0) {
      return ev.Fail(
          "a stride or dilation is 0: not supported by aicore-sim yet (LoadData 3D "
          "with a zero stride or dilation needs the chip's meaning of it)");
    }
    if (a.transpose && a.esize == 1) {
      return ev.Fail(
          "en_transpose on a b8 load: Ascend 910B's LoadData 3D transposes b16 and "
          "b32 only");
    }
    if (a.channels % c0 != 0) {
      return ev.Fail("channel_size = " + std::to_string(a.channels) +
                     ": not supported by aicore-sim yet (a channel_size that is not a multiple "
                     "of C0 = " +
                     std::to_string(c0) + " needs the L1 layout of such a feature map)");
    }
    if (a.k_start % c0 != 0) {
      return ev.Fail("k_start_pt = " + std::to_string(a.k_start) +
                     " is not a multiple of C0 = " + std::to_string(c0));
    }
    int64_t w_out = cube::Load3DOutW(a), h_out = cube::Load3DOutH(a);
    if (w_out < 1 || h_out < 1) {
      return ev.Fail("the filter window (with dilation) is larger than the padded " +
                     std::to_string(a.l1_h) + " x " + std::to_string(a.l1_w) + " feature map");
    }
    uint64_t cols = cube::Load3DColumns(a);
    uint64_t reach = uint64_t{a.k_start} + a.k_ext +
                     (a.repeat_mode == 1 ? uint64_t{a.repeat_time - 1} * a.repeat_stride * c0 : 0);
    if (reach > cols) {
      return ev.Fail("the K block reaches column " + std::to_string(reach) +
                     " of an im2col matrix " + std::to_string(cols) +
                     " wide (channel_size * filter_h * filter_w)");
    }
    uint64_t rows = static_cast<uint64_t>(w_out * h_out);
    if (a.k_ext % c0 != 0 && uint64_t{a.k_start} + a.k_ext <= cols - c0) {
      return ev.Fail("k_extension = " + std::to_string(a.k_ext) + " is not a multiple of C0 = " +
                     std::to_string(c0) + " and stops before the last fractal column");
    }
    if (a.esize != 4 && a.m_ext % 16 != 0 &&
        uint64_t{a.m_start} + a.m_ext <= (rows - 1) / 16 * 16) {
      return ev.Fail("m_extension = " + std::to_string(a.m_ext) +
                     " is not a multiple of 16 and stops before the last fractal row");
    }
    if (a.repeat_time > 1 && (a.repeat_mode == 0 ? a.m_ext % 16 : a.k_ext % c0) != 0) {
      return ev.Fail(
          "set_load_data_repeat repeats a block with a partial fractal: not supported "
          "by aicore-sim yet (where the chip places the next repeat is unpublished)");
    }
  } else {
    a.repeat_time = 0;
  }
  uint64_t dst_addr = 0, src_addr = 0;
  if (!ev.Address(m->dst.addr, "dst.addr", &dst_addr)) return false;
  if (!ev.Address(m->src0.addr, "src.addr", &src_addr)) return false;
  a.src_offset = src_addr;
  a.boundary = regs.load_boundary;
  uint64_t src_span = nop ? 0 : cube::Load3DSrcBytes(a);
  uint8_t* src_host = nullptr;
  uint8_t* l1 = nullptr;
  if (a.boundary != 0 && src_span > 0 && src_addr >= a.boundary) {
    return ev.Fail("src.addr " + std::to_string(src_addr) + " is past set_load_data_boundary's " +
                   std::to_string(a.boundary) + " bytes (the start must lie inside it)");
  }
  if (a.boundary != 0 && src_addr + src_span > a.boundary) {
    // The reads wrap to L1's start: the map's tail lies at address 0 (SetLoadDataBoundary).
    uint64_t tail = std::min<uint64_t>(a.boundary, src_addr + src_span - a.boundary);
    if (!ResolveSide(m->src0, src_addr, a.boundary - src_addr, {"src", false}, env, site, &src_host,
                     out)) {
      return false;
    }
    MarkHull(out);
    if (!ResolveSide(m->src0, 0, tail, {"src", false}, env, site, &src_host, out)) return false;
    l1 = src_host;
  } else {
    if (!ResolveSide(m->src0, src_addr, src_span, {"src", false}, env, site, &src_host, out)) {
      return false;
    }
    if (src_host != nullptr) l1 = src_host - src_addr;
  }
  MarkHull(out);
  uint64_t fractals = cube::Load3DDstFractals(a);
  uint64_t dst_span = fractals * cube::kFractalBytes;
  uint8_t* dst_host = nullptr;
  if (!ResolveSide(m->dst, dst_addr, dst_span, {"dst", true}, env, site, &dst_host, out)) {
    return false;
  }
  out->transfer = route->kind;
  // The executor reads through L1's start (the wrap); src0.base is that pointer.
  out->src0 = Transfer{l1, src_span, src_span, src_span > 0 ? 1u : 0u};
  out->dst = Transfer{dst_host, dst_span, dst_span, dst_span > 0 ? 1u : 0u};
  out->repeat_form = true;  // only the block's cells are written
  out->src0_addr = src_addr;
  out->dst_addr = dst_addr;
  out->bursts = fractals;
  out->bytes = fractals * cube::kFractalBytes;
  TakeArgs(env, out).load3d = a;
  return true;
}

}  // namespace aicore::sim::issue
