// Issue of the rearrangement instructions (asc-api.md 4.11; see issue_internal.h): brcb, gather,
// gatherb, scatter, gather_mask, transpose, trans_data_to_5hd.
#include <algorithm>
#include <cstring>
#include <string>

#include "sim/core/invariant.h"
#include "sim/pipe/issue_internal.h"

namespace aicore::sim::issue {
namespace {

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

}  // namespace

bool BuildMove(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev,
               const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  SIM_CHECK(m.move != 0, "a rearrangement without its operands reached the issue stage");
  const MoveInfo& mv = env.program.move_ops[m.move - 1];
  LocalMemory* ub = env.memories.Find(MemSpace::kUb);
  SIM_CHECK(ub != nullptr, "a rearrangement issued on a core without UB");
  const uint64_t ub_end = ub->capacity();
  SIM_CHECK(env.moves != nullptr, "a rearrangement issued on a core without a payload pool");
  MoveArgs& a = env.moves->Acquire(&out->payload_slot);
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
      // Timed as repeats of the vector unit's width over the bytes it transposes.
      rep_units = (bytes + env.config.vector_repeat_bytes - 1) / env.config.vector_repeat_bytes;
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

}  // namespace aicore::sim::issue
