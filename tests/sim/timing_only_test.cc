// Timing-only launches (LaunchOptions::timing_only, docs/timing_only.md): the cycles of the full
// run, the element math of what comes from the host's tensors skipped (device memory keeps what
// it held), what the scalar unit writes still copied, the host's bytes still readable by the
// scalar unit, and a scalar read of a skipped result stopped at its line; and UnknownBytes, the
// shadow that says which bytes are known.
#include <gtest/gtest.h>

#include "sim/mem/global_memory.h"
#include "sim/mem/memory_map.h"
#include "sim/mem/unknown_bytes.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

using KB = KernelBuilder;

LaunchOptions TimingOnly() {
  LaunchOptions o;
  o.timing_only = true;
  return o;
}

TEST(TimingOnly, TheAddKernelTakesTheFullRunsCyclesAndLeavesItsOutputAsItWas) {
  AddKernelOptions o;
  auto program = Decode(AddKernel(o));
  std::vector<uint16_t> x(4096, 0x3c00), y(4096, 0x4000), z(4096, 0xffff);  // 1, 2; NaN
  LaunchResult runs[2];
  std::vector<uint16_t> out[2];
  for (int timing = 0; timing < 2; ++timing) {
    Device device(Config());
    uint64_t ax = Upload(device, x), ay = Upload(device, y), az = Upload(device, z);
    auto r = device.Launch(*program, 2,
                           {ArgValue::Address(ax), ArgValue::Address(ay), ArgValue::Address(az)},
                           timing == 1 ? TimingOnly() : LaunchOptions{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    runs[timing] = *r;
    out[timing] = Download<uint16_t>(device, az, z.size());
  }
  ASSERT_EQ(runs[0].status, LaunchResult::Status::kOk);
  ASSERT_EQ(runs[1].status, LaunchResult::Status::kOk);
  EXPECT_EQ(runs[1].cycles, runs[0].cycles);
  EXPECT_FALSE(runs[0].timing_only);
  EXPECT_TRUE(runs[1].timing_only);
  for (size_t c = 0; c < runs[0].cores.size(); ++c) {
    for (const PipeStats& p : runs[0].cores[c].pipes) {
      const PipeStats* q = FindPipe(runs[1].cores[c], p.pipe);
      ASSERT_NE(q, nullptr);
      EXPECT_EQ(q->busy_cycles, p.busy_cycles) << p.pipe;
      EXPECT_EQ(q->instructions, p.instructions) << p.pipe;
    }
  }
  EXPECT_EQ(out[0][0], 0x4200);  // 1 + 2 = 3
  EXPECT_EQ(out[1][0], 0xffff);  // not computed: as the host left it
}

// Line 3: x[0] read from GM by the scalar unit (a tiling word: the host's bytes); line 4: stored
// into UB and line 6 copied to y (known bytes run); line 7: x copied into UB; line 9: UB read.
ir::Kernel ScalarKernel(bool read_copied) {
  KB b("scalar_reads", "s.py");
  uint32_t x = b.PointerParam("x", ir::DT_INT32);
  uint32_t y = b.PointerParam("y", ir::DT_INT32);
  uint32_t zero = b.Const(0, ir::DT_INT32);
  uint32_t v = b.At(3).ScalarLoad(KB::Gm(x, ir::DT_INT32), zero);
  uint32_t w = b.Add(v, b.Const(1, ir::DT_INT32), ir::DT_INT32);
  b.At(4).ScalarStore(KB::Ub(b.Const(0), ir::DT_INT32), zero, w);
  b.At(5).SetFlag(kSMte3, zero);
  b.WaitFlag(kSMte3, zero);
  b.At(6).DataCopy(KB::Gm(y, ir::DT_INT32), KB::Ub(b.Const(0), ir::DT_INT32),
                   b.Const(8, ir::DT_INT32));
  if (read_copied) {
    b.At(7).DataCopy(KB::Ub(b.Const(256), ir::DT_INT32), KB::Gm(x, ir::DT_INT32),
                     b.Const(8, ir::DT_INT32));
    b.At(8).SetFlag(kMte2S, zero);
    b.WaitFlag(kMte2S, zero);
    uint32_t u = b.At(9).ScalarLoad(KB::Ub(b.Const(256), ir::DT_INT32), zero);
    b.At(10).ScalarStore(KB::Gm(y, ir::DT_INT32), b.Const(1, ir::DT_INT32), u);
  }
  return b.Build();
}

TEST(TimingOnly, TheScalarUnitReadsTheHostsBytesAndItsOwnStoresStillLand) {
  auto program = Decode(ScalarKernel(false));
  Device device(Config());
  uint64_t x = Upload(device, std::vector<int32_t>(8, 41));
  uint64_t y = Upload(device, std::vector<int32_t>(8, -1));
  auto r = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(y)}, TimingOnly());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->status, LaunchResult::Status::kOk);
  EXPECT_EQ(Download<int32_t>(device, y, 1)[0], 42);  // computed from known bytes: it ran
}

