// Operand evaluation and checking for issued instructions (see issue.h).
#include "sim/pipe/issue.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "sim/check/bounds.h"
#include "sim/core/invariant.h"
#include "sim/isa/semantics/deq.h"
#include "sim/pipe/issue_internal.h"
#include "sim/pipe/layout_functions.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim::issue {

// Resolves one side of a copy or vector operand to host memory after checking it.
bool ResolveSide(const TensorOperand& t, uint64_t address, uint64_t span, AccessRole role,
                 const IssueEnv& env, const Site& site, uint8_t** host, IssuedInstr* out,
                 uint64_t chunk, uint64_t pitch, uint64_t alignment) {
  *host = nullptr;
  if (span == 0) return true;
  if (out->num_ranges < IssuedInstr::kMaxRanges) {
    bool strided = chunk != 0 && pitch > chunk;
    out->ranges[out->num_ranges++] = MemRange{
        t.space, address, address + span, role.write, strided ? chunk : 0, strided ? pitch : 0};
  }
  if (t.space != MemSpace::kGm) {
    LocalMemory* mem = env.memories.Find(t.space);
    if (mem == nullptr) {
      // A mixed kernel's cores run one program: which core runs an instruction is decided at
      // run time, by the branch it sits in.
      env.diags.Error(env.diags.Make(
          Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError, site,
          env.diags.Prefix(site) + ": its " + role.operand + " is in " +
              std::string(MemSpaceName(t.space)) +
              ", which this core does not have (a vector core has UB; a cube core has L1, L0A, "
              "L0B, L0C, BT and FB). Fix: run it on the other core type, under "
              "asc.ascend_is_aic() or asc.ascend_is_aiv()."));
      return false;
    }
    if (!CheckLocalAccess(*mem, address, span, alignment != 0 ? alignment : mem->alignment(), role,
                          site, env.diags)) {
      return false;
    }
    *host = mem->data() + address;
    return true;
  }
  *host = CheckGmAccess(env.gm, address, span, DTypeSize(t.dtype), role, site, env.diags);
  return *host != nullptr;
}

// The CMPMASK register as a 16-byte range of its own space: its PIPE_V writers and readers are
// ordered like memory (the library puts a PIPE_V barrier between loading it and vsel).
void AddCmpMaskRange(bool write, IssuedInstr* out) {
  if (out->num_ranges < IssuedInstr::kMaxRanges) {
    out->ranges[out->num_ranges++] = MemRange{MemSpace::kCmpMask, 0, kCmpMaskBytes, write, 0, 0};
  }
}

// count * size without overflow: anything absurd saturates and then fails the bounds check.
uint64_t Bytes(uint64_t count, uint64_t element_bytes) {
  if (count > (std::numeric_limits<uint64_t>::max() / 2) / element_bytes) {
    return std::numeric_limits<uint64_t>::max() / 2;
  }
  return count * element_bytes;
}

// is_set_mask=True: the instruction loads its own mask into the register, in the current mode;
// without one (is_set_mask=False) the register stays as set_vector_mask left it.
bool LoadOwnMask(const MemOpInfo& m, const std::vector<ScalarValue>& values, const Evaluator& ev,
                 uint32_t esize, VectorMask* reg) {
  if (m.mask_len != 0) {
    int64_t len = ev.Int(m.mask_len);
    if (len < 0) return ev.Fail("field mask = " + std::to_string(len) + " is negative");
    bool counter = reg->counter;
    *reg = MaskForLength(static_cast<uint64_t>(len), esize, counter);
    reg->counter = counter;
  } else if (m.mask_hi != 0) {
    reg->hi = values[m.mask_hi].u;
    reg->lo = values[m.mask_lo].u;
  }
  return true;
}

// A range the race checker sees without the alignment and capacity checks of ResolveSide:
// data-dependent addresses are checked when the instruction runs.
void AddRange(IssuedInstr* out, uint64_t lo, uint64_t hi, bool write, bool hull, uint64_t chunk,
              uint64_t pitch) {
  if (hi <= lo || out->num_ranges >= IssuedInstr::kMaxRanges) return;
  bool strided = chunk != 0 && pitch > chunk;
  MemRange r{MemSpace::kUb, lo, hi, write, strided ? chunk : 0, strided ? pitch : 0};
  r.hull = hull;
  out->ranges[out->num_ranges++] = r;
}

