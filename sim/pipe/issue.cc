// Operand evaluation and checking for issued instructions (see issue.h).
#include "sim/pipe/issue.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "sim/check/bounds.h"
#include "sim/core/invariant.h"
#include "sim/isa/semantics/deq.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

// Limits of DataCopyParams on 2201 (hardware-910b.md 6.1): blockCount [0, 4095], the others
// u16.
constexpr int64_t kMaxBlockCount = 4095;
constexpr int64_t kMaxU16 = 65535;
// DataCopyExtParams (ascendc-semantics.md 5.11): blockLen in bytes up to 2097151, u32 strides.
constexpr int64_t kMaxPadBlockLen = 2097151;
constexpr int64_t kMaxU32 = 4294967295;
constexpr uint64_t kBlockBytes = 32;  // DataBlock: the unit of DataCopy lengths and strides

class Evaluator {
 public:
  Evaluator(const std::vector<ScalarValue>& values, const IssueEnv& env, const Site& site)
      : values_(values), env_(env), site_(site) {}

  int64_t Int(uint32_t slot) const {
    if (slot == 0) return 0;
    return AsInt64(values_[slot], env_.program.value_dtypes[slot]);
  }

  ScalarValue Value(uint32_t slot) const { return values_[slot]; }
  DType DTypeOf(uint32_t slot) const { return env_.program.value_dtypes[slot]; }

  // Address operands may be uint64 device pointers: keep them unsigned.
  bool Address(uint32_t slot, const char* field, uint64_t* out) const {
    DType t = env_.program.value_dtypes[slot];
    if (t == DType::kUInt64 || t == DType::kUInt32 || t == DType::kUInt16 || t == DType::kUInt8) {
      *out = values_[slot].u;
      return true;
    }
    int64_t v = Int(slot);
    if (v < 0)
      return Fail(std::string("field ") + field + " is negative (" + std::to_string(v) +
                  "); addresses must be >= 0");
    *out = static_cast<uint64_t>(v);
    return true;
  }

  bool InRange(uint32_t slot, const char* field, int64_t max, uint64_t* out) const {
    int64_t v = Int(slot);
    if (v < 0 || v > max) {
      return Fail(std::string("field ") + field + " = " + std::to_string(v) +
                  " is out of range [0, " + std::to_string(max) + "]");
    }
    *out = static_cast<uint64_t>(v);
    return true;
  }

  bool Fail(const std::string& why) const {
    env_.diags.Error(env_.diags.Make(Diagnostic::Kind::kInvalidOperand,
                                     Diagnostic::Severity::kError, site_,
                                     env_.diags.Prefix(site_) + ": " + why + "."));
    return false;
  }

 private:
  const std::vector<ScalarValue>& values_;
  const IssueEnv& env_;
  const Site& site_;
};

