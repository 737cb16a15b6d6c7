// The bilinear_interpolation family (asc-api.md 4.5), the layout row kVecBilinear of
// sim/isa/layouts.def: its issue-stage builder and its PIPE_V executor. Per vertical step, the
// horizontal steps' gathered vectors times their scalars are summed into one 128-lane window of
// dst. The offsets are read when the instruction starts, like every source; one pass of the
// pipeline per step. Decoding is sim/bridge/decode_bilinear.cc, the element function
// VecBilinearInterpolation (sim/isa/semantics/binary.cc), the API asc/language/basic/bilinear.py.
#include <cstring>
#include <string>

#include "sim/check/diagnostics.h"
#include "sim/core/invariant.h"
#include "sim/pipe/issue_internal.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/pipe_executors.h"
#include "sim/pipe/vector_mask.h"
#include "sim/pipe/vector_pipe.h"

namespace aicore::sim {

namespace issue {

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

}  // namespace issue

PipeTiming ExecuteBilinear(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const Instr& instr = *in.instr;
  const VecGeometry& g = in.geo;
  const BilinearShape& b = in.bilinear;
  uint64_t span = in.dst.chunk_bytes;
  uint8_t* image = scratch;
  uint8_t* written = scratch + span;
  std::memset(written, 0, span);
  constexpr uint64_t kRepeatBytes = kVectorRepeatBlocks * kVectorBlockBytes;
  alignas(8) uint8_t gathered[kRepeatBytes];
  alignas(8) uint8_t scalars[kRepeatBytes];
  alignas(8) uint8_t sum[kRepeatBytes];
  alignas(8) uint8_t result[kRepeatBytes];
  uint32_t lanes = g.lanes_per_repeat();
  uint32_t esize = g.esize;
  uint32_t per_block = g.lanes_per_block();
  for (uint64_t v = 0; span > 0 && v < b.v_repeat; ++v) {
    for (uint64_t h = 0; h < b.h_repeat; ++h) {
      uint64_t step = v * b.h_repeat + h;
      for (uint64_t blk = 0; blk < kVectorRepeatBlocks; ++blk) {
        uint64_t entry = step * kVectorRepeatBlocks + blk;
        uint32_t offset = 0;
        std::memcpy(&offset, in.sel.base + entry * sizeof(uint32_t), sizeof(uint32_t));
        if (uint64_t{offset} + kVectorBlockBytes > in.src0.chunk_bytes) {
          pipe.FaultOutOfBounds(
              instr, now,
              "src0_offset[" + std::to_string(entry) + "] = " + std::to_string(offset) +
                  " selects a 32-byte block past src0's " + std::to_string(in.src0.chunk_bytes) +
                  " bytes. Fix: the offsets are byte offsets of blocks inside src0.");
          return PipeTiming{now + Cycle(1), now + Cycle(1)};
        }
        std::memcpy(gathered + blk * kVectorBlockBytes, in.src0.base + offset, kVectorBlockBytes);
        uint64_t which = b.per_block ? entry : step;
        for (uint32_t e = 0; e < per_block; ++e) {
          std::memcpy(scalars + (blk * per_block + e) * esize, in.src1.base + which * esize, esize);
        }
      }
      Info(instr.opcode)
          .semantics(VecOperands{instr.dtype, gathered, scalars, result, lanes, 0,
                                 h == 0 ? nullptr : sum, instr.src_dtype, instr.kind});
      std::memcpy(sum, result, sizeof(sum));
    }
    if (b.h_repeat == 0) continue;
    for (uint32_t e = 0; e < lanes; ++e) {
      if (!g.Active(v, e)) continue;
      uint64_t at = v * b.v_offset_bytes + g.Offset(0, 0, e);
      std::memcpy(image + at, sum + e * esize, esize);
      std::memset(written + at, 1, esize);
    }
  }
  return pipe.Timing(pipe.ctx().costs.Vector(instr.opcode, instr.dtype), b.h_repeat * b.v_repeat,
                     b.h_repeat * b.v_repeat, now);
}

}  // namespace aicore::sim