// [lo, hi) checked against UB (alignment of lo included) and added for the race checker.
bool UbRange(const TensorOperand& t, uint64_t lo, uint64_t hi, AccessRole role, bool hull,
             const IssueEnv& env, const Site& site, IssuedInstr* out, uint64_t chunk,
             uint64_t pitch) {
  if (hi <= lo) return true;
  uint8_t* host = nullptr;
  if (!ResolveSide(t, lo, hi - lo, role, env, site, &host, out, chunk, pitch)) return false;
  out->ranges[out->num_ranges - 1].hull = hull;
  return true;
}

// set_cmp_mask reads 16 bytes of UB into CMPMASK, get_cmp_mask writes them back.
bool BuildCmpMaskMove(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                      const Evaluator& ev, const IssueEnv& env, const Site& site,
                      IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  bool set = instr.opcode == Opcode::kVecSetCmpMask;
  uint64_t addr = 0;
  if (!ev.Address(m.src0.addr, "tensor.addr", &addr)) return false;
  if (!set) AddCmpMaskRange(false, out);
  uint8_t* host = nullptr;
  if (!ResolveSide(m.src0, addr, kCmpMaskBytes, {"tensor", !set}, env, site, &host, out)) {
    return false;
  }
  if (set) AddCmpMaskRange(true, out);
  Transfer t{host, kCmpMaskBytes, kCmpMaskBytes, 1};
  if (set) {
    out->src0 = t;
    out->src0_addr = addr;
  } else {
    out->dst = t;
    out->dst_addr = addr;
  }
  out->count = out->bytes = kCmpMaskBytes;
  out->bursts = 1;
  return true;
}

namespace {

// data_copy_pad's chunks (ascendc-semantics.md 5.11): block_len bytes on the GM side, GM
// strides in bytes, UB strides in 32-byte blocks. GM -> UB pads each block to 32 bytes with
// left/right padding elements and loads the pad register when is_pad is set.
bool PadGeometry(const MemOpInfo& m, bool gm_read, uint64_t esize, const Evaluator& ev,
                 const IssueEnv& env, uint64_t* chunks, uint64_t* src_chunk, uint64_t* dst_chunk,
                 uint64_t* src_pitch, uint64_t* dst_pitch, PadLayout* pad) {
  uint64_t bc = 0, bl = 0, ss = 0, ds = 0, left = 0, right = 0;
  int64_t max_pad = static_cast<int64_t>(kBlockBytes / esize);
  if (!ev.InRange(m.block_count, "block_count", kMaxBlockCount, &bc) ||
      !ev.InRange(m.block_len, "block_len", kMaxPadBlockLen, &bl) ||
      !ev.InRange(m.src_stride, "src_stride", kMaxU32, &ss) ||
      !ev.InRange(m.dst_stride, "dst_stride", kMaxU32, &ds) ||
      !ev.InRange(m.left_padding, "left_padding", max_pad, &left) ||
      !ev.InRange(m.right_padding, "right_padding", max_pad, &right)) {
    return false;
  }
  if (bl % esize != 0) {
    return ev.Fail("field block_len = " + std::to_string(bl) + " is not a multiple of the " +
                   std::to_string(esize) + "-byte element");
  }
  auto ceil_block = [](uint64_t b) { return (b + kBlockBytes - 1) / kBlockBytes * kBlockBytes; };
  *chunks = bl > 0 ? bc : 0;
  if (gm_read) {
    StoreRegisters none;
    StoreRegisters& reg = env.store != nullptr ? *env.store : none;
    // is_pad loads the register first, so the value persists for later copies.
    if (ev.Int(m.is_pad) != 0) {
      reg.pad_value = ev.Value(m.padding_value);
      reg.pad_dtype = ev.DTypeOf(m.padding_value);
    }
    pad->active = true;
    pad->left = static_cast<uint32_t>(left * esize);
    pad->right = static_cast<uint32_t>(right * esize);
    // A 64-bit type runs as the b32 instruction with doubled paddings: its pads and dummies are
    // 4-byte elements, the pad value's low 32 bits (5.11).
    bool b64 = esize == 8;
    pad->esize = static_cast<uint32_t>(b64 ? 4 : esize);
    pad->fill_bits = reg.pad_dtype == DType::kInvalid
                         ? 0
                         : ToElementBits(reg.pad_value, reg.pad_dtype, m.dst.dtype);
    if (b64) pad->fill_bits &= 0xffffffffu;
    *src_chunk = bl;
    *dst_chunk = ceil_block(pad->left + bl + pad->right);
    *src_pitch = bl + ss;
    *dst_pitch = *dst_chunk + ds * kBlockBytes;
  } else {
    pad->active = true;
    pad->esize = static_cast<uint32_t>(esize);
    *src_chunk = ceil_block(bl);
    *dst_chunk = bl;
    *src_pitch = *src_chunk + ss * kBlockBytes;
    *dst_pitch = bl + ds;
  }
  return true;
}

}  // namespace

