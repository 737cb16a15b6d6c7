// bilinear_interpolation on PIPE_V (asc-api.md 4.5): per vertical step, the horizontal steps'
// gathered vectors times their scalars summed into one 128-lane window of dst. The offsets are
// read when the instruction starts, like every source; one pass of the pipeline per step.
#include <cstring>
#include <string>

#include "sim/check/diagnostics.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/vector_mask.h"
#include "sim/pipe/vector_pipe.h"

namespace aicore::sim {

PipeTiming VectorPipe::ExecuteBilinear(const IssuedInstr& in, Cycle now, uint8_t* scratch) {
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
          FaultOutOfBounds(
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
  return Timing(ctx_.costs.Vector(instr.opcode, instr.dtype), b.h_repeat * b.v_repeat,
                b.h_repeat * b.v_repeat, now);
}

}  // namespace aicore::sim