TEST(TimingOnly, AScalarReadOfACopiedTensorStopsTheLaunchAtItsLine) {
  auto program = Decode(ScalarKernel(true));
  for (bool timing : {false, true}) {
    Device device(Config());
    uint64_t x = Upload(device, std::vector<int32_t>(8, 41));
    uint64_t y = Upload(device, std::vector<int32_t>(8, -1));
    auto r = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(y)},
                           timing ? TimingOnly() : LaunchOptions{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (!timing) {
      EXPECT_EQ(r->status, LaunchResult::Status::kOk);
      EXPECT_EQ(Download<int32_t>(device, y, 2)[1], 41);
      continue;
    }
    ASSERT_EQ(r->status, LaunchResult::Status::kKernelFault);
    const Diagnostic* d = nullptr;
    for (const Diagnostic& e : r->diagnostics) {
      if (e.kind == Diagnostic::Kind::kTimingOnlyRead) d = &e;
    }
    ASSERT_NE(d, nullptr);
    EXPECT_NE(d->message.find("s.py:9"), std::string::npos) << d->message;
    EXPECT_NE(d->message.find("UB[256, 260)"), std::string::npos) << d->message;
    EXPECT_NE(d->message.find("without timing_only"), std::string::npos) << d->message;
    EXPECT_EQ(Download<int32_t>(device, y, 2)[1], 0);  // line 6 copied UB's zero; 10 never ran
  }
}

TEST(UnknownBytes, GmStartsAsTheHostsAndLocalMemoriesKnown) {
  GlobalMemory gm(1 << 26, 512, 2 << 20);
  StatusOr<uint64_t> a = gm.Malloc(4096);
  ASSERT_TRUE(a.ok());
  MemoryMap memories({MemorySpec{MemSpace::kUb, 4096, 32}});
  UnknownBytes unknown(gm);
  unknown.AddCore(0, memories, 16, 16);
  MemRange gm_range{MemSpace::kGm, *a, *a + 64, false, 0, 0};
  EXPECT_FALSE(unknown.AllKnown(0, gm_range));    // the host's: a copy skips it
  EXPECT_FALSE(unknown.AnyUnknown(0, gm_range));  // but a scalar read may read it
  MemRange ub{MemSpace::kUb, 0, 256, false, 0, 0};
  EXPECT_TRUE(unknown.AllKnown(0, ub));
}

TEST(UnknownBytes, StridedRangesMarkAndQueryTheirChunksOnly) {
  GlobalMemory gm(1 << 26, 512, 2 << 20);
  MemoryMap memories({MemorySpec{MemSpace::kUb, 4096, 32}});
  UnknownBytes unknown(gm);
  unknown.AddCore(0, memories, 16, 16);
  // Chunks of 32 bytes every 128: [0, 32), [128, 160), [256, 288).
  MemRange strided{MemSpace::kUb, 0, 288, true, 32, 128};
  unknown.Mark(0, strided, UnknownBytes::kUnknown);
  EXPECT_TRUE(unknown.AnyUnknown(0, MemRange{MemSpace::kUb, 128, 160, false, 0, 0}));
  EXPECT_FALSE(unknown.AnyUnknown(0, MemRange{MemSpace::kUb, 32, 128, false, 0, 0}));
  EXPECT_TRUE(unknown.AllKnown(0, MemRange{MemSpace::kUb, 160, 256, false, 0, 0}));
  unknown.Mark(0, MemRange{MemSpace::kUb, 0, 512, true, 0, 0}, UnknownBytes::kKnown);
  EXPECT_TRUE(unknown.AllKnown(0, MemRange{MemSpace::kUb, 0, 512, false, 0, 0}));
  // Registers have shadows of their own; another core's memory is its own.
  unknown.Mark(0, MemRange{MemSpace::kCmpMask, 0, 16, true, 0, 0}, UnknownBytes::kUnknown);
  EXPECT_TRUE(unknown.AnyUnknown(0, MemRange{MemSpace::kCmpMask, 8, 9, false, 0, 0}));
  EXPECT_FALSE(unknown.AnyUnknown(1, MemRange{MemSpace::kUb, 0, 512, false, 0, 0}));
}

}  // namespace
}  // namespace aicore::sim::testing