namespace {

// A UB -> GM data_copy_pad reads whole 32-byte blocks but writes only block_len bytes of each:
// the rest of its last block is read (a race if another pipe writes it meanwhile) but its values
// reach no output, so it is no uninitialised read. Splits the source range `index` into the
// `data` bytes of each chunk and the padding after them (MemRange::hull).
void SplitPadReadout(int index, uint64_t data, IssuedInstr* out) {
  if (index >= out->num_ranges || out->num_ranges >= IssuedInstr::kMaxRanges) return;
  MemRange& src = out->ranges[index];
  const uint64_t chunk = src.chunk != 0 ? src.chunk : src.hi - src.lo;
  if (data == 0 || data >= chunk) return;
  const uint64_t pitch = src.chunk != 0 ? src.pitch : chunk;
  MemRange padding = src;
  padding.lo = src.lo + data;
  padding.chunk = chunk - data;
  padding.pitch = pitch;
  padding.hull = true;
  src.chunk = data;
  src.pitch = pitch;
  src.hi -= chunk - data;
  out->ranges[out->num_ranges++] = padding;
}

}  // namespace

bool BuildDataCopy(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                   const Evaluator& ev, const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  const Route* route = env.routes.Find(m.src0.space, m.dst.space);
  SIM_CHECK(route != nullptr, "data_copy without a route on this core reached the issue stage");
  out->transfer = route->kind;
  uint64_t esize = DTypeSize(m.dst.dtype);
  uint64_t dst_addr = 0, src_addr = 0;
  if (!ev.Address(m.dst.addr, "dst.addr", &dst_addr)) return false;
  if (!ev.Address(m.src0.addr, "src.addr", &src_addr)) return false;
  uint64_t chunk = 0, chunks = 0, src_pitch = 0, dst_pitch = 0;
  // data_copy_pad: the two sides' chunks differ (block_len bytes on GM, padded blocks in UB).
  uint64_t src_chunk = 0, dst_chunk = 0;
  if (m.pad_form) {
    if (!PadGeometry(m, route->kind == TransferKind::kGmRead, esize, ev, env, &chunks, &src_chunk,
                     &dst_chunk, &src_pitch, &dst_pitch, &out->pad)) {
      return false;
    }
  } else if (!m.params_form) {
    int64_t count = ev.Int(m.count);
    if (count < 0) return ev.Fail("field count = " + std::to_string(count) + " is negative");
    // Only whole 32-byte blocks move; a partial trailing block is dropped (asc-api.md 4.2).
    chunk = Bytes(static_cast<uint64_t>(count), esize) / kBlockBytes * kBlockBytes;
    chunks = chunk > 0 ? 1 : 0;
    src_pitch = dst_pitch = chunk;
  } else {
    uint64_t bc = 0, bl = 0, ss = 0, ds = 0;
    if (!ev.InRange(m.block_count, "block_count", kMaxBlockCount, &bc) ||
        !ev.InRange(m.block_len, "block_len", kMaxU16, &bl) ||
        !ev.InRange(m.src_stride, "src_stride", kMaxU16, &ss) ||
        !ev.InRange(m.dst_stride, "dst_stride", kMaxU16, &ds)) {
      return false;
    }
    // Into the bias table blockLen counts 64-byte units on A2 (ascendc-semantics.md 2.4); the
    // gaps stay 32-byte units (dstGap's unit there is unconfirmed: the model's choice).
    uint64_t unit = m.dst.space == MemSpace::kBt ? kBiasTableBlockBytes : kBlockBytes;
    chunk = bl * unit;
    chunks = chunk > 0 ? bc : 0;
    src_pitch = chunk + ss * kBlockBytes;
    dst_pitch = chunk + ds * kBlockBytes;
  }
  if (!m.pad_form) src_chunk = dst_chunk = chunk;
  uint64_t src_span = chunks > 0 ? (chunks - 1) * src_pitch + src_chunk : 0;
  uint64_t dst_span = chunks > 0 ? (chunks - 1) * dst_pitch + dst_chunk : 0;
  uint8_t* src_host = nullptr;
  uint8_t* dst_host = nullptr;
  const int src_range = out->num_ranges;
  if (!ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src_host, out, src_chunk,
                   src_pitch)) {
    return false;
  }
  if (m.pad_form && route->kind == TransferKind::kGmWrite) {
    SplitPadReadout(src_range, dst_chunk, out);
  }
  if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst_host, out, dst_chunk,
                   dst_pitch)) {
    return false;
  }
  out->src0 = Transfer{src_host, src_chunk, src_pitch, chunks};
  out->dst = Transfer{dst_host, dst_chunk, dst_pitch, chunks};
  // Stores into GM combine with it while an atomic mode is set (ascendc-semantics.md 5.12).
  if (route->kind == TransferKind::kGmWrite && env.store != nullptr) {
    out->atomic_type = env.store->atomic_type;
    out->atomic_op = env.store->atomic_op;
  }
  out->src0_addr = src_addr;
  out->dst_addr = dst_addr;
  out->gm_cache_mode = m.src0.space == MemSpace::kGm ? m.src0.cache_mode : m.dst.cache_mode;
  // GM-side bytes: what the engine streams (a pad copy's UB padding is not GM traffic).
  out->bytes =
      (m.pad_form ? (route->kind == TransferKind::kGmRead ? src_chunk : dst_chunk) : chunk) *
      chunks;
  out->bursts = chunks;
  return true;
}

