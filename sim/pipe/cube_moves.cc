// The cube core's moves on its data movers (DmaPipe): data_copy with Nd2NzParams (GM -> L1 on
// MTE2), load_data 2D (L1 -> L0A/L0B on MTE1, GM -> L0A/L0B on MTE2) and fixpipe (L0C -> GM/L1 on
// FIX). Each reads its source when it starts (unless a timing-only launch skips its element
// math: LaunchContext::skip_payload) and leaves its result for the pipe to write when it
// ends: into a local memory as an image of the destination's span and a byte mask (only the
// bytes the instruction writes land), into GM as chunks (rows of an NZ2ND result, column blocks
// of an NZ one). The layouts' element functions are sim/isa/semantics/cube.h.
#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/core/invariant.h"
#include "sim/pipe/dma_pipe.h"
#include "sim/pipe/launch_context.h"
#include "sim/pipe/pipe_executors.h"

namespace aicore::sim {

// data_copy(L1, GM, Nd2NzParams): the rows of each matrix, read from GM, padded to whole C0
// blocks in L1.
PipeTiming ExecuteNd2Nz(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const cube::Nd2NzArgs a = pipe.cube_args().Get(in.payload_slot).nd2nz;
  pipe.cube_args().Release(in.payload_slot);
  uint64_t span = in.dst.chunk_bytes;
  if (!pipe.ctx().skip_payload) {
    std::memset(scratch + span, 0, span);
    cube::Nd2Nz(a, in.src0.base, scratch, scratch + span);
  }
  uint64_t es = a.esize;
  GmTransfer t;
  t.addr = in.src0_addr;
  t.chunk_bytes = uint64_t{a.d_value} * es;
  t.pitch = uint64_t{a.src_d_value} * es;
  t.chunks = uint64_t{a.n_value} * a.nd_num;
  t.mode = in.gm_cache_mode;
  if (pipe.ctx().gm_check != nullptr) {
    for (uint64_t i = 0; i < a.nd_num; ++i) {
      pipe.ctx().gm_check->OnRead(pipe.Where(in.instr, now),
                                  GmSpan{in.src0_addr + i * a.src_nd_matrix_stride * es,
                                         t.chunk_bytes, t.pitch, a.n_value});
    }
  }
  return pipe.GmMoveTiming(in, t, now);
}

// load_data with LoadData2DParams: whole fractals, from L1 on MTE1 or from GM on MTE2.
PipeTiming ExecuteLoadData2D(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const cube::LoadData2DArgs a = pipe.cube_args().Get(in.payload_slot).load2d;
  pipe.cube_args().Release(in.payload_slot);
  uint64_t span = in.dst.chunk_bytes;
  if (!pipe.ctx().skip_payload) {
    std::memset(scratch + span, 0, span);
    cube::LoadData2D(a, in.src0.base, scratch, scratch + span);
  }
  if (in.transfer != TransferKind::kGmRead) {
    return pipe.LocalMoveTiming(in, now);
  }
  GmTransfer t;
  t.addr = in.src0_addr + uint64_t{a.start_index} * cube::kFractalBytes;
  t.chunk_bytes = cube::kFractalBytes;
  t.pitch = uint64_t{a.src_stride} * cube::kFractalBytes;
  t.chunks = a.repeat_times;
  t.mode = in.gm_cache_mode;
  if (pipe.ctx().gm_check != nullptr) {
    pipe.ctx().gm_check->OnRead(pipe.Where(in.instr, now),
                                GmSpan{t.addr, t.chunk_bytes, t.pitch, t.chunks});
  }
  return pipe.GmMoveTiming(in, t, now);
}

// fixpipe: L0C's m x n block converted; into L1 as an image, into GM as the destination's chunks.
PipeTiming ExecuteFixpipe(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const cube::FixpipeArgs a = pipe.cube_args().Get(in.payload_slot).fixpipe;
  pipe.cube_args().Release(in.payload_slot);
  if (in.transfer != TransferKind::kGmWrite) {
    uint64_t span = in.dst.chunk_bytes;
    if (!pipe.ctx().skip_payload) {
      std::memset(scratch + span, 0, span);
      cube::Fixpipe(a, in.src0.base, scratch, scratch + span);
    }
    return pipe.LocalMoveTiming(in, now);
  }
  // The destination's span as an image, then its chunks back to back.
  static thread_local std::vector<uint8_t> image;
  uint64_t span = in.dst.chunks == 0 ? 0 : (in.dst.chunks - 1) * in.dst.pitch + in.dst.chunk_bytes;
  if (!pipe.ctx().skip_payload) {
    image.assign(2 * span, 0);
    cube::Fixpipe(a, in.src0.base, image.data(), image.data() + span);
    for (uint64_t c = 0; c < in.dst.chunks; ++c) {
      std::memcpy(scratch + c * in.dst.chunk_bytes, image.data() + c * in.dst.pitch,
                  in.dst.chunk_bytes);
    }
  }
  GmTransfer t;
  t.addr = in.dst_addr;
  t.chunk_bytes = in.dst.chunk_bytes;
  t.pitch = in.dst.pitch;
  t.chunks = in.dst.chunks;
  t.write = true;
  t.mode = in.gm_cache_mode;
  return pipe.GmMoveTiming(in, t, now);
}

// init_const_value: blocks of the value, into L1 on MTE2 or L0A/L0B on MTE1.
PipeTiming ExecuteInitConst(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const cube::InitConstArgs a = pipe.cube_args().Get(in.payload_slot).init;
  pipe.cube_args().Release(in.payload_slot);
  uint64_t span = in.dst.chunk_bytes;
  std::memset(scratch + span, 0, span);
  cube::InitConst(a, scratch, scratch + span);
  return pipe.LocalMoveTiming(in, now);
}

// load_data_with_transpose: squares of L1 transposed into L0A/L0B fractals on MTE1.
PipeTiming ExecuteLoadTranspose(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const cube::LoadTransposeArgs a = pipe.cube_args().Get(in.payload_slot).transpose;
  pipe.cube_args().Release(in.payload_slot);
  uint64_t span = in.dst.chunk_bytes;
  if (!pipe.ctx().skip_payload) {
    std::memset(scratch + span, 0, span);
    cube::LoadTranspose(a, in.src0.base, scratch, scratch + span);
  }
  return pipe.LocalMoveTiming(in, now);
}

// load_data with LoadData3DParamsV2 / V2Pro: the im2col block into L0A/L0B fractals on MTE1,
// one burst per destination fractal as load_data 2D.
PipeTiming ExecuteLoadData3D(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch) {
  const cube::LoadData3DArgs a = pipe.cube_args().Get(in.payload_slot).load3d;
  pipe.cube_args().Release(in.payload_slot);
  uint64_t span = in.dst.chunk_bytes;
  if (!pipe.ctx().skip_payload) {
    std::memset(scratch + span, 0, span);
    cube::LoadData3D(a, in.src0.base, scratch, scratch + span);
  }
  return pipe.LocalMoveTiming(in, now);
}

}  // namespace aicore::sim