// Resolves one side of a copy or vector operand to host memory after checking it.
bool ResolveSide(const TensorOperand& t, uint64_t address, uint64_t span, AccessRole role,
                 const IssueEnv& env, const Site& site, uint8_t** host, IssuedInstr* out,
                 uint64_t chunk = 0, uint64_t pitch = 0, uint64_t alignment = 0) {
  *host = nullptr;
  if (span == 0) return true;
  if (out->num_ranges < IssuedInstr::kMaxRanges) {
    bool strided = chunk != 0 && pitch > chunk;
    out->ranges[out->num_ranges++] = MemRange{
        t.space, address, address + span, role.write, strided ? chunk : 0, strided ? pitch : 0};
  }
  if (t.space != MemSpace::kGm) {
    LocalMemory* mem = env.memories.Find(t.space);
    SIM_CHECK(mem != nullptr, std::string(MemSpaceName(t.space)) +
                                  " operand on a core without that memory passed the decoder");
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

// set_cmp_mask reads 16 bytes of UB into CMPMASK, get_cmp_mask writes them back.
bool BuildCmpMaskMove(const Instr& instr, const Evaluator& ev, const IssueEnv& env,
                      const Site& site, IssuedInstr* out) {
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

// count * size without overflow: anything absurd saturates and then fails the bounds check.
uint64_t Bytes(uint64_t count, uint64_t element_bytes) {
  if (count > (std::numeric_limits<uint64_t>::max() / 2) / element_bytes) {
    return std::numeric_limits<uint64_t>::max() / 2;
  }
  return count * element_bytes;
}

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

bool BuildDataCopy(const Instr& instr, const Evaluator& ev, const IssueEnv& env, const Site& site,
                   IssuedInstr* out) {
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
    chunk = bl * kBlockBytes;
    chunks = chunk > 0 ? bc : 0;
    src_pitch = (bl + ss) * kBlockBytes;
    dst_pitch = (bl + ds) * kBlockBytes;
  }
  if (!m.pad_form) src_chunk = dst_chunk = chunk;
  uint64_t src_span = chunks > 0 ? (chunks - 1) * src_pitch + src_chunk : 0;
  uint64_t dst_span = chunks > 0 ? (chunks - 1) * dst_pitch + dst_chunk : 0;
  uint8_t* src_host = nullptr;
  uint8_t* dst_host = nullptr;
  if (!ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src_host, out, src_chunk,
                   src_pitch)) {
    return false;
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
  if (cls == OpClass::kVecCopy && g.counter) {
    // Copy's count is per iteration, and repeat_times still applies (asc-api.md 4.1).
    VectorMask lanes =
        MaskForLength(std::min<uint64_t>(g.count, g.lanes_per_repeat()), g.esize, false);
    g.counter = false;
    g.mask_hi = lanes.hi;
    g.mask_lo = lanes.lo;
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
    if (out->num_ranges < IssuedInstr::kMaxRanges) {
      MemRange r{MemSpace::kUb, 0, ub->capacity(), false, 0, 0};
      r.hull = true;
      out->ranges[out->num_ranges++] = r;
    }
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

// bilinear_interpolation (asc-api.md 4.5): v_repeat windows of 128 half lanes in dst, each the
// sum of h_repeat steps. The blocks a step gathers come from offsets read when it executes, so
// the race checker sees src0's whole view as read (the rest of the memory when its size is
// unknown), and the pipe checks each offset against that span.
bool BuildBilinear(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev,
                   const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  SIM_CHECK(env.vector_mask != nullptr, "a vector instruction issued without a mask register");
  VectorMask& reg = *env.vector_mask;
  VecGeometry& g = out->geo;
  g.esize = static_cast<uint32_t>(DTypeSize(instr.dtype));
  if (!LoadOwnMask(m, values, ev, g.esize, &reg)) return false;
  g.counter = reg.counter;
  g.mask_hi = reg.hi;
  g.mask_lo = reg.lo;
  g.count = reg.lo;
  uint64_t h_repeat = 0, v_repeat = 0, v_offset = 0, dst_blk = 0;
  if (!ev.InRange(m.h_repeat, "h_repeat", kMaxRepeatTimes, &h_repeat) ||
      !ev.InRange(m.v_repeat, "v_repeat", kMaxRepeatTimes, &v_repeat) ||
      !ev.InRange(m.v_offset, "v_r_offset", kMaxU16, &v_offset) ||
      !ev.InRange(m.blk_stride[0], "dst_blk_stride", kMaxU16, &dst_blk)) {
    return false;
  }
  g.repeats = v_repeat;
  g.blk[0] = dst_blk;
  BilinearShape& b = out->bilinear;
  b.h_repeat = h_repeat;
  b.v_repeat = v_repeat;
  b.v_offset_bytes = v_offset * g.esize;
  b.per_block = ev.Int(m.repeat_mode) != 0;
  uint64_t steps = h_repeat * v_repeat;
  uint64_t dst_addr = 0, src0_addr = 0, offsets_addr = 0, src1_addr = 0;
  if (!ev.Address(m.dst.addr, "dst.addr", &dst_addr) ||
      !ev.Address(m.src0.addr, "src0.addr", &src0_addr) ||
      !ev.Address(m.sel.addr, "src0_offset.addr", &offsets_addr) ||
      !ev.Address(m.src1.addr, "src1.addr", &src1_addr)) {
    return false;
  }
  uint64_t src0_span = 0;
  if (steps > 0 && g.LastLane(0) >= 0) {
    LocalMemory* mem = env.memories.Find(m.src0.space);
    SIM_CHECK(mem != nullptr, "bilinear_interpolation src0 on a core without its memory");
    int64_t count = m.src0.count != 0 ? ev.Int(m.src0.count) : -1;
    src0_span = count >= 0 ? static_cast<uint64_t>(count) * g.esize
                           : (src0_addr < mem->capacity() ? mem->capacity() - src0_addr : 0);
  }
  uint64_t offsets_bytes = steps * kVectorRepeatBlocks * sizeof(uint32_t);
  uint64_t src1_bytes = steps * (b.per_block ? kVectorRepeatBlocks : 1) * g.esize;
  int64_t last = g.LastLane(0);
  uint64_t dst_span = steps == 0 || last < 0
                          ? 0
                          : (v_repeat - 1) * b.v_offset_bytes +
                                (static_cast<uint64_t>(last) / g.lanes_per_block() * dst_blk + 1) *
                                    kVectorBlockBytes;
  if (dst_span == 0) offsets_bytes = src1_bytes = 0;
  uint8_t *src0 = nullptr, *offsets = nullptr, *src1 = nullptr, *dst = nullptr;
  if (!ResolveSide(m.src0, src0_addr, src0_span, {"src0", false}, env, site, &src0, out) ||
      !ResolveSide(m.sel, offsets_addr, offsets_bytes, {"src0_offset", false}, env, site, &offsets,
                   out) ||
      !ResolveSide(m.src1, src1_addr, src1_bytes, {"src1", false}, env, site, &src1, out) ||
      !ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out)) {
    return false;
  }
  out->repeat_form = true;
  out->src0 = Transfer{src0, src0_span, src0_span, 1};
  out->sel = Transfer{offsets, offsets_bytes, offsets_bytes, 1};
  out->src1 = Transfer{src1, src1_bytes, src1_bytes, 1};
  out->dst = Transfer{dst, dst_span, dst_span, dst_span > 0 ? 1u : 0u};
  out->src0_addr = src0_addr;
  out->src1_addr = src1_addr;
  out->dst_addr = dst_addr;
  out->bytes = g.ActiveLanes() * g.esize * h_repeat;
  out->bursts = 1;
  return true;
}

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

// Sort and proposal instructions (asc-api.md 4.12): whole structures or proposals per iteration,
// the mask ignored (ascendc-semantics.md 6.3). Every byte read or written is in a range: a
// proposal field as a strided range of one element per proposal.
constexpr uint64_t kSortStructBytes = 8;  // (score, uint32 index)
constexpr uint64_t kSort32Group = 32;
constexpr uint64_t kProposalGroup = 16;
constexpr int64_t kMaxProposalField = 5;  // mode_number: x1 y1 x2 y2 score label
constexpr int64_t kMaxListLength = 4095;  // MrgSort4Info.elementLengths

// Resolves a strided field of `n` proposals (one element every proposal) whose proposals start
// at `address`: bounds as whole proposals, the range as the field's bytes only.
bool ResolveField(const TensorOperand& t, uint64_t address, uint64_t n, uint64_t esize,
                  uint64_t field, AccessRole role, const IssueEnv& env, const Site& site,
                  uint8_t** host, IssuedInstr* out) {
  uint64_t pbytes = kProposalElements * esize;
  uint8_t before = out->num_ranges;
  if (!ResolveSide(t, address, n * pbytes, role, env, site, host, out)) return false;
  if (out->num_ranges > before && n > 0) {
    uint64_t lo = address + field * esize;
    out->ranges[before] =
        MemRange{t.space, lo, lo + (n - 1) * pbytes + esize, role.write, esize, pbytes};
  }
  return true;
}

bool BuildMergeLists(const Instr& instr, const Evaluator& ev, const IssueEnv& env, const Site& site,
                     uint64_t repeats, IssuedInstr* out, uint64_t* dst_span) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  uint64_t eb = MergeElementBytes(instr.opcode, instr.dtype);
  uint64_t valid = 0;
  if (!ev.InRange(m.valid_bit, "valid_bit", 15, &valid)) return false;
  if (valid != 3 && valid != 7 && valid != 15) {
    return ev.Fail("field valid_bit = " + std::to_string(valid) +
                   " is not 3, 7 or 15 (the first 2, 3 or 4 lists)");
  }
  int lists = valid == 3 ? 2 : valid == 7 ? 3 : 4;
  const TensorOperand* src[4] = {&m.src0, &m.src1, &m.src2, &m.src3};
  if (src[lists - 1]->space == MemSpace::kInvalid) {
    return ev.Fail("valid_bit " + std::to_string(valid) + " merges " + std::to_string(lists) +
                   " lists, but the source list has fewer");
  }
  uint64_t len[4] = {0, 0, 0, 0}, addr[4] = {0, 0, 0, 0}, total = 0;
  for (int i = 0; i < lists; ++i) {
    std::string field = "src[" + std::to_string(i) + "].addr";
    if (!ev.InRange(m.lengths[i], "element_lengths", kMaxListLength, &len[i]) ||
        !ev.Address(src[i]->addr, field.c_str(), &addr[i])) {
      return false;
    }
    total += len[i];
  }
  if (repeats > 1) {
    // The hardware steps every list by the four lists' length: they must be one region.
    if (valid != 15 || m.exhausted_suspension) {
      return ev.Fail("repeat_times = " + std::to_string(repeats) +
                     " needs valid_bit 15 and no exhausted suspension");
    }
    for (int i = 1; i < 4; ++i) {
      if (len[i] != len[0] || addr[i] != addr[0] + i * len[0] * eb) {
        return ev.Fail("repeat_times = " + std::to_string(repeats) +
                       " needs four lists of equal length stored back to back; list " +
                       std::to_string(i) + " is not");
      }
    }
    uint8_t* host = nullptr;
    uint64_t span = repeats * total * eb;
    if (!ResolveSide(*src[0], addr[0], span, {"src", false}, env, site, &host, out)) return false;
    for (int i = 0; i < 4; ++i) {
      out->lists[i] = Transfer{host == nullptr ? nullptr : host + i * len[0] * eb, len[i] * eb,
                               total * eb, repeats};
    }
  } else {
    for (int i = 0; i < lists; ++i) {
      uint8_t* host = nullptr;
      std::string name = "src[" + std::to_string(i) + "]";
      if (!ResolveSide(*src[i], addr[i], len[i] * eb, {name.c_str(), false}, env, site, &host,
                       out)) {
        return false;
      }
      out->lists[i] = Transfer{host, len[i] * eb, 0, repeats};
    }
  }
  for (int i = lists; i < 4; ++i) out->lists[i] = Transfer{};
  out->count = static_cast<uint64_t>(lists);  // lists merged (an empty one still takes part)
  *dst_span = repeats * total * eb;
  return true;
}

bool BuildSort(const Instr& instr, const Evaluator& ev, const IssueEnv& env, const Site& site,
               IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  OpClass cls = Info(instr.opcode).op_class;
  uint64_t esize = DTypeSize(instr.dtype);
  bool merge = cls == OpClass::kVecMrgSort;
  uint64_t repeats = 0;
  if (!ev.InRange(m.repeat_times, merge ? "repeat_times" : "repeat_time", kMaxRepeatTimes,
                  &repeats)) {
    return false;
  }
  if (merge && repeats == 0) return ev.Fail("field repeat_times = 0 is out of range [1, 255]");
  uint64_t dst_addr = 0, src_addr = 0, src1_addr = 0;
  if (!ev.Address(m.dst.addr, "dst.addr", &dst_addr)) return false;
  uint8_t* dst = nullptr;
  uint8_t* src0 = nullptr;
  uint8_t* src1 = nullptr;
  uint64_t dst_span = 0, src_span = 0;
  uint64_t field = 0;
  out->geo.repeats = repeats;  // the cost row's repeats
  if (cls == OpClass::kVecSort32) {
    uint64_t n = repeats * kSort32Group;
    if (!ev.Address(m.src0.addr, "src0.addr", &src_addr) ||
        !ev.Address(m.src1.addr, "src1.addr", &src1_addr) ||
        !ResolveSide(m.src0, src_addr, n * esize, {"src0", false}, env, site, &src0, out) ||
        !ResolveSide(m.src1, src1_addr, n * sizeof(uint32_t), {"src1", false}, env, site, &src1,
                     out)) {
      return false;
    }
    src_span = n * esize;
    dst_span = n * kSortStructBytes;
    out->count = n;
    if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out)) return false;
  } else if (cls == OpClass::kVecProposal) {
    uint64_t n = repeats * kProposalGroup;
    out->count = n;
    uint64_t pbytes = kProposalElements * esize;
    if (instr.opcode != Opcode::kVecRpSort16 &&
        !ev.InRange(m.mode_number, "mode_number", kMaxProposalField, &field)) {
      return false;
    }
    out->scalar_bits = field;
    if (!ev.Address(m.src0.addr, "src.addr", &src_addr)) return false;
    bool ok = true;
    if (instr.opcode == Opcode::kVecRpSort16) {
      src_span = dst_span = n * pbytes;
      ok = ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src0, out) &&
           ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out);
    } else if (instr.opcode == Opcode::kVecProposalConcat) {
      src_span = n * esize;
      dst_span = n * pbytes;
      ok = ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src0, out) &&
           ResolveField(m.dst, dst_addr, n, esize, field, {"dst", true}, env, site, &dst, out);
    } else {
      src_span = n * pbytes;
      dst_span = n * esize;
      ok = ResolveField(m.src0, src_addr, n, esize, field, {"src", false}, env, site, &src0, out) &&
           ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out);
    }
    if (!ok) return false;
  } else {
    if (!BuildMergeLists(instr, ev, env, site, repeats, out, &dst_span)) return false;
    out->scalar_bits = m.exhausted_suspension ? 1 : 0;
    if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out)) return false;
    // Every merge sets VMS4_SR when it ends (get_mrg_sort_result reads it).
    SIM_CHECK(env.spr != nullptr, "a merge issued without a VMS4_SR register");
    out->ranges[out->num_ranges++] =
        MemRange{MemSpace::kSpr, kVms4SrOffset, kVms4SrOffset + kVms4SrBytes, true, 0, 0};
    out->reg = Transfer{env.spr + kVms4SrOffset, kVms4SrBytes, kVms4SrBytes, 1};
    // Cost: one repeat per 256 bytes of output (the model's unit for merges).
    out->geo.repeats = (dst_span + kVectorRepeatBlocks * kVectorBlockBytes - 1) /
                       (kVectorRepeatBlocks * kVectorBlockBytes);
  }
  out->repeat_form = true;
  out->src0 = Transfer{src0, src_span, src_span, 1};
  out->src1 = Transfer{src1, src1 == nullptr ? 0 : out->count * sizeof(uint32_t), 0, 1};
  out->dst = Transfer{dst, dst_span, dst_span, dst_span > 0 ? 1u : 0u};
  out->src0_addr = src_addr;
  out->src1_addr = src1_addr;
  out->dst_addr = dst_addr;
  out->bytes = dst_span;
  out->bursts = 1;
  return true;
}