namespace {

// The DEQSCALE operand of the dequantising rows (cast_deq, add_deq_relu, cast int32 -> half):
// the register's word, or for cast_deq after set_deq_scale's vector form the 16 words at its UB
// address, read when the instruction runs.
bool ResolveDeq(const Instr& instr, const MemOpInfo& m, const IssueEnv& env, const Site& site,
                IssuedInstr* out) {
  bool cast_deq = instr.opcode == Opcode::kVecCastDeq;
  bool deq = cast_deq || instr.opcode == Opcode::kVecAddDeqRelu ||
             (instr.opcode == Opcode::kVecCast && m.src0.dtype == DType::kInt32 &&
              instr.dtype == DType::kFloat16);
  if (!deq || env.store == nullptr) return true;
  out->scalar_bits = env.store->deq_word;
  if (env.store->deq_mode == DeqMode::kUnset && env.warn) {
    env.diags.Warn(
        env.diags.Make(Diagnostic::Kind::kUninitializedRead, Diagnostic::Severity::kWarning, site,
                       env.diags.Prefix(site) +
                           ": reads DEQSCALE, which no set_deq_scale wrote in this "
                           "launch: it holds 0, so the results are 0. Fix: call "
                           "set_deq_scale before it."),
        site.instr);
  }
  if (!cast_deq || env.store->deq_mode != DeqMode::kVector) return true;
  constexpr uint64_t kBytes = kDeqVectorWords * sizeof(uint64_t);
  TensorOperand words{MemSpace::kUb, 0, DType::kUInt64};
  uint8_t* host = nullptr;
  if (!ResolveSide(words, env.store->deq_word, kBytes, {"vdeq (set_deq_scale)", false}, env, site,
                   &host, out)) {
    return false;
  }
  out->deq = Transfer{host, kBytes, kBytes, 1};
  return true;
}

// The mask/repeat form: lanes from the mask (its own, or the register's), iterations and strides
// (asc-api.md 4.1). Each operand's span runs from its base to the last block an active lane
// touches; a copy of the strides goes to the race checker when blocks are contiguous.
bool BuildVectorRepeat(const Instr& instr, const std::vector<ScalarValue>& values,
                       const Evaluator& ev, const IssueEnv& env, const Site& site,
                       IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  OpClass cls = Info(instr.opcode).op_class;
  SIM_CHECK(env.vector_mask != nullptr, "a vector instruction issued without a mask register");
  VectorMask& reg = *env.vector_mask;
  VecGeometry& g = out->geo;
  g.esize = static_cast<uint32_t>(DTypeSize(instr.dtype));
  g.dst_per_repeat = cls == OpClass::kVecReduce;
  if (g.dst_per_repeat) {
    ReduceLayout layout = ReduceLayoutOf(instr.opcode, instr.kind, g.lanes_per_repeat(), g.esize);
    g.dst_group = layout.group;
    g.dst_width = layout.width;
  }
  if (cls == OpClass::kVecCast || cls == OpClass::kVecBinCast ||
      (cls == OpClass::kVecScalarDst && m.src0.dtype != m.dst.dtype)) {
    // Iterations hold 256 bytes of the wider type; each operand packs its own elements.
    g.size[0] = g.esize;
    g.size[1] = g.size[2] = static_cast<uint32_t>(DTypeSize(m.src0.dtype));
    g.esize = std::max(g.size[0], g.size[1]);
  }
  // cast_deq writes the high half of each block (halfBlock, which pyasc leaves at true).
  if (instr.opcode == Opcode::kVecCastDeq) g.dst_half_block = 2;
  uint64_t repeat_times = 1;
  if (m.repeat_times != 0 &&
      !ev.InRange(m.repeat_times, "repeat_times", kMaxRepeatTimes, &repeat_times)) {
    return false;
  }
  bool compare_cls = cls == OpClass::kVecCompare;
  bool to_reg = m.to_cmp_mask;            // compare's register form: one iteration, masked
  bool compare = compare_cls && !to_reg;  // compare to UB: the mask is ignored
  bool select = cls == OpClass::kVecSelect;
  constexpr uint8_t kSelCmpMask = 0;  // SelMode VSEL_CMPMASK_SPR: the bits are CMPMASK's
  bool sel_reg = select && instr.kind == kSelCmpMask;
  // A count-form select (or cast_deq) runs as one counter-mode instruction over `count` lanes,
  // and leaves normal mode with every lane on, as the library's does (ascendc-semantics.md 5.7).
  if ((cls == OpClass::kVecSelect || instr.opcode == Opcode::kVecCastDeq) && !m.repeat_form) {
    int64_t count = ev.Int(m.count);
    if (count < 0) return ev.Fail("field count = " + std::to_string(count) + " is negative");
    reg = VectorMask{};
    reg.counter = true;
    reg.hi = 0;
    reg.lo = static_cast<uint64_t>(count);
  }
  // is_set_mask=True: the instruction loads its mask into the register, in the current mode.
  if (compare) {
    // Compare to UB ignores the mask (ascendc-semantics.md 5.6): every lane of its iterations,
    // or in the count form its first `count` lanes.
    g.dst_bits = true;
    g.counter = !m.repeat_form;
    g.mask_hi = g.mask_lo = ~uint64_t{0};
    if (g.counter) {
      int64_t count = ev.Int(m.count);
      if (count < 0) return ev.Fail("field count = " + std::to_string(count) + " is negative");
      g.count = static_cast<uint64_t>(count);
    }
  } else if (!LoadOwnMask(m, values, ev, g.esize, &reg)) {
    return false;
  }
  if (to_reg) g.dst_bits = true;
  if (!compare) {
    g.counter = reg.counter;
    g.mask_hi = reg.hi;
    g.mask_lo = reg.lo;
    g.count = reg.lo;
  }
  // Copy's count is per iteration, and repeat_times still applies (asc-api.md 4.1). An
  // iteration of more lanes than one repeat holds runs on over its blocks at their stride, as
  // CANN's softmax broadcasts rely on (docs/adv.md, "softmax").
  if (cls == OpClass::kVecCopy && g.counter) {
    if (g.count > g.lanes_per_repeat()) {
      g.wide_lanes = g.count;
    } else {
      VectorMask lanes = MaskForLength(g.count, g.esize, false);
      g.mask_hi = lanes.hi;
      g.mask_lo = lanes.lo;
    }
    g.counter = false;
  }
  g.repeats =
      g.counter ? (g.count + g.lanes_per_repeat() - 1) / g.lanes_per_repeat() : repeat_times;
  const char* blk_names[3] = {"dst_blk_stride", "src0_blk_stride", "src1_blk_stride"};
  const char* rep_names[3] = {"dst_rep_stride", "src0_rep_stride", "src1_rep_stride"};
  bool one_source =
      (compare_cls || select) && (m.scalar != 0 || (m.from_cmp_mask && instr.kind == 1));
  int sources = one_source ? 1 : VectorSources(cls);
  if (sources != 2) blk_names[1] = "src_blk_stride", rep_names[1] = "src_rep_stride";
  int operands = 1 + sources;
  for (int k = 0; k < operands; ++k) {
    if (m.blk_stride[k] != 0 && !ev.InRange(m.blk_stride[k], blk_names[k], kMaxU16, &g.blk[k])) {
      return false;
    }
    if (m.rep_stride[k] != 0 && !ev.InRange(m.rep_stride[k], rep_names[k], kMaxU16, &g.rep[k])) {
      return false;
    }
  }
  const TensorOperand* tensors[3] = {&m.dst, &m.src0, &m.src1};
  const char* names[3] = {"dst", sources == 2 ? "src0" : "src", "src1"};
  uint64_t addrs[3] = {0, 0, 0};
  uint8_t* hosts[3] = {nullptr, nullptr, nullptr};
  uint64_t spans[3] = {to_reg ? 0 : g.Span(0), operands > 1 ? g.Span(1) : 0,
                       operands > 2 ? g.Span(2) : 0};
  if (!ResolveDeq(instr, m, env, site, out)) return false;
  if (sel_reg || m.from_cmp_mask) AddCmpMaskRange(false, out);
  out->from_cmp_mask = m.from_cmp_mask;
  constexpr uint8_t kSelTensorTensor = 2;
  if (select && m.from_cmp_mask && instr.kind == kSelTensorTensor) {
    // The bits are at the UB address CMPMASK holds, known when the instruction runs: the race
    // checker sees a read of all of UB (never reported as uninitialised); the pipe checks the
    // address against UB.
    LocalMemory* ub = env.memories.Find(MemSpace::kUb);
    SIM_CHECK(ub != nullptr, "a vector instruction on a core without UB passed the decoder");
    AddRange(out, 0, ub->capacity(), false, true);
    out->move_ub = ub->data();
    out->move_ub_bytes = ub->capacity();
  } else if (select && !sel_reg) {
    // Iteration r reads bits r * lanes .. of the selection mask.
    uint64_t sel_addr = 0;
    if (!ev.Address(m.sel.addr, "sel_mask.addr", &sel_addr)) return false;
    uint64_t bits = g.repeats * g.lanes_per_repeat();
    if (g.counter) bits = std::min(bits, g.count);
    uint64_t sel_bytes = (bits + 7) / 8;
    uint8_t* sel = nullptr;
    if (!ResolveSide(m.sel, sel_addr, sel_bytes, {"sel_mask", false}, env, site, &sel, out)) {
      return false;
    }
    out->sel = Transfer{sel, sel_bytes, sel_bytes, 1};
    out->sel_addr = sel_addr;
  }
  // Sources first, then the destination: the order the range checks and races expect.
  for (int k : {1, 2, 0}) {
    if (k >= operands) continue;     // duplicate has dst only: k = 0
    if (k == 0 && to_reg) continue;  // the register form writes CMPMASK, not UB
    std::string field = std::string(names[k]) + ".addr";
    if (!ev.Address(tensors[k]->addr, field.c_str(), &addrs[k])) return false;
    uint64_t span = spans[k];
    // Whole iterations of contiguous blocks: the race checker sees the gaps between them.
    uint64_t chunk = 0, pitch = 0;
    if (!g.counter && !(k == 0 && (g.dst_per_repeat || g.dst_bits)) &&
        (g.blk[k] == 1 || span <= kVectorBlockBytes)) {
      int64_t last = g.LastLane(0);
      chunk = last < 0
                  ? 0
                  : (static_cast<uint64_t>(last) / g.lanes_per_block(k) + 1) * kVectorBlockBytes;
      pitch = g.rep[k] * kVectorBlockBytes;
    }
    // A whole-iteration reduction writes single results: its dst is aligned to one result
    // (ascendc-semantics.md 5.5), not to a block.
    uint64_t alignment = 0;
    if (k == 0 && g.dst_per_repeat && g.group() == g.lanes_per_repeat()) {
      alignment = uint64_t{g.dst_width} * g.SizeOf(0);
    }
    if (!ResolveSide(*tensors[k], addrs[k], span, {names[k], k == 0}, env, site, &hosts[k], out,
                     chunk, pitch, alignment)) {
      return false;
    }
  }
  if (VectorHasScalar(cls) || m.scalar != 0) {
    out->scalar_bits =
        ToElementBits(values[m.scalar], env.program.value_dtypes[m.scalar], instr.dtype);
  }
  // vcmp writes CMPMASK. Select's modes 1 and 2 load it too (the pipe leaves it holding the
  // scalar or sel_mask's address), but between PIPE_V barriers of the library's own, so they
  // are no race with what comes before or after them.
  if (to_reg) AddCmpMaskRange(true, out);
  out->to_cmp_mask = to_reg;
  if (m.accumulate) {  // vcadd's accumulate flag: the total lands in ACC_VAL when it ends
    SIM_CHECK(env.spr != nullptr, "an accumulating vcadd issued without an ACC_VAL register");
    if (out->num_ranges < IssuedInstr::kMaxRanges) {
      out->ranges[out->num_ranges++] =
          MemRange{MemSpace::kSpr, kAccValOffset, kAccValOffset + kAccValBytes, true, 0, 0};
    }
    out->reg = Transfer{env.spr + kAccValOffset, kAccValBytes, kAccValBytes, 1};
    out->accumulate = true;
  }
  uint64_t dst_span = spans[0];
  out->repeat_form = true;
  out->src0 = Transfer{hosts[1], spans[1], spans[1], 1};
  out->src1 = Transfer{hosts[2], spans[2], spans[2], 1};
  out->dst = Transfer{hosts[0], dst_span, dst_span, dst_span > 0 ? 1u : 0u};
  out->src0_addr = addrs[1];
  out->src1_addr = addrs[2];
  out->dst_addr = addrs[0];
  out->bytes = g.ActiveLanes() * g.esize;
  out->bursts = 1;
  return true;
}

}  // namespace

