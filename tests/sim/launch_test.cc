// End-to-end launches of the tutorial vector add (fp16 and fp32 on 8 cores), waves when
// block_dim exceeds the core count, the stale answer of a kernel with a missing wait_flag, and
// determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <random>

#include "report.pb.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

std::vector<uint16_t> RandomHalves(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<uint16_t> v(n);
  for (auto& h : v) h = FloatToHalf(dist(rng));
  return v;
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1e3f, 1e3f);
  std::vector<float> v(n);
  for (auto& f : v) f = dist(rng);
  return v;
}

struct AddRun {
  LaunchResult result;
  std::vector<uint8_t> z;
};

template <typename T>
AddRun RunAdd(const AddKernelOptions& o, uint32_t blocks, const std::vector<T>& x,
              const std::vector<T>& y, const std::string& platform = "Ascend910B1") {
  Device device(Config(platform));
  auto program = Decode(AddKernel(o));
  uint64_t gx = Upload(device, x), gy = Upload(device, y);
  uint64_t gz = Upload(device, std::vector<T>(x.size(), T{}));
  auto r = device.Launch(*program, blocks,
                         {ArgValue::Address(gx), ArgValue::Address(gy), ArgValue::Address(gz)},
                         Strict());
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok() && !o.ExhibitsRace()) ExpectStrictClean(*r);
  AddRun run;
  run.result = *r;
  run.z = Download<uint8_t>(device, gz, x.size() * sizeof(T));
  return run;
}

TEST(VectorAdd, Fp16OnEightCoresIsBitExact) {
  AddKernelOptions o;
  o.dtype = ir::DT_FLOAT16;
  const uint32_t blocks = 8;
  size_t n = blocks * o.block_len;
  auto x = RandomHalves(n, 1), y = RandomHalves(n, 2);
  AddRun run = RunAdd(o, blocks, x, y);
  ASSERT_EQ(run.result.status, LaunchResult::Status::kOk);
  EXPECT_TRUE(run.result.diagnostics.empty()) << run.result.diagnostics[0].message;
  std::vector<uint16_t> z(n);
  std::memcpy(z.data(), run.z.data(), n * 2);
  for (size_t i = 0; i < n; ++i) {
    // The exact sum of two halves fits a double, so one rounding gives the IEEE half answer.
    uint16_t want = DoubleToHalf(static_cast<double>(HalfToFloat(x[i])) + HalfToFloat(y[i]));
    ASSERT_EQ(z[i], want) << "element " << i;
  }
  ASSERT_EQ(run.result.cores.size(), blocks);
  for (uint32_t b = 0; b < blocks; ++b) {
    const CoreStats& c = run.result.cores[b];
    EXPECT_EQ(c.block_idx, b);
    EXPECT_EQ(c.core, b);
    EXPECT_EQ(c.core_type, "aiv");
    EXPECT_EQ(FindPipe(c, "MTE2")->bytes, 2u * o.block_len * 2);
    EXPECT_EQ(FindPipe(c, "MTE3")->bytes, 1u * o.block_len * 2);
    // Per tile on V: wait_flag(MTE2_V), add, set_flag(V_MTE3).
    EXPECT_EQ(FindPipe(c, "V")->instructions, 3u * (o.block_len / o.tile_len));
    EXPECT_GT(FindPipe(c, "V")->busy_cycles, 0u);
    EXPECT_GT(FindPipe(c, "V")->wait_flag_cycles, 0u);
    EXPECT_LE(c.cycles + Config().LaunchOverhead(blocks), run.result.cycles);
  }
  EXPECT_EQ(run.result.block_dim, blocks);
  EXPECT_EQ(run.result.platform, "Ascend910B1");
  EXPECT_DOUBLE_EQ(run.result.duration_us, run.result.cycles / run.result.clock_mhz);
}

// The pipe with the most busy cycles, the scalar unit included.
std::string Busiest(const CoreStats& c) {
  const PipeStats* best = nullptr;
  for (const PipeStats& p : c.pipes) {
    if (best == nullptr || p.busy_cycles > best->busy_cycles) best = &p;
  }
  return best == nullptr ? "" : best->pipe;
}