// ---- rearrangement (brcb, gather, gatherb, scatter, gather_mask, transpose, 5HD) -------------

// A range the race checker sees without the alignment and capacity checks of ResolveSide:
// data-dependent addresses are checked when the instruction runs.
void AddRange(IssuedInstr* out, uint64_t lo, uint64_t hi, bool write, bool hull, uint64_t chunk = 0,
              uint64_t pitch = 0) {
  if (hi <= lo || out->num_ranges >= IssuedInstr::kMaxRanges) return;
  bool strided = chunk != 0 && pitch > chunk;
  MemRange r{MemSpace::kUb, lo, hi, write, strided ? chunk : 0, strided ? pitch : 0};
  r.hull = hull;
  out->ranges[out->num_ranges++] = r;
}

// [lo, hi) checked against UB (alignment of lo included) and added for the race checker.
bool UbRange(const TensorOperand& t, uint64_t lo, uint64_t hi, AccessRole role, bool hull,
             const IssueEnv& env, const Site& site, IssuedInstr* out, uint64_t chunk = 0,
             uint64_t pitch = 0) {
  if (hi <= lo) return true;
  uint8_t* host = nullptr;
  if (!ResolveSide(t, lo, hi - lo, role, env, site, &host, out, chunk, pitch)) return false;
  out->ranges[out->num_ranges - 1].hull = hull;
  return true;
}