bool BuildVector(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev,
                 const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  OpClass shape = Info(instr.opcode).op_class;
  bool counter_form = shape == OpClass::kVecSelect || instr.opcode == Opcode::kVecCastDeq;
  if (m.repeat_form || shape == OpClass::kVecCompare || counter_form) {
    bool ok = BuildVectorRepeat(instr, values, ev, env, site, out);
    if (counter_form && !m.repeat_form) *env.vector_mask = VectorMask{};
    return ok;
  }
  // The library's count form runs in counter mode and leaves normal mode with every lane on
  // (ascendc-semantics.md 6.2).
  if (env.vector_mask != nullptr) *env.vector_mask = VectorMask{};
  int64_t count = ev.Int(m.count);
  if (count < 0) return ev.Fail("field count = " + std::to_string(count) + " is negative");
  uint64_t bytes = Bytes(static_cast<uint64_t>(count), DTypeSize(instr.dtype));
  OpClass cls = Info(instr.opcode).op_class;
  int sources = VectorSources(cls);
  // Sources in their own element type (a cast's differs from dst's).
  uint64_t src_bytes =
      sources == 0 ? 0 : Bytes(static_cast<uint64_t>(count), DTypeSize(m.src0.dtype));
  uint64_t dst_addr = 0, src0_addr = 0, src1_addr = 0;
  if (!ev.Address(m.dst.addr, "dst.addr", &dst_addr)) return false;
  uint8_t* dst = nullptr;
  uint8_t* src0 = nullptr;
  uint8_t* src1 = nullptr;
  const char* src0_name = sources == 2 ? "src0" : "src";
  if (sources >= 1) {
    if (!ev.Address(m.src0.addr, sources == 2 ? "src0.addr" : "src.addr", &src0_addr)) {
      return false;
    }
    if (!ResolveSide(m.src0, src0_addr, src_bytes, {src0_name, false}, env, site, &src0, out)) {
      return false;
    }
  }
  if (sources == 2) {
    if (!ev.Address(m.src1.addr, "src1.addr", &src1_addr)) return false;
    if (!ResolveSide(m.src1, src1_addr, src_bytes, {"src1", false}, env, site, &src1, out)) {
      return false;
    }
  }
  // A row that also reads dst (multiply-add into dst) is ordered by its write range alone: a
  // write conflicts with every earlier access, so no extra range is needed for the hazards.
  if (!ResolveSide(m.dst, dst_addr, bytes, {"dst", true}, env, site, &dst, out)) return false;
  if (VectorHasScalar(cls) || m.scalar != 0) {
    out->scalar_bits =
        ToElementBits(values[m.scalar], env.program.value_dtypes[m.scalar], instr.dtype);
  }
  if (!ResolveDeq(instr, m, env, site, out)) return false;
  out->src0 = Transfer{src0, src_bytes, src_bytes, src_bytes > 0 ? 1u : 0u};
  out->src1 = Transfer{src1, src_bytes, src_bytes, src_bytes > 0 ? 1u : 0u};
  out->dst = Transfer{dst, bytes, bytes, bytes > 0 ? 1u : 0u};
  out->src0_addr = src0_addr;
  out->src1_addr = src1_addr;
  out->dst_addr = dst_addr;
  out->count = static_cast<uint64_t>(count);
  out->bytes = bytes;
  out->bursts = 1;
  return true;
}

