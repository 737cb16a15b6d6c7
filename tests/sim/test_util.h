// Shared helpers of the simulator tests: config loading, decoding, a tutorial-style vector add
// kernel (pyasc tutorial 01: GM->UB copies, add, UB->GM copy, flags per tile), half helpers.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "sim/bridge/bridge.h"
#include "sim/core/cycle.h"
#include "sim/isa/fp16.h"
#include "sim/isa/program.h"
#include "sim/soc/device.h"
#include "tests/sim/ir_builder.h"

namespace aicore::sim::testing {

// HardEvent values (hardware-910b.md 3.3).
inline constexpr uint32_t kMte2V = 4;
inline constexpr uint32_t kVMte2 = 5;
inline constexpr uint32_t kMte3V = 6;
inline constexpr uint32_t kVMte3 = 7;
inline constexpr uint32_t kVV = 10;
inline constexpr uint32_t kMte3Mte2 = 19;
inline constexpr uint32_t kMte2Mte3 = 20;
inline constexpr uint32_t kVS = 22;
inline constexpr uint32_t kSV = 21;
inline constexpr uint32_t kMte2S = 24;
inline constexpr uint32_t kSMte3 = 25;

inline SocConfig Config(const std::string& platform = "Ascend910B1") {
  StatusOr<SocConfig> c = LoadSocConfig(platform);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : SocConfig();
}

inline std::shared_ptr<const Program> Decode(const ir::Kernel& k) {
  auto p = DecodeKernel(k);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? *p : nullptr;
}

struct AddKernelOptions {
  ir::DType dtype = ir::DT_FLOAT16;
  int64_t block_len = 2048;       // elements per block
  int64_t tile_len = 512;         // elements per tile
  bool skip_mte2_v_wait = false;  // the bug under test: no wait before the add
  bool flags = true;              // false: no set_flag/wait_flag at all (static tensors only)

  // Without auto_sync, a kernel built with either bug races (and the race checker says so).
  bool ExhibitsRace() const { return skip_mte2_v_wait || !flags; }
};

inline uint32_t ElementBytes(ir::DType t) {
  return t == ir::DT_FLOAT16 || t == ir::DT_INT16 ? 2 : 4;
}

// Lines: 10 copy-in x, 11 copy-in y, 12 set MTE2_V, 13 wait MTE2_V, 14 add, 15 set V_MTE3,
// 16 wait V_MTE3, 17 copy-out, 18 set MTE3_MTE2, 19 wait MTE3_MTE2.
inline ir::Kernel AddKernel(const AddKernelOptions& o) {
  KernelBuilder b("vadd", "add.py");
  uint32_t esize = ElementBytes(o.dtype);
  uint32_t x = b.PointerParam("x", o.dtype);
  uint32_t y = b.PointerParam("y", o.dtype);
  uint32_t z = b.PointerParam("z", o.dtype);
  b.At(5);
  uint32_t block = b.Sys(ir::SysValueOp::BLOCK_IDX);
  uint32_t base = b.Mul(block, b.Const(o.block_len));
  int64_t tile_bytes = o.tile_len * esize;
  uint32_t count = b.Const(o.tile_len, ir::DT_INT32);
  uint32_t tiles = b.Const(o.block_len / o.tile_len);
  uint32_t two = b.Const(2);
  uint32_t tb = b.Const(tile_bytes);
  uint32_t ub_x = b.Const(0);
  uint32_t ub_y = b.Const(2 * tile_bytes);
  uint32_t ub_z = b.Const(4 * tile_bytes);
  auto loop = b.BeginFor(b.Const(0), tiles, b.Const(1));
  uint32_t buf = b.Binary(ir::ScalarBinaryOp::MOD, ir::DT_INT64, loop.iv, two);
  uint32_t off = b.Add(base, b.Mul(loop.iv, b.Const(o.tile_len)));
  uint32_t ub_off = b.Mul(buf, tb);
  uint32_t ux = b.Add(ub_x, ub_off), uy = b.Add(ub_y, ub_off), uz = b.Add(ub_z, ub_off);
  uint32_t gx = b.GmAddr(x, off, esize), gy = b.GmAddr(y, off, esize), gz = b.GmAddr(z, off, esize);
  b.At(10).DataCopy(KernelBuilder::Ub(ux, o.dtype, ir::POS_VECIN), KernelBuilder::Gm(gx, o.dtype),
                    count);
  b.At(11).DataCopy(KernelBuilder::Ub(uy, o.dtype, ir::POS_VECIN), KernelBuilder::Gm(gy, o.dtype),
                    count);
  if (o.flags) b.At(12).SetFlag(kMte2V, buf);
  if (o.flags && !o.skip_mte2_v_wait) b.At(13).WaitFlag(kMte2V, buf);
  b.At(14).VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(uz, o.dtype, ir::POS_VECOUT),
                     KernelBuilder::Ub(ux, o.dtype, ir::POS_VECIN),
                     KernelBuilder::Ub(uy, o.dtype, ir::POS_VECIN), count);
  if (o.flags) {
    b.At(15).SetFlag(kVMte3, buf);
    b.At(16).WaitFlag(kVMte3, buf);
  }
  b.At(17).DataCopy(KernelBuilder::Gm(gz, o.dtype), KernelBuilder::Ub(uz, o.dtype, ir::POS_VECOUT),
                    count);
  if (o.flags) {
    b.At(18).SetFlag(kMte3Mte2, buf);
    b.At(19).WaitFlag(kMte3Mte2, buf);
  }
  b.EndFor();
  if (o.flags && o.skip_mte2_v_wait) {
    // Keep the flags balanced so only the data race remains.
    b.At(20).WaitFlag(kMte2V, b.Const(0));
    if (o.block_len / o.tile_len > 1) b.WaitFlag(kMte2V, b.Const(1));
  }
  return b.Build();
}

