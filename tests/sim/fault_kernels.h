// Small kernels written to exhibit one fault or finding each, shared by the tests of the
// diagnostics that name them (diagnostics_test, race_test) and their golden messages
// (diagnostic_golden_test).
#pragma once

#include "tests/sim/test_util.h"

namespace aicore::sim::testing {

inline ir::Kernel CopyToUb(int64_t ub_addr, int64_t elements) {
  KernelBuilder b("ub_overflow", "ub.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t ub = b.Const(ub_addr);
  uint32_t n = b.Const(elements, ir::DT_INT32);
  b.At(12).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  return b.Build();
}

inline ir::Kernel CopyFromGm(int64_t element_offset, int64_t elements) {
  KernelBuilder b("gm", "gm.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
  uint32_t gx = b.GmAddr(x, b.Const(element_offset), 4);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(elements, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.At(20).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(gx, ir::DT_FLOAT32),
                    n);
  b.SetFlag(20 /* MTE2_MTE3 */, id);
  b.WaitFlag(20, id);
  b.At(23).DataCopy(KernelBuilder::Gm(y, ir::DT_FLOAT32), KernelBuilder::Ub(ub, ir::DT_FLOAT32), n);
  return b.Build();
}

// Two MTE2 copies into one UB range: the engine may overlap them, so the second can land first.
inline ir::Kernel TwoCopiesInto(bool barrier) {
  KernelBuilder b("overlap", "overlap.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT16);
  uint32_t n = b.Const(512, ir::DT_INT32);
  uint32_t ub = b.Const(0);
  b.At(3).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT16), KernelBuilder::Gm(x, ir::DT_FLOAT16), n);
  if (barrier) b.At(4).Barrier(ir::PIPE_MTE2);
  b.At(5).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT16),
                   KernelBuilder::Gm(b.GmAddr(x, b.Const(1024), 2), ir::DT_FLOAT16), n);
  return b.Build();
}

// exp(x) -> y, then y + y -> z on PIPE_V: the add can start before exp has written y.
inline ir::Kernel DependentVectorOps(bool barrier) {
  KernelBuilder b("dep", "dep.py");
  uint32_t n = b.Const(64, ir::DT_INT32);
  uint32_t x = b.Const(0), y = b.Const(256), z = b.Const(512);
  b.At(2).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(x, ir::DT_FLOAT32),
                   KernelBuilder::Ub(x, ir::DT_FLOAT32), n);
  b.Barrier(ir::PIPE_V);
  b.At(3).VecUnary(ir::VecUnaryOp::EXP, KernelBuilder::Ub(y, ir::DT_FLOAT32),
                   KernelBuilder::Ub(x, ir::DT_FLOAT32), n);
  if (barrier) b.At(4).Barrier(ir::PIPE_V);
  b.At(5).VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(z, ir::DT_FLOAT32),
                    KernelBuilder::Ub(y, ir::DT_FLOAT32), KernelBuilder::Ub(y, ir::DT_FLOAT32), n);
  return b.Build();
}

// Every block copies x[0:64) in, adds a scalar and writes z[0:64): the same GM range from every
// core. `per_core` adds the block index (different bytes per core), else 1 (identical bytes).
inline ir::Kernel EveryCoreWritesOneRange(bool per_core) {
  KernelBuilder b("shared", "shared.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  uint32_t n = b.Const(64, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  uint32_t in = b.Const(0), out = b.Const(256);
  uint32_t scalar = per_core
                        ? b.Cast(b.Sys(ir::SysValueOp::BLOCK_IDX), ir::DT_INT64, ir::DT_FLOAT32)
                        : b.ConstF(1.0);
  b.At(3).DataCopy(KernelBuilder::Ub(in, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.SetFlag(kMte2V, id);
  b.WaitFlag(kMte2V, id);
  b.At(5).VecScalar(ir::VecScalarOp::ADDS, KernelBuilder::Ub(out, ir::DT_FLOAT32),
                    KernelBuilder::Ub(in, ir::DT_FLOAT32), scalar, n);
  b.SetFlag(kVMte3, id);
  b.WaitFlag(kVMte3, id);
  b.At(7).DataCopy(KernelBuilder::Gm(z, ir::DT_FLOAT32), KernelBuilder::Ub(out, ir::DT_FLOAT32), n);
  return b.Build();
}

// Block b copies `tile` floats of x from element min(b, last) * stride into UB and, when
// `write_back` says so for b (every block: -1; one block: its index), copies them out to z at
// that offset, as pyasc's whole-tile kernels do: with stride < tile, neighbouring blocks write
// overlapping ranges of z with identical bytes. Lines: 3 the copy in, 5 the copy out.
inline ir::Kernel OverlappingTiles(int64_t stride, int64_t tile, int64_t last = INT32_MAX,
                                   int64_t write_back = -1) {
  KernelBuilder b("tiles", "tiles.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  uint32_t block = b.Sys(ir::SysValueOp::BLOCK_IDX);
  uint32_t at = b.Binary(ir::ScalarBinaryOp::MIN, ir::DT_INT64, block, b.Const(last));
  uint32_t offset = b.Mul(at, b.Const(stride));
  uint32_t n = b.Const(tile, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  uint32_t ub = b.Const(0);
  b.At(3).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32),
                   KernelBuilder::Gm(b.GmAddr(x, offset, 4), ir::DT_FLOAT32), n);
  b.SetFlag(kMte2Mte3, id);
  b.WaitFlag(kMte2Mte3, id);
  if (write_back >= 0) {
    b.BeginIf(b.Binary(ir::ScalarBinaryOp::EQ, ir::DT_INT64, block, b.Const(write_back)));
  }
  b.At(5).DataCopy(KernelBuilder::Gm(b.GmAddr(z, offset, 4), ir::DT_FLOAT32),
                   KernelBuilder::Ub(ub, ir::DT_FLOAT32), n);
  if (write_back >= 0) b.EndIf();
  return b.Build();
}

}  // namespace aicore::sim::testing