// The lanes of gather/scatter: the count form's counter-mode instruction, or the mask the
// repeat form loads (its own, or the register's), as BuildVectorRepeat reads it.
bool MoveLanes(const MemOpInfo& m, const std::vector<ScalarValue>& values, const Evaluator& ev,
               const IssueEnv& env, uint32_t esize, MoveArgs* a) {
  VectorMask& reg = *env.vector_mask;
  if (!m.repeat_form) {
    int64_t count = ev.Int(m.count);
    if (count < 0) return ev.Fail("field count = " + std::to_string(count) + " is negative");
    a->counter = true;
    a->count = static_cast<uint64_t>(count);
    reg = VectorMask{};  // the library leaves normal mode with every lane on
    return true;
  }
  if (!LoadOwnMask(m, values, ev, esize, &reg)) return false;
  a->counter = reg.counter;
  a->count = reg.lo;
  a->mask_hi = reg.hi;
  a->mask_lo = reg.lo;
  return true;
}

bool Stride(const Evaluator& ev, uint32_t slot, const char* name, uint64_t fallback,
            uint64_t* out) {
  *out = fallback;
  return slot == 0 || ev.InRange(slot, name, kMaxU16, out);
}

bool BuildMove(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev,
               const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  SIM_CHECK(m.move != 0, "a rearrangement without its operands reached the issue stage");
  const MoveInfo& mv = env.program.move_ops[m.move - 1];
  LocalMemory* ub = env.memories.Find(MemSpace::kUb);
  SIM_CHECK(ub != nullptr, "a rearrangement issued on a core without UB");
  const uint64_t ub_end = ub->capacity();
  MoveArgs& a = out->move;
  a = MoveArgs{};
  a.kind = static_cast<MoveKind>(instr.kind);
  a.dtype = instr.dtype;
  const uint64_t s = DTypeSize(instr.dtype);
  const uint64_t lanes = kVectorRepeatBlocks * kVectorBlockBytes / s;
  uint64_t repeats = 1;
  if (m.repeat_times != 0 &&
      !ev.InRange(m.repeat_times, "repeat_times", kMaxRepeatTimes, &repeats)) {
    return false;
  }
  a.repeats = repeats;
  bool lists = a.kind == MoveKind::kTransDataTo5hd;
  if (!lists) {
    if (!ev.Address(m.dst.addr, "dst.addr", &a.dst) ||
        !ev.Address(m.src0.addr, "src.addr", &a.src)) {
      return false;
    }
  }
  if (mv.offset.addr != 0 && !ev.Address(mv.offset.addr, "offset.addr", &a.index)) return false;
  if (mv.base != 0) {
    int64_t base = ev.Int(mv.base);
    if (base < 0) return ev.Fail("field base = " + std::to_string(base) + " is negative");
    a.base = static_cast<uint64_t>(base);
  }
  // [lo, lo + span): every byte the instruction may write; `rep_units` iterations for timing.
  uint64_t lo = a.dst, span = 0, rep_units = repeats;
  const uint64_t kB = kVectorBlockBytes;
  switch (a.kind) {
    case MoveKind::kBrcb: {
      if (!Stride(ev, m.blk_stride[0], "dst_blk_stride", 1, &a.dst_blk) ||
          !Stride(ev, m.rep_stride[0], "dst_rep_stride", 8, &a.dst_rep)) {
        return false;
      }
      span = repeats == 0 ? 0 : ((repeats - 1) * a.dst_rep + 7 * a.dst_blk + 1) * kB;
      if (!UbRange(m.src0, a.src, a.src + 8 * repeats * s, {"src0", false}, false, env, site,
                   out) ||
          !UbRange(m.dst, a.dst, a.dst + span, {"dst", true}, false, env, site, out,
                   a.dst_blk == 1 ? 8 * kB : 0, a.dst_rep * kB)) {
        return false;
      }
      break;
    }
    case MoveKind::kGather:
    case MoveKind::kScatter: {
      bool scatter = a.kind == MoveKind::kScatter;
      if (!MoveLanes(m, values, ev, env, static_cast<uint32_t>(s), &a)) return false;
      // The count form is dense: iterations 8 blocks apart.
      if (m.repeat_form) {
        uint32_t slot = scatter ? m.rep_stride[1] : m.rep_stride[0];
        if (!Stride(ev, slot, scatter ? "src_rep_stride" : "dst_rep_stride", 8,
                    scatter ? &a.src_rep : &a.dst_rep)) {
          return false;
        }
      }
      // The last lane of each iteration: the extent of the dense side and of the offsets.
      uint64_t iterations = a.counter ? (a.count + lanes - 1) / lanes : repeats;
      uint64_t dense = 0, offsets = 0;
      for (uint64_t r = 0; r < iterations; ++r) {
        int64_t last = -1;
        for (uint64_t e = 0; e < lanes; ++e) {
          bool on = a.counter ? r * lanes + e < a.count
                              : e < 128 && ((e < 64 ? a.mask_lo >> e : a.mask_hi >> (e - 64)) & 1u);
          if (on) last = static_cast<int64_t>(e);
        }
        if (last < 0) continue;
        uint64_t rep = scatter ? a.src_rep : a.dst_rep;
        dense = std::max(dense, r * rep * kB + (static_cast<uint64_t>(last) + 1) * s);
        offsets = std::max(offsets, (r * lanes + static_cast<uint64_t>(last) + 1) * 4);
      }
      rep_units = iterations;
      if (!UbRange(mv.offset, a.index, a.index + offsets, {"offset", false}, false, env, site,
                   out)) {
        return false;
      }
      uint64_t far = (scatter ? a.dst : a.src) + a.base;  // offsets are unsigned: from here up
      if (scatter) {
        if (!UbRange(m.src0, a.src, a.src + dense, {"src0", false}, false, env, site, out)) {
          return false;
        }
        if (offsets > 0) AddRange(out, far, ub_end, true, true);
        lo = far;
        span = offsets > 0 && far < ub_end ? ub_end - far : 0;
      } else {
        if (offsets > 0) AddRange(out, far, ub_end, false, true);
        if (!UbRange(m.dst, a.dst, a.dst + dense, {"dst", true}, false, env, site, out)) {
          return false;
        }
        span = dense;
      }
      break;
    }
    case MoveKind::kGatherb: {
      if (!Stride(ev, m.blk_stride[0], "dst_blk_stride", 1, &a.dst_blk) ||
          !Stride(ev, m.rep_stride[0], "dst_rep_stride", 8, &a.dst_rep)) {
        return false;
      }
      uint64_t blk = a.dst_blk == 0 ? 1 : a.dst_blk;
      span = repeats == 0 ? 0 : ((repeats - 1) * a.dst_rep + 7 * blk + 1) * kB;
      if (!UbRange(mv.offset, a.index, a.index + 8 * repeats * 4, {"offset", false}, false, env,
                   site, out)) {
        return false;
      }
      if (repeats > 0) AddRange(out, a.src, ub_end, false, true);
      if (!UbRange(m.dst, a.dst, a.dst + span, {"dst", true}, false, env, site, out,
                   blk == 1 ? 8 * kB : 0, a.dst_rep * kB)) {
        return false;
      }
      break;
    }
    case MoveKind::kGatherMask: {
      if (!Stride(ev, m.blk_stride[1], "src0_block_stride", 1, &a.src_blk) ||
          !Stride(ev, m.rep_stride[1], "src0_repeat_stride", 0, &a.src_rep) ||
          !Stride(ev, m.rep_stride[0], "src1_repeat_stride", 0, &a.index_rep)) {
        return false;
      }
      a.reduce_mode = mv.reduce_mode;
      if (a.reduce_mode &&
          !ev.InRange(m.mask_len, "mask", static_cast<int64_t>(lanes), &a.mask_len)) {
        return false;
      }
      if (mv.pattern != 0) {
        uint64_t p = 0;
        if (!ev.InRange(mv.pattern, "src1_pattern", 7, &p)) return false;
        if (p == 0) return ev.Fail("field src1_pattern = 0 is not a built-in pattern (1..7)");
        a.pattern = static_cast<uint8_t>(p);
      }
      uint64_t active = a.reduce_mode ? a.mask_len : lanes;
      uint64_t per_block = kB / s, src_end = 0;
      if (active > 0 && repeats > 0) {
        uint64_t e = active - 1;
        src_end =
            ((repeats - 1) * a.src_rep + e / per_block * a.src_blk) * kB + (e % per_block + 1) * s;
        // A block stride below 1 block can put an earlier lane last: take the widest iteration.
        src_end = std::max(src_end, (repeats - 1) * a.src_rep * kB + active * s);
      }
      if (!UbRange(m.src0, a.src, a.src + src_end, {"src0", false}, a.src_blk != 1, env, site,
                   out)) {
        return false;
      }
      if (a.pattern == 0 && repeats > 0) {
        uint64_t bytes = GatherMaskPatternBytes(a.dtype, a.reduce_mode, a.mask_len);
        if (!UbRange(mv.offset, a.index, a.index + (repeats - 1) * a.index_rep * kB + bytes,
                     {"src1_pattern", false}, a.index_rep * kB > bytes, env, site, out)) {
          return false;
        }
      }
      span = repeats * active * s;
      if (!UbRange(m.dst, a.dst, a.dst + span, {"dst", true}, a.pattern == 0, env, site, out)) {
        return false;
      }
      out->move_kept = env.gather_mask_count;
      break;
    }
    case MoveKind::kTranspose:
    case MoveKind::kTransposeExt: {
      a.transpose_type = mv.transpose_type;
      uint64_t bytes = 16 * 16 * s;
      if (a.transpose_type != 0) {
        a.kind = MoveKind::kTransposeExt;
        uint64_t dims[4] = {0, 0, 0, 0};
        const uint32_t slots[4] = {mv.n, mv.c, mv.h, mv.w};
        const char* names[4] = {"n_size", "c_size", "h_size", "w_size"};
        for (int k = 0; k < 4; ++k) {
          if (slots[k] != 0 && !ev.InRange(slots[k], names[k], kMaxU16, &dims[k])) return false;
        }
        a.n = static_cast<uint16_t>(dims[0]), a.c = static_cast<uint16_t>(dims[1]);
        a.h = static_cast<uint16_t>(dims[2]), a.w = static_cast<uint16_t>(dims[3]);
        if (a.transpose_type == kTransposeNd2NdB16) {
          if (a.h % 16 != 0 || a.w % 16 != 0) {
            return ev.Fail("TRANSPOSE_ND2ND_B16 transposes 16x16 blocks: h_size " +
                           std::to_string(a.h) + " and w_size " + std::to_string(a.w) +
                           " must be multiples of 16");
          }
          bytes = std::max<uint64_t>(a.n, 1) * std::max<uint64_t>(a.c, 1) * a.h * a.w * s;
        } else {
          bytes = uint64_t{a.n} * a.c * a.h * a.w * s;
        }
        // The chip uses the tmp buffer as scratch: the race checker sees it written.
        uint64_t tmp = 0;
        if (!ev.Address(mv.offset.addr, "shared_tmp_buffer.addr", &tmp)) return false;
        int64_t tmp_len = mv.offset.count != 0 ? ev.Int(mv.offset.count) : 0;
        if (tmp_len > 0 && !UbRange(mv.offset, tmp, tmp + static_cast<uint64_t>(tmp_len),
                                    {"shared_tmp_buffer", true}, false, env, site, out)) {
          return false;
        }
      }
      rep_units = (bytes + 255) / 256;
      span = bytes;
      if (!UbRange(m.src0, a.src, a.src + bytes, {"src", false}, false, env, site, out) ||
          !UbRange(m.dst, a.dst, a.dst + bytes, {"dst", true}, false, env, site, out)) {
        return false;
      }
      break;
    }
    case MoveKind::kTransDataTo5hd: {
      a.dst_high = mv.dst_high;
      a.src_high = mv.src_high;
      if (!Stride(ev, m.rep_stride[0], "dst_rep_stride", 0, &a.dst_rep) ||
          !Stride(ev, m.rep_stride[1], "src_rep_stride", 0, &a.src_rep)) {
        return false;
      }
      if (mv.lists) {
        for (int i = 0; i < 16; ++i) {
          if (!ev.Address(mv.dst_list[i], "dst_list", &a.dst_list[i]) ||
              !ev.Address(mv.src_list[i], "src_list", &a.src_list[i])) {
            return false;
          }
        }
      } else {
        // The addresses are read from UB when the instruction runs; the race checker gets the
        // ranges of what they hold now (set_value writes them in program order).
        a.addr_tensors = true;
        if (!ev.Address(mv.dst_addrs.addr, "dst_list.addr", &a.dst_addrs) ||
            !ev.Address(mv.src_addrs.addr, "src_list.addr", &a.src_addrs) ||
            !UbRange(mv.dst_addrs, a.dst_addrs, a.dst_addrs + 128, {"dst_list", false}, false, env,
                     site, out) ||
            !UbRange(mv.src_addrs, a.src_addrs, a.src_addrs + 128, {"src_list", false}, false, env,
                     site, out)) {
          return false;
        }
        std::memcpy(a.dst_list, ub->data() + a.dst_addrs, 128);
        std::memcpy(a.src_list, ub->data() + a.src_addrs, 128);
      }
      uint64_t lo_s = ~uint64_t{0}, hi_s = 0, lo_d = ~uint64_t{0}, hi_d = 0;
      for (uint64_t r = 0; r < repeats; ++r) {
        uint64_t step = repeats == 1 ? 1 : r;
        for (int i = 0; i < 16; ++i) {
          for (int k = 0; k < 2; ++k) {
            uint64_t at = (k == 0 ? a.dst_list[i] + step * a.dst_rep * kB
                                  : a.src_list[i] + step * a.src_rep * kB);
            if (at % kB != 0) {
              return ev.Fail(std::string(k == 0 ? "dst_list" : "src_list") + "[" +
                             std::to_string(i) + "] + the repeat offset = " + std::to_string(at) +
                             " is not 32-byte aligned");
            }
            uint64_t& l = k == 0 ? lo_d : lo_s;
            uint64_t& h = k == 0 ? hi_d : hi_s;
            l = std::min(l, at);
            h = std::max(h, at + kB);
          }
        }
      }
      if (repeats == 0) lo_d = hi_d = lo_s = hi_s = 0;
      TensorOperand ub_side;
      ub_side.space = MemSpace::kUb;
      ub_side.dtype = a.dtype;
      if (!UbRange(ub_side, lo_s, hi_s, {"src_list", false}, true, env, site, out) ||
          !UbRange(ub_side, lo_d, hi_d, {"dst_list", true}, true, env, site, out)) {
        return false;
      }
      lo = lo_d;
      span = hi_d - lo_d;
      break;
    }
  }
  if (span > 0 && lo >= ub_end) {
    return ev.Fail("the destination starts at UB offset " + std::to_string(lo) +
                   ", past the end of UB (" + std::to_string(ub_end) + " bytes)");
  }
  out->repeat_form = true;  // the pipe writes back an image of [lo, lo + span) and a byte mask
  out->geo = VecGeometry{};
  out->geo.esize = static_cast<uint32_t>(s);
  out->geo.repeats = rep_units;
  out->move_ub = ub->data();
  out->move_ub_bytes = ub_end;
  out->move_lo = lo;
  out->dst = Transfer{span > 0 ? ub->data() + lo : nullptr, span, span, span > 0 ? 1u : 0u};
  out->dst_addr = lo;
  out->src0_addr = a.src;
  out->bytes = span;
  out->bursts = 1;
  return true;
}

}  // namespace

