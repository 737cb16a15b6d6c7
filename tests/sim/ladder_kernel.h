// The streaming fp16 Add of the Ascend C "Add" best-practice ladder (hardware-910b.md 7), built
// in IR for timing tests and for the C++ calibration driver; bench/calibrate.py writes the same
// kernel with the asc Python API. Tutorial style: static UB tensors, set_flag/wait_flag between
// MTE2, V and MTE3, `buffers` ping-pong buffers per operand, tiles split evenly over the cores.
#pragma once

#include <cstdint>

#include "tests/sim/ir_builder.h"

namespace aicore::sim::testing {

struct LadderOptions {
  int64_t total = 8192 * 8192;  // fp16 elements per tensor
  int64_t tile = 4096;          // elements per tile and buffer
  int64_t buffers = 1;          // 1 = single buffer, 2 = double buffer
  bool bypass_l2 = false;       // CACHE_MODE_DISABLE on x, y and z
  // Tutorial layout puts x, y and z at multiples of the tile size, so x and y share bank groups;
  // this shifts y (and z behind it) by 256 B so every repeat reads 16 distinct groups.
  bool conflict_free = false;
};

// HardEvent values (hardware-910b.md 3.3); test_util.h has the same constants.
inline constexpr uint32_t kLadderMte2V = 4, kLadderVMte2 = 5, kLadderMte3V = 6, kLadderVMte3 = 7;

// Core c handles tiles [c * n / cores, (c + 1) * n / cores). Lines: 10 wait V_MTE2, 11/12
// copy-in x/y, 13 set MTE2_V, 14 wait MTE2_V, 15 wait MTE3_V, 16 add, 17 set V_MTE2, 18 set
// V_MTE3, 19 wait V_MTE3, 20 copy-out, 21 set MTE3_V.
inline ir::Kernel LadderKernel(const LadderOptions& o) {
  const ir::DType t = ir::DT_FLOAT16;
  const int64_t tile_bytes = o.tile * 2;
  const int64_t shift = o.conflict_free ? 256 : 0;
  KernelBuilder b("add_ladder", "calibrate.py");
  uint32_t x = b.PointerParam("x", t);
  uint32_t y = b.PointerParam("y", t);
  uint32_t z = b.PointerParam("z", t);
  b.At(5);
  uint32_t core = b.Sys(ir::SysValueOp::BLOCK_IDX);
  uint32_t cores = b.Sys(ir::SysValueOp::BLOCK_NUM);
  uint32_t tiles = b.Const(o.total / o.tile);
  uint32_t first = b.Binary(ir::ScalarBinaryOp::DIV, ir::DT_INT64, b.Mul(core, tiles), cores);
  uint32_t last =
      b.Binary(ir::ScalarBinaryOp::DIV, ir::DT_INT64, b.Mul(b.Add(core, b.Const(1)), tiles), cores);
  uint32_t count = b.Const(o.tile, ir::DT_INT32);
  uint32_t nbuf = b.Const(o.buffers);
  uint32_t tb = b.Const(tile_bytes);
  uint32_t ub_x = b.Const(0);
  uint32_t ub_y = b.Const(o.buffers * tile_bytes + shift);
  uint32_t ub_z = b.Const(2 * o.buffers * tile_bytes + 2 * shift);
  std::vector<uint32_t> ids;
  for (int64_t i = 0; i < o.buffers; ++i) ids.push_back(b.Const(i, ir::DT_INT32));
  b.At(6);
  for (uint32_t id : ids) {
    b.SetFlag(kLadderVMte2, id);
    b.SetFlag(kLadderMte3V, id);
  }
  auto gm = [&](uint32_t addr) {
    ir::TensorRef r = KernelBuilder::Gm(addr, t);
    if (o.bypass_l2) r.set_cache_mode(ir::CACHE_MODE_DISABLE);
    return r;
  };
  auto loop = b.BeginFor(first, last, b.Const(1));
  uint32_t buf = b.Binary(ir::ScalarBinaryOp::MOD, ir::DT_INT64, loop.iv, nbuf);
  uint32_t id = b.Cast(buf, ir::DT_INT64, ir::DT_INT32);
  uint32_t off = b.Mul(loop.iv, b.Const(o.tile));
  uint32_t ub_off = b.Mul(buf, tb);
  uint32_t ux = b.Add(ub_x, ub_off), uy = b.Add(ub_y, ub_off), uz = b.Add(ub_z, ub_off);
  uint32_t gx = b.GmAddr(x, off, 2), gy = b.GmAddr(y, off, 2), gz = b.GmAddr(z, off, 2);
  b.At(10).WaitFlag(kLadderVMte2, id);
  b.At(11).DataCopy(KernelBuilder::Ub(ux, t, ir::POS_VECIN), gm(gx), count);
  b.At(12).DataCopy(KernelBuilder::Ub(uy, t, ir::POS_VECIN), gm(gy), count);
  b.At(13).SetFlag(kLadderMte2V, id);
  b.At(14).WaitFlag(kLadderMte2V, id);
  b.At(15).WaitFlag(kLadderMte3V, id);
  b.At(16).VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(uz, t, ir::POS_VECOUT),
                     KernelBuilder::Ub(ux, t, ir::POS_VECIN),
                     KernelBuilder::Ub(uy, t, ir::POS_VECIN), count);
  b.At(17).SetFlag(kLadderVMte2, id);
  b.At(18).SetFlag(kLadderVMte3, id);
  b.At(19).WaitFlag(kLadderVMte3, id);
  b.At(20).DataCopy(gm(gz), KernelBuilder::Ub(uz, t, ir::POS_VECOUT), count);
  b.At(21).SetFlag(kLadderMte3V, id);
  b.EndFor();
  b.At(25);
  for (uint32_t i : ids) {
    b.WaitFlag(kLadderVMte2, i);
    b.WaitFlag(kLadderMte3V, i);
  }
  return b.Build();
}

}  // namespace aicore::sim::testing