// Device buffers of `n` elements of raw 16/32-bit values.
template <typename T>
uint64_t Upload(Device& d, const std::vector<T>& v) {
  StatusOr<uint64_t> a = d.Malloc(v.size() * sizeof(T));
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(d.Write(*a, v.data(), v.size() * sizeof(T)).ok());
  return *a;
}
template <typename T>
std::vector<T> Download(const Device& d, uint64_t addr, size_t n) {
  std::vector<T> v(n);
  EXPECT_TRUE(d.Read(addr, v.data(), n * sizeof(T)).ok());
  return v;
}

inline const PipeStats* FindPipe(const CoreStats& c, const std::string& name) {
  for (const PipeStats& p : c.pipes) {
    if (p.pipe == name) return &p;
  }
  return nullptr;
}

// Whole cycles of a fractional cost, as the engine rounds them.
inline uint64_t Ceil(double x) { return CeilCycles(x).value(); }

// The first timeline record of `op` at source line `line`, or nullptr.
inline const InstrRecord* Find(const LaunchResult& r, const std::string& op, uint32_t line) {
  for (const InstrRecord& rec : r.timeline) {
    if (rec.op == op && rec.location.line == line) return &rec;
  }
  return nullptr;
}

// The standing rule (docs/checkers.md): a test kernel that is not written to exhibit a fault
// runs clean under strict checking, no race and no error. Helpers launch with `Strict()` and
// check the result with `ExpectStrictClean`.
inline LaunchOptions Strict(LaunchOptions options = {}) {
  options.check = CheckLevel::kStrict;
  return options;
}

inline void ExpectStrictClean(const LaunchResult& r) {
  std::string found;
  for (const Diagnostic& d : r.diagnostics) found += "\n  " + d.message;
  EXPECT_FALSE(r.check.Fails()) << "the kernel is not clean under strict checking: "
                                << r.check.Text() << found;
}

// Launches `k` with the timeline recorded; the launch must succeed without a kernel fault and,
// unless the kernel is written to exhibit a race (`exhibits_race`), clean under strict checking.
inline LaunchResult RunTimed(Device& device, const ir::Kernel& k, uint32_t blocks,
                             const std::vector<ArgValue>& args, bool exhibits_race = false) {
  auto program = Decode(k);
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto r = device.Launch(*program, blocks, args, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, LaunchResult::Status::kOk);
  if (!exhibits_race) ExpectStrictClean(*r);
  return *r;
}

}  // namespace aicore::sim::testing