bool ResolveFlag(const Instr& instr, const std::vector<ScalarValue>& values, const IssueEnv& env,
                 const Site& site, uint32_t* flag) {
  Evaluator ev(values, env, site);
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
  Evaluator ev(values, env, site);
  switch (Info(instr.opcode).op_class) {
    case OpClass::kDataCopy:
      return BuildDataCopy(instr, ev, env, site, out);
    case OpClass::kVecBinary:
    case OpClass::kVecUnary:
    case OpClass::kVecScalar:
    case OpClass::kVecBinaryDst:
    case OpClass::kVecScalarDst:
    case OpClass::kVecFill:
    case OpClass::kVecCast:
    case OpClass::kVecReduce:
    case OpClass::kVecCompare:
    case OpClass::kVecSelect:
    case OpClass::kVecCopy:
      return BuildVector(instr, values, ev, env, site, out);
    case OpClass::kVecBilinear:
      return BuildBilinear(instr, values, ev, env, site, out);
    case OpClass::kVecSort32:
    case OpClass::kVecMrgSort:
    case OpClass::kVecProposal:
      return BuildSort(instr, ev, env, site, out);
    case OpClass::kVecMove:
      return BuildMove(instr, values, ev, env, site, out);
    case OpClass::kVecBinCast:
      return BuildVector(instr, values, ev, env, site, out);
    case OpClass::kVecCmpMask:
      return BuildCmpMaskMove(instr, ev, env, site, out);
    case OpClass::kSetFlag:
    case OpClass::kWaitFlag:
      if (!ResolveFlag(instr, values, env, site, &out->flag)) return false;
      out->event_id = env.flags.IdOf(out->flag);
      return true;
    case OpClass::kPipeBarrier:
      out->barrier_pipe = instr.pipe;
      return true;
    default:
      SIM_CHECK(false, std::string(Info(instr.opcode).mnemonic) + " is not a pipe instruction");
      return false;
  }
}

}  // namespace aicore::sim