TEST(BoundPipe, ACopyBoundAddIsBoundByMte2AndAComputeLoopByV) {
  AddKernelOptions o;
  o.dtype = ir::DT_FLOAT32;
  size_t n = 4 * o.block_len;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  AddRun run = RunAdd(o, 4, x, y);
  ASSERT_EQ(run.result.cores.size(), 4u);
  for (const CoreStats& c : run.result.cores) {
    EXPECT_EQ(c.bound_pipe, Busiest(c));
    EXPECT_EQ(c.bound_pipe, "MTE2");  // two copies in per tile, one add
  }
  EXPECT_EQ(run.result.bound_pipe, "MTE2");

  // 64 fp32 in, then 200 dependent adds on PIPE_V: the vector pipe bounds it.
  KernelBuilder b("adds");
  uint32_t xp = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t zp = b.PointerParam("z", ir::DT_FLOAT32);
  uint32_t count = b.Const(64), at = b.Const(0), out = b.Const(256);
  b.DataCopy(KernelBuilder::Ub(at, ir::DT_FLOAT32), KernelBuilder::Gm(xp, ir::DT_FLOAT32), count);
  b.Barrier(ir::PIPE_ALL);
  for (int i = 0; i < 200; ++i) {
    b.VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(out, ir::DT_FLOAT32),
                KernelBuilder::Ub(at, ir::DT_FLOAT32), KernelBuilder::Ub(at, ir::DT_FLOAT32),
                count);
    b.Barrier(ir::PIPE_V);
  }
  b.Barrier(ir::PIPE_ALL);
  b.DataCopy(KernelBuilder::Gm(zp, ir::DT_FLOAT32), KernelBuilder::Ub(out, ir::DT_FLOAT32), count);
  Device device(Config());
  uint64_t xd = Upload(device, std::vector<float>(64, 1.5f));
  uint64_t zd = Upload(device, std::vector<float>(64, 0));
  LaunchResult r = RunTimed(device, b.Build(), 1, {ArgValue::Address(xd), ArgValue::Address(zd)});
  ASSERT_EQ(r.cores.size(), 1u);
  EXPECT_EQ(r.cores[0].bound_pipe, "V");
  EXPECT_EQ(r.bound_pipe, "V");
  EXPECT_EQ(BoundPipe({}), "");

  // The report carries both.
  aicore::report::v1::LaunchReport proto;
  ToProto(r, &proto);
  EXPECT_EQ(proto.bound_pipe(), "V");
  EXPECT_EQ(proto.cores(0).bound_pipe(), "V");
}

TEST(VectorAdd, Fp32OnEightCoresIsBitExact) {
  AddKernelOptions o;
  o.dtype = ir::DT_FLOAT32;
  o.block_len = 1024;
  o.tile_len = 256;
  const uint32_t blocks = 8;
  size_t n = blocks * o.block_len;
  auto x = RandomFloats(n, 3), y = RandomFloats(n, 4);
  AddRun run = RunAdd(o, blocks, x, y);
  ASSERT_EQ(run.result.status, LaunchResult::Status::kOk);
  std::vector<float> z(n);
  std::memcpy(z.data(), run.z.data(), n * 4);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(z[i]), std::bit_cast<uint32_t>(x[i] + y[i])) << i;
  }
}

TEST(VectorAdd, ExtraBlocksRunInWavesOnTheSameCores) {
  SocConfig config = Config("Ascend910B3");  // 40 vector cores
  AddKernelOptions o;
  o.dtype = ir::DT_FLOAT32;
  o.block_len = 256;
  o.tile_len = 256;
  const uint32_t blocks = config.vector_cores + 3;
  size_t n = blocks * o.block_len;
  auto x = RandomFloats(n, 5), y = RandomFloats(n, 6);
  AddRun run = RunAdd(o, blocks, x, y, "Ascend910B3");
  ASSERT_EQ(run.result.status, LaunchResult::Status::kOk);
  std::vector<float> z(n);
  std::memcpy(z.data(), run.z.data(), n * 4);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(z[i], x[i] + y[i]) << i;
  ASSERT_EQ(run.result.cores.size(), blocks);
  // Block vector_cores runs on core 0 after block 0, so it ends about twice as late.
  const CoreStats& first = run.result.cores[0];
  const CoreStats& wave2 = run.result.cores[config.vector_cores];
  EXPECT_EQ(wave2.core, 0u);
  EXPECT_EQ(wave2.block_idx, config.vector_cores);
  EXPECT_GT(wave2.cycles, first.cycles + first.cycles / 2);
  // The launch ends with its last block (one of the second wave: which one depends on how the
  // shared HBM/L2 grants fell); the launch overhead counts the cores used (vector_cores), not
  // the 43 blocks.
  uint64_t last = 0;
  for (const CoreStats& c : run.result.cores) last = std::max(last, c.cycles);
  EXPECT_GE(last, wave2.cycles);
  EXPECT_EQ(run.result.cycles, config.LaunchOverhead(config.vector_cores) + last);
}

