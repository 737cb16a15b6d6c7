// data_copy semantics (asc-api.md 4.2): the count form moves only whole 32-byte blocks; the
// params form copies block_count chunks of block_len blocks with end-to-start gaps on both
// sides; UB -> UB copies run on PIPE_V. Also vec_scalar's conversion of the scalar.
#include <gtest/gtest.h>

#include <numeric>

#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

using KB = KernelBuilder;

struct Io {
  std::vector<float> y;
  LaunchResult result;
};

// Builds: GM x -> UB (body), then UB -> GM y of `out_elements` (count form), and runs it.
template <typename Body>
Io RunCopy(const std::vector<float>& x, int64_t out_elements, Body body) {
  KernelBuilder b("copy", "copy.py");
  uint32_t gx = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t gy = b.PointerParam("y", ir::DT_FLOAT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  body(b, gx);
  b.SetFlag(kMte2V, id);
  b.WaitFlag(kMte2V, id);
  b.SetFlag(kVMte3, id);
  b.WaitFlag(kVMte3, id);
  b.DataCopy(KB::Gm(gy, ir::DT_FLOAT32), KB::Ub(b.Const(0), ir::DT_FLOAT32),
             b.Const(out_elements, ir::DT_INT32));
  Device device(Config());
  uint64_t ax = Upload(device, x);
  uint64_t ay = Upload(device, std::vector<float>(out_elements, -1.0f));
  auto program = Decode(b.Build());
  auto r = device.Launch(*program, 1, {ArgValue::Address(ax), ArgValue::Address(ay)}, Strict());
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok() && r->status == LaunchResult::Status::kOk) ExpectStrictClean(*r);
  return Io{Download<float>(device, ay, out_elements), *r};
}

std::vector<float> Iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

TEST(DataCopy, CountFormMovesOnlyWholeBlocks) {
  // 13 floats = 52 bytes: one 32-byte block (8 floats) moves, the partial block does not.
  Io io = RunCopy(Iota(16), 16, [](KernelBuilder& b, uint32_t gx) {
    b.DataCopy(KB::Ub(b.Const(0), ir::DT_FLOAT32), KB::Gm(gx, ir::DT_FLOAT32),
               b.Const(13, ir::DT_INT32));
  });
  ASSERT_EQ(io.result.status, LaunchResult::Status::kOk);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(io.y[i], i + 1.0f) << i;
  for (int i = 8; i < 16; ++i) EXPECT_EQ(io.y[i], 0.0f) << i;  // UB's initial zeros
  EXPECT_EQ(FindPipe(io.result.cores[0], "MTE2")->bytes, 32u);
}

TEST(DataCopy, ParamsFormChunksAndGapsOnBothSides) {
  // 3 chunks of 1 block; the GM side skips 1 block after each chunk, the UB side 2 blocks:
  // chunk c reads x[16c, 16c + 8) and lands at UB float 24c.
  Io io = RunCopy(Iota(64), 56, [](KernelBuilder& b, uint32_t gx) {
    b.DataCopyParams(KB::Ub(b.Const(0), ir::DT_FLOAT32), KB::Gm(gx, ir::DT_FLOAT32),
                     b.Const(3, ir::DT_INT32), b.Const(1, ir::DT_INT32), b.Const(1, ir::DT_INT32),
                     b.Const(2, ir::DT_INT32));
  });
  ASSERT_EQ(io.result.status, LaunchResult::Status::kOk);
  for (int c = 0; c < 3; ++c) {
    for (int i = 0; i < 8; ++i) EXPECT_EQ(io.y[24 * c + i], 16 * c + i + 1.0f) << c << "," << i;
    if (c < 2) {
      for (int i = 8; i < 24; ++i) EXPECT_EQ(io.y[24 * c + i], 0.0f) << c << "," << i;
    }
  }
  EXPECT_EQ(FindPipe(io.result.cores[0], "MTE2")->bytes, 96u);
}

TEST(DataCopy, ParamsFormRangesAreChecked) {
  Io io = RunCopy(Iota(64), 8, [](KernelBuilder& b, uint32_t gx) {
    b.At(9).DataCopyParams(KB::Ub(b.Const(0), ir::DT_FLOAT32), KB::Gm(gx, ir::DT_FLOAT32),
                           b.Const(4096, ir::DT_INT32), b.Const(1, ir::DT_INT32),
                           b.Const(0, ir::DT_INT32), b.Const(0, ir::DT_INT32));
  });
  ASSERT_EQ(io.result.status, LaunchResult::Status::kKernelFault);
  ASSERT_FALSE(io.result.diagnostics.empty());
  EXPECT_NE(io.result.diagnostics[0].message.find("block_count = 4096 is out of range [0, 4095]"),
            std::string::npos)
      << io.result.diagnostics[0].message;
  EXPECT_EQ(io.result.diagnostics[0].location.line, 9u);
}

TEST(DataCopy, UbToUbRunsOnTheVectorPipe) {
  // x -> UB[1024..], then UB[1024..] -> UB[0..] on PIPE_V (ordered after MTE2 by a flag pair).
  Io io = RunCopy(Iota(32), 32, [](KernelBuilder& b, uint32_t gx) {
    uint32_t id = b.Const(1, ir::DT_INT32);
    uint32_t hi = b.Const(1024);
    uint32_t n = b.Const(32, ir::DT_INT32);
    b.DataCopy(KB::Ub(hi, ir::DT_FLOAT32), KB::Gm(gx, ir::DT_FLOAT32), n);
    b.SetFlag(kMte2V, id);
    b.WaitFlag(kMte2V, id);
    b.DataCopy(KB::Ub(b.Const(0), ir::DT_FLOAT32), KB::Ub(hi, ir::DT_FLOAT32), n);
  });
  ASSERT_EQ(io.result.status, LaunchResult::Status::kOk);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(io.y[i], i + 1.0f);
  EXPECT_EQ(FindPipe(io.result.cores[0], "V")->bytes, 128u);
}

TEST(VecScalar, ScalarIsConvertedToTheTensorTypeFirst) {
  // muls on int32 by the float32 scalar 2.75: the scalar becomes int32 2 (truncation) first.
  KernelBuilder b("muls", "m.py");
  uint32_t gx = b.PointerParam("x", ir::DT_INT32);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(8, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.DataCopy(KB::Ub(ub, ir::DT_INT32), KB::Gm(gx, ir::DT_INT32), n);
  b.SetFlag(kMte2V, id);
  b.WaitFlag(kMte2V, id);
  b.VecScalar(ir::VecScalarOp::MULS, KB::Ub(ub, ir::DT_INT32), KB::Ub(ub, ir::DT_INT32),
              b.ConstF(2.75), n);
  b.SetFlag(kVMte3, id);
  b.WaitFlag(kVMte3, id);
  b.DataCopy(KB::Gm(gx, ir::DT_INT32), KB::Ub(ub, ir::DT_INT32), n);
  Device device(Config());
  uint64_t ax = Upload(device, std::vector<int32_t>{1, -3, 5, 7, 100, 0, -1, 1 << 30});
  auto r = device.Launch(*Decode(b.Build()), 1, {ArgValue::Address(ax)}, Strict());
  ASSERT_TRUE(r.ok());
  ExpectStrictClean(*r);
  EXPECT_EQ(Download<int32_t>(device, ax, 8),
            (std::vector<int32_t>{2, -6, 10, 14, 200, 0, -2, INT32_MIN}));  // 2^31 wraps
}

}  // namespace
}  // namespace aicore::sim::testing