bool BuildFlag(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& /*ev*/,
               const IssueEnv& env, const Site& site, IssuedInstr* out) {
  if (!ResolveFlag(instr, values, env, site, &out->flag)) return false;
  out->event_id = env.flags.IdOf(out->flag);
  return true;
}

bool BuildCrossCoreSet(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                       const Evaluator& ev, const IssueEnv& env, const Site& site,
                       IssuedInstr* out) {
  uint32_t id = CrossCoreFlagId(ev.Int(instr.a), env.config, env.warn, site, env.diags,
                                "cross_core_set_flag");
  out->flag = id;
  out->event_id = id;
  return true;
}

bool BuildBarrier(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
                  const Evaluator& /*ev*/, const IssueEnv& /*env*/, const Site& /*site*/,
                  IssuedInstr* out) {
  out->barrier_pipe = instr.pipe;
  return true;
}

bool NoBuild(const Instr& instr, const std::vector<ScalarValue>& /*values*/,
             const Evaluator& /*ev*/, const IssueEnv& /*env*/, const Site& /*site*/,
             IssuedInstr* /*out*/) {
  SIM_CHECK(false, std::string(Info(instr.opcode).mnemonic) + " is not a pipe instruction");
  return false;
}

}  // namespace aicore::sim::issue

namespace aicore::sim {

uint32_t CrossCoreFlagId(int64_t id, const SocConfig& config, bool warn, const Site& site,
                         DiagnosticSink& diags, const char* api) {
  uint32_t ids = config.cross_core_flag_ids;
  auto kept = static_cast<uint32_t>(static_cast<uint64_t>(id) % ids);
  if ((id < 0 || id >= static_cast<int64_t>(ids)) && warn) {
    diags.Warn(diags.Make(Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kWarning, site,
                          diags.Prefix(site) + ": " + api + " of flag id " + std::to_string(id) +
                              ": only the low 4 bits of the id reach the chip, so it acts as "
                              "flag " +
                              std::to_string(kept) +
                              " (hardware-910b.md 3.4). Fix: use ids 0..10 for your own flags; "
                              "11..14 belong to sync_all"),
               site.instr);
  }
  return kept;
}

bool ResolveFlag(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, uint32_t* flag) {
  issue::Evaluator ev(values, env, site);
  int64_t id = ev.Int(instr.a);
  uint32_t ids = env.flags.ids_per_event();
  if (id < 0 || id >= static_cast<int64_t>(ids)) {
    return ev.Fail("event id " + std::to_string(id) + " of " +
                   std::string(HardEvent(instr.event).name) + " is out of range 0.." +
                   std::to_string(ids - 1) + " (flag_ids_per_event = " + std::to_string(ids) +
                   "). Fix: use ids 0..5 for your own flags (6 and 7 are used by TPipe)");
  }
  *flag = env.flags.Index(instr.event, static_cast<uint32_t>(id));
  return true;
}

bool BuildIssued(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, IssuedInstr* out) {
  out->instr = &instr;
  issue::Evaluator ev(values, env, site);
  return FunctionsOf(Info(instr.opcode).op_class).build(instr, values, ev, env, site, out);
}

}  // namespace aicore::sim
