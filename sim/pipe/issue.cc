// Operand evaluation and checking for issued instructions (see issue.h).
#include "sim/pipe/issue.h"

#include <algorithm>
#include <limits>
#include <string>

#include "sim/check/bounds.h"
#include "sim/core/invariant.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

// Limits of DataCopyParams on 2201 (hardware-910b.md 6.1): blockCount [0, 4095], the others
// u16.
constexpr int64_t kMaxBlockCount = 4095;
constexpr int64_t kMaxU16 = 65535;
constexpr uint64_t kBlockBytes = 32;  // DataBlock: the unit of DataCopy lengths and strides

class Evaluator {
 public:
  Evaluator(const std::vector<ScalarValue>& values, const IssueEnv& env, const Site& site)
      : values_(values), env_(env), site_(site) {}

  int64_t Int(uint32_t slot) const {
    if (slot == 0) return 0;
    return AsInt64(values_[slot], env_.program.value_dtypes[slot]);
  }

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
                 uint64_t chunk = 0, uint64_t pitch = 0) {
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
    if (!CheckLocalAccess(*mem, address, span, mem->alignment(), role, site, env.diags)) {
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
  if (!m.params_form) {
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
  uint64_t src_span = chunks > 0 ? (chunks - 1) * src_pitch + chunk : 0;
  uint64_t dst_span = chunks > 0 ? (chunks - 1) * dst_pitch + chunk : 0;
  uint8_t* src_host = nullptr;
  uint8_t* dst_host = nullptr;
  if (!ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src_host, out, chunk,
                   src_pitch)) {
    return false;
  }
  if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst_host, out, chunk,
                   dst_pitch)) {
    return false;
  }
  out->src0 = Transfer{src_host, chunk, src_pitch, chunks};
  out->dst = Transfer{dst_host, chunk, dst_pitch, chunks};
  out->src0_addr = src_addr;
  out->dst_addr = dst_addr;
  out->gm_cache_mode = m.src0.space == MemSpace::kGm ? m.src0.cache_mode : m.dst.cache_mode;
  out->bytes = chunk * chunks;
  out->bursts = chunks;
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
  if (cls == OpClass::kVecCast || cls == OpClass::kVecBinCast ||
      (cls == OpClass::kVecScalarDst && m.src0.dtype != m.dst.dtype)) {
    // Iterations hold 256 bytes of the wider type; each operand packs its own elements.
    g.size[0] = g.esize;
    g.size[1] = g.size[2] = static_cast<uint32_t>(DTypeSize(m.src0.dtype));
    g.esize = std::max(g.size[0], g.size[1]);
  }
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
  // A count-form select runs as one counter-mode instruction over `count` lanes, and leaves
  // normal mode with every lane on, as the library's does (ascendc-semantics.md 5.7).
  if (cls == OpClass::kVecSelect && !m.repeat_form) {
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
  } else if (m.mask_len != 0) {
    int64_t len = ev.Int(m.mask_len);
    if (len < 0) return ev.Fail("field mask = " + std::to_string(len) + " is negative");
    bool counter = reg.counter;
    reg = MaskForLength(static_cast<uint64_t>(len), g.esize, counter);
    reg.counter = counter;
  } else if (m.mask_hi != 0) {
    reg.hi = values[m.mask_hi].u;
    reg.lo = values[m.mask_lo].u;
  }
  if (to_reg) g.dst_bits = true;
  if (!compare) {
    g.counter = reg.counter;
    g.mask_hi = reg.hi;
    g.mask_lo = reg.lo;
    g.count = reg.lo;
  }
  g.repeats =
      g.counter ? (g.count + g.lanes_per_repeat() - 1) / g.lanes_per_repeat() : repeat_times;
  const char* blk_names[3] = {"dst_blk_stride", "src0_blk_stride", "src1_blk_stride"};
  const char* rep_names[3] = {"dst_rep_stride", "src0_rep_stride", "src1_rep_stride"};
  bool one_source = (compare_cls || select) && m.scalar != 0;
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
  if (sel_reg) AddCmpMaskRange(false, out);
  if (select && !sel_reg) {
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
    if (!ResolveSide(*tensors[k], addrs[k], span, {names[k], k == 0}, env, site, &hosts[k], out,
                     chunk, pitch)) {
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

bool BuildVector(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev,
                 const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  OpClass shape = Info(instr.opcode).op_class;
  if (m.repeat_form || shape == OpClass::kVecCompare || shape == OpClass::kVecSelect) {
    bool ok = BuildVectorRepeat(instr, values, ev, env, site, out);
    if (shape == OpClass::kVecSelect && !m.repeat_form) *env.vector_mask = VectorMask{};
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