TEST(VectorAdd, MissingWaitFlagComputesTheStaleAnswer) {
  // One tile: the add is issued right behind the copies and, without wait_flag(MTE2_V), starts
  // long before MTE2 has written UB, so it adds the zeros UB holds, as the chip would.
  AddKernelOptions o;
  o.dtype = ir::DT_FLOAT32;
  o.block_len = 256;
  o.tile_len = 256;
  o.skip_mte2_v_wait = true;
  auto x = RandomFloats(256, 7), y = RandomFloats(256, 8);
  AddRun run = RunAdd(o, 1, x, y);
  ASSERT_EQ(run.result.status, LaunchResult::Status::kOk);
  std::vector<float> z(256);
  std::memcpy(z.data(), run.z.data(), 256 * 4);
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(z[i], 0.0f) << i;
  // The correct kernel gets the sum.
  o.skip_mte2_v_wait = false;
  AddRun good = RunAdd(o, 1, x, y);
  std::memcpy(z.data(), good.z.data(), 256 * 4);
  for (size_t i = 0; i < 256; ++i) EXPECT_EQ(z[i], x[i] + y[i]) << i;
}

TEST(VectorAdd, TwoLaunchesAreIdentical) {
  AddKernelOptions o;
  const uint32_t blocks = 8;
  size_t n = blocks * o.block_len;
  auto x = RandomHalves(n, 9), y = RandomHalves(n, 10);
  AddRun a = RunAdd(o, blocks, x, y);
  AddRun b = RunAdd(o, blocks, x, y);
  EXPECT_EQ(a.z, b.z);
  EXPECT_EQ(a.result.cycles, b.result.cycles);
  EXPECT_EQ(a.result.simulated_instructions, b.result.simulated_instructions);
  ASSERT_EQ(a.result.cores.size(), b.result.cores.size());
  for (size_t i = 0; i < a.result.cores.size(); ++i) {
    EXPECT_EQ(a.result.cores[i].cycles, b.result.cores[i].cycles);
    for (size_t p = 0; p < a.result.cores[i].pipes.size(); ++p) {
      const PipeStats& pa = a.result.cores[i].pipes[p];
      const PipeStats& pb = b.result.cores[i].pipes[p];
      EXPECT_EQ(pa.busy_cycles, pb.busy_cycles);
      EXPECT_EQ(pa.wait_flag_cycles, pb.wait_flag_cycles);
      EXPECT_EQ(pa.instructions, pb.instructions);
    }
  }
  // The report conversion carries the same numbers.
  aicore::report::v1::LaunchReport report;
  ToProto(a.result, &report);
  EXPECT_EQ(report.status(), aicore::report::v1::LaunchReport::OK);
  EXPECT_EQ(report.cycles(), a.result.cycles);
  EXPECT_EQ(report.cores_size(), static_cast<int>(blocks));
  EXPECT_EQ(report.cores(0).pipes(0).pipe(), "S");
}

TEST(VectorAdd, ArgumentsAreChecked) {
  Device device(Config());
  auto program = Decode(AddKernel({}));
  auto r = device.Launch(*program, 1, {ArgValue::Address(0)}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("takes 3 arguments (x, y, z), got 1"), std::string::npos)
      << r.status().message();
  auto zero = device.Launch(*program, 0,
                            {ArgValue::Address(0), ArgValue::Address(0), ArgValue::Address(0)}, {});
  EXPECT_EQ(zero.status().code(), StatusCode::kInvalidArgument);
}

TEST(VectorAdd, HandBuiltConfigsAreValidatedAtLaunch) {
  SocConfig c = Config();
  c.queue_depth_vector = 0;
  Device device(c);
  auto program = Decode(AddKernel({}));
  auto r = device.Launch(*program, 1,
                         {ArgValue::Address(0), ArgValue::Address(0), ArgValue::Address(0)}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("field queue_depth.vector: must be > 0"), std::string::npos)
      << r.status().message();
}

TEST(VectorAdd, EachCoreOfAnAivOnlyLaunchIsSubBlock0Of1) {
  // y[2b] = get_sub_block_idx(), y[2b + 1] = get_sub_block_num() on block b; 50 blocks on
  // 48 cores, so two run in a second wave.
  KernelBuilder b("sub_blocks", "sb.py");
  uint32_t y = b.PointerParam("y", ir::DT_INT64);
  uint32_t at = b.Mul(b.Sys(ir::SysValueOp::BLOCK_IDX), b.Const(2));
  ir::TensorRef out = KernelBuilder::Gm(y, ir::DT_INT64);
  b.At(3).ScalarStore(out, at, b.Sys(ir::SysValueOp::SUB_BLOCK_IDX));
  b.At(4).ScalarStore(out, b.Add(at, b.Const(1)), b.Sys(ir::SysValueOp::SUB_BLOCK_NUM));
  Device device(Config());
  uint64_t z = Upload(device, std::vector<int64_t>(100, -1));
  auto program = Decode(b.Build());
  auto r = device.Launch(*program, 50, {ArgValue::Address(z)}, Strict());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->status, LaunchResult::Status::kOk);
  std::vector<int64_t> got = Download<int64_t>(device, z, 100);
  for (size_t block = 0; block < 50; ++block) {
    EXPECT_EQ(got[2 * block], 0) << block;
    EXPECT_EQ(got[2 * block + 1], 1) << block;
  }
}

}  // namespace
}  // namespace aicore::sim::testing
