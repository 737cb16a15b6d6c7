// Timing pins of the memory model (docs/timing-model.md): UB bank conflicts, L2 hits and
// write-allocate, L2 bypass, separate HBM read/write channels, misaligned GM, the launch
// overhead formula, and determinism of a whole streaming kernel. Each expectation is computed
// from the loaded config's fields with the formula in its comment.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/core/cycle.h"
#include "tests/sim/ladder_kernel.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

const VectorCostRow& Row(const SocConfig& c, const std::string& op, const std::string& dtype) {
  for (const auto& v : c.vector_costs) {
    if (v.op == op && v.dtype == dtype) return v;
  }
  ADD_FAILURE() << "no cost row " << op << " " << dtype;
  static VectorCostRow none;
  return none;
}

ir::TensorRef Gm(uint32_t addr, bool bypass) {
  ir::TensorRef r = KernelBuilder::Gm(addr, ir::DT_FLOAT16);
  if (bypass) r.set_cache_mode(ir::CACHE_MODE_DISABLE);
  return r;
}

ir::TensorRef Ub(uint32_t addr) { return KernelBuilder::Ub(addr, ir::DT_FLOAT16); }

TEST(MemoryTiming, BankConflictDoublesEveryRepeat) {
  // z = x + y over n fp16 (repeats = 2n / repeat_bytes), z in the second 64 KB bank.
  // Tutorial layout: y 16 KB after x, so both start in group 0 and every repeat reads each of
  // its 8 groups twice: 2 beats. Shifted by 256 B, x reads groups 0-7 and y 8-15: 1 beat.
  //   end - start = max(1, ceil(beats * repeats * cycles_per_repeat)) + ceil(per_call)
  SocConfig c = Config();
  const VectorCostRow& add = Row(c, "add", "float16");
  const int64_t n = 8192;
  const uint64_t repeats = n * 2 / c.vector_repeat_bytes;
  for (int64_t shift : {0, 256}) {
    KernelBuilder b("banks", "banks.py");
    uint32_t x = b.Const(0), y = b.Const(16384 + shift), z = b.Const(65536);
    uint32_t cnt = b.Const(n, ir::DT_INT32);
    b.At(4).VecBinary(ir::VecBinaryOp::ADD, Ub(z), Ub(x), Ub(y), cnt);
    Device device(c);
    LaunchResult r = RunTimed(device, b.Build(), 1, {});
    const InstrRecord* rec = Find(r, "add", 4);
    ASSERT_NE(rec, nullptr);
    uint64_t beats = shift == 0 ? 2 : 1;
    EXPECT_EQ(rec->end_cycle - rec->start_cycle,
              Ceil(beats * repeats * add.cycles_per_repeat) + Ceil(add.per_call_cycles))
        << "shift " << shift;
    EXPECT_EQ(
        FindPipe(r.cores[0], "V")->bank_conflict_cycles,
        Ceil(beats * repeats * add.cycles_per_repeat) - Ceil(repeats * add.cycles_per_repeat));
  }
}

// One 16 KB fp16 copy of line 3 (GM -> UB at UB 0 when `read`, else UB 0 -> GM).
ir::Kernel OneCopy(bool read, bool bypass, int64_t gm_offset_bytes = 0) {
  KernelBuilder b("one_copy", "copy.py");
  uint32_t p = b.PointerParam("p", ir::DT_FLOAT16);
  uint32_t addr = b.Add(p, b.Const(gm_offset_bytes, ir::DT_UINT64), ir::DT_UINT64);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(8192, ir::DT_INT32);
  if (read) {
    b.At(3).DataCopy(Ub(ub), Gm(addr, bypass), n);
  } else {
    b.At(3).DataCopy(Gm(addr, bypass), Ub(ub), n);
  }
  return b.Build();
}

TEST(MemoryTiming, NormalWritesAllocateBypassWritesUseTheWriteChannel) {
  // A 16 KB (B) MTE3 write with a write channel 4x slower than the engine:
  //   NORMAL: into L2 (B / l2 rate, far below the engine's stream); the write-allocate fill
  //           reads B from HBM without holding the copy:
  //           end = start + ceil(max(stream, B / l2) + mte3.fixed), hbm_read_bytes = B
  //   bypass: end = start + ceil(max(stream, B / hbm_write + overhead) + mte3.fixed),
  //           hbm_write_bytes = B, nothing read
  //   stream = per_burst + B / mte3.rate
  SocConfig c = Config();
  c.hbm_write_bytes_per_cycle = c.mte3.core_bytes_per_cycle / 4;
  const double bytes = 16384;
  double stream = c.mte3.per_burst_cycles + bytes / c.mte3.core_bytes_per_cycle;
  for (bool bypass : {false, true}) {
    Device device(c);
    uint64_t gy = Upload(device, std::vector<uint16_t>(8192, 0));
    LaunchResult r = RunTimed(device, OneCopy(false, bypass), 1, {ArgValue::Address(gy)});
    const InstrRecord* rec = Find(r, "data_copy", 3);
    ASSERT_NE(rec, nullptr);
    const PipeStats* m3 = FindPipe(r.cores[0], "MTE3");
    double moved =
        bypass
            ? std::max(stream, bytes / c.hbm_write_bytes_per_cycle + c.hbm_transfer_overhead_cycles)
            : std::max(stream, bytes / c.l2.bytes_per_cycle);
    EXPECT_EQ(rec->end_cycle - rec->start_cycle, Ceil(moved + c.mte3.fixed_cycles))
        << "bypass " << bypass;
    EXPECT_EQ(m3->hbm_read_bytes, bypass ? 0u : 16384u);
    EXPECT_EQ(m3->hbm_write_bytes, bypass ? 16384u : 0u);
    EXPECT_EQ(m3->bandwidth_stall_cycles, Ceil(moved) - Ceil(stream));
  }
  // Without write-allocate a NORMAL write reads nothing.
  c.l2.write_allocate = false;
  Device device(c);
  uint64_t gy = Upload(device, std::vector<uint16_t>(8192, 0));
  LaunchResult r = RunTimed(device, OneCopy(false, false), 1, {ArgValue::Address(gy)});
  EXPECT_EQ(FindPipe(r.cores[0], "MTE3")->hbm_read_bytes, 0u);
}

TEST(MemoryTiming, ReadAndWriteChannelsOverlap) {
  // MTE2 reads B (bypass) while MTE3 writes B (bypass) on the same core, both channels 4x slower
  // than the engines. Separate channels: neither waits for the other,
  //   read end  = start2 + ceil(B / hbm_read + overhead + mte2.fixed + gm.latency)
  //   write end = start3 + ceil(B / hbm_write + overhead + mte3.fixed)
  // (one shared channel would end the second transfer about B / rate later).
  SocConfig c = Config();
  c.hbm_read_bytes_per_cycle = c.mte2.core_bytes_per_cycle / 4;
  c.hbm_write_bytes_per_cycle = c.mte3.core_bytes_per_cycle / 4;
  const double bytes = 16384;
  KernelBuilder b("overlap", "overlap.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT16);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT16);
  uint32_t u0 = b.Const(0), u1 = b.Const(65536);
  uint32_t n = b.Const(8192, ir::DT_INT32);
  b.At(3).DataCopy(Ub(u0), Gm(x, true), n);
  b.At(4).DataCopy(Gm(y, true), Ub(u1), n);
  Device device(c);
  uint64_t gx = Upload(device, std::vector<uint16_t>(8192, 1));
  uint64_t gy = Upload(device, std::vector<uint16_t>(8192, 0));
  LaunchResult r = RunTimed(device, b.Build(), 1, {ArgValue::Address(gx), ArgValue::Address(gy)});
  const InstrRecord* rd = Find(r, "data_copy", 3);
  const InstrRecord* wr = Find(r, "data_copy", 4);
  ASSERT_TRUE(rd && wr);
  EXPECT_EQ(rd->end_cycle - rd->start_cycle,
            Ceil(bytes / c.hbm_read_bytes_per_cycle + c.hbm_transfer_overhead_cycles +
                 c.mte2.fixed_cycles + c.gm_latency_cycles));
  EXPECT_EQ(wr->end_cycle - wr->start_cycle,
            Ceil(bytes / c.hbm_write_bytes_per_cycle + c.hbm_transfer_overhead_cycles +
                 c.mte3.fixed_cycles));
  EXPECT_LT(wr->start_cycle, rd->start_cycle + Ceil(bytes / c.hbm_read_bytes_per_cycle));
}

TEST(MemoryTiming, MisalignedGmAddressCostsMore) {
  // A 16 KB bypass read from a 512 B-aligned address and from 32 B past it. Misaligned, the
  // engine and the channel move at misaligned_efficiency (e):
  //   end - start = ceil(max(per_burst + B / (mte2.rate * e), B / e / hbm_read + overhead)
  //                      + mte2.fixed + gm.latency),  e = 1 when aligned
  SocConfig c = Config();
  const double bytes = 16384;
  std::vector<uint64_t> took;
  for (int64_t offset : {0, 32}) {
    double e = offset == 0 ? 1.0 : c.gm_misaligned_efficiency;
    Device device(c);
    uint64_t gx = Upload(device, std::vector<uint16_t>(8192 + 256, 1));
    LaunchResult r = RunTimed(device, OneCopy(true, true, offset), 1, {ArgValue::Address(gx)});
    const InstrRecord* rec = Find(r, "data_copy", 3);
    ASSERT_NE(rec, nullptr);
    double moved =
        std::max(c.mte2.per_burst_cycles + bytes / (c.mte2.core_bytes_per_cycle * e),
                 bytes / e / c.hbm_read_bytes_per_cycle + c.hbm_transfer_overhead_cycles);
    EXPECT_EQ(rec->end_cycle - rec->start_cycle,
              Ceil(moved + c.mte2.fixed_cycles + c.gm_latency_cycles))
        << "offset " << offset;
    took.push_back(rec->end_cycle - rec->start_cycle);
  }
  EXPECT_GT(took[1], took[0]);
}

// The same 16 KB of GM read twice into UB on MTE2 (lines 3 and 5), a pipe_barrier(PIPE_MTE2)
// between them: the first read misses L2, the second hits.
LaunchResult ReadTwice(const SocConfig& c) {
  KernelBuilder b("reread", "reread.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT16);
  uint32_t u0 = b.Const(0), u1 = b.Const(32768);
  uint32_t n = b.Const(8192, ir::DT_INT32);
  b.At(3).DataCopy(Ub(u0), Gm(x, false), n);
  b.At(4).Barrier(ir::PIPE_MTE2);
  b.At(5).DataCopy(Ub(u1), Gm(x, false), n);
  Device device(c);
  uint64_t gx = Upload(device, std::vector<uint16_t>(8192, 1));
  return RunTimed(device, b.Build(), 1, {ArgValue::Address(gx)});
}

TEST(MemoryTiming, SecondReadHitsInL2) {
  // The same 16 KB read twice on MTE2, a pipe_barrier(PIPE_MTE2) between them. The first misses
  // (HBM latency), the second finds every line in L2:
  //   end2 - start2 = ceil(max(per_burst + B / mte2.rate, B / l2) + mte2.fixed + l2.hit_latency)
  SocConfig c = Config();
  const double bytes = 16384;
  LaunchResult r = ReadTwice(c);
  const InstrRecord* first = Find(r, "data_copy", 3);
  const InstrRecord* second = Find(r, "data_copy", 5);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(second->start_cycle, first->end_cycle + c.barrier_cycles);
  double stream = c.mte2.per_burst_cycles + bytes / c.mte2.core_bytes_per_cycle;
  EXPECT_EQ(second->end_cycle - second->start_cycle,
            Ceil(std::max(stream, bytes / c.l2.bytes_per_cycle) + c.mte2.fixed_cycles +
                 c.l2.hit_latency_cycles));
  const PipeStats* m2 = FindPipe(r.cores[0], "MTE2");
  EXPECT_EQ(m2->l2_hit_bytes, 16384u);
  EXPECT_EQ(m2->hbm_read_bytes, 16384u);  // the first copy's fill only
}

TEST(MemoryTiming, ReadWindowBoundsAReadByItsLatency) {
  // With mte2.read_window_bytes W, a read streams at most W / latency bytes per cycle: the same
  // 16 KB read twice, the first missing L2 (gm.latency), the second hitting (l2.hit_latency):
  //   end - start = ceil(max(per_burst + B / mte2.rate, B * latency / W, channels)
  //                      + mte2.fixed + latency)
  // and a window of 0 (the preset's for MTE2) leaves the copies as SecondReadHitsInL2 has them.
  SocConfig c = Config();
  c.mte2.read_window_bytes = 2048;
  const double bytes = 16384;
  LaunchResult r = ReadTwice(c);
  const InstrRecord* first = Find(r, "data_copy", 3);
  const InstrRecord* second = Find(r, "data_copy", 5);
  ASSERT_TRUE(first && second);
  double window_miss = bytes * c.gm_latency_cycles / c.mte2.read_window_bytes;
  double window_hit = bytes * c.l2.hit_latency_cycles / c.mte2.read_window_bytes;
  ASSERT_GT(window_miss, bytes / c.hbm_read_bytes_per_cycle + c.hbm_transfer_overhead_cycles);
  ASSERT_GT(window_hit, c.mte2.per_burst_cycles + bytes / c.mte2.core_bytes_per_cycle);
  EXPECT_EQ(first->end_cycle - first->start_cycle,
            Ceil(window_miss + c.mte2.fixed_cycles + c.gm_latency_cycles));
  EXPECT_EQ(second->end_cycle - second->start_cycle,
            Ceil(window_hit + c.mte2.fixed_cycles + c.l2.hit_latency_cycles));
  // The window occupies the engine: the barrier's next copy starts after the whole read.
  EXPECT_EQ(second->start_cycle, first->end_cycle + c.barrier_cycles);
}

TEST(MemoryTiming, ExposedLatencyHoldsTheNextCopyBack) {
  // Two 16 KB reads of different halves of x, one after the other on MTE2 with nothing between:
  // the second starts when the first's stream has passed plus mte2.latency_exposed of the
  // first's fixed cost and latency (both miss L2, gm.latency_cycles):
  //   start2 - start1 = ceil(stream + exposed * (mte2.fixed + gm.latency))
  for (double exposed : {0.0, 0.5, 1.0}) {
    SocConfig c = Config();
    c.mte2.latency_exposed = exposed;
    KernelBuilder b("two_reads", "two.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT16);
    uint32_t n = b.Const(8192, ir::DT_INT32);
    b.At(3).DataCopy(Ub(b.Const(0)), Gm(x, false), n);
    b.At(4).DataCopy(Ub(b.Const(32768)), Gm(b.GmAddr(x, b.Const(8192), 2), false), n);
    Device device(c);
    uint64_t gx = Upload(device, std::vector<uint16_t>(16384, 1));
    LaunchResult r = RunTimed(device, b.Build(), 1, {ArgValue::Address(gx)});
    const InstrRecord* first = Find(r, "data_copy", 3);
    const InstrRecord* second = Find(r, "data_copy", 4);
    ASSERT_TRUE(first && second);
    double stream = c.mte2.per_burst_cycles + 16384 / c.mte2.core_bytes_per_cycle;
    EXPECT_EQ(second->start_cycle - first->start_cycle,
              Ceil(stream + exposed * (c.mte2.fixed_cycles + c.gm_latency_cycles)))
        << "latency_exposed " << exposed;
  }
}

TEST(MemoryTiming, LaunchOverheadGrowsWithTheCoresUsed) {
  // Every core runs the same single vector op, so the last core ends at the same cycle `end`:
  //   cycles = launch_overhead_cycles + launch_overhead_per_core_cycles * cores + end
  SocConfig c = Config();
  KernelBuilder b("tiny", "tiny.py");
  uint32_t a = b.Const(0), o = b.Const(65536);
  uint32_t cnt = b.Const(128, ir::DT_INT32);
  b.At(4).VecUnary(ir::VecUnaryOp::ABS, Ub(o), Ub(a), cnt);
  std::vector<uint64_t> ends;
  for (uint32_t cores : {1u, 8u, 48u}) {
    Device device(c);
    LaunchResult r = RunTimed(device, b.Build(), cores, {});
    uint64_t end = 0;
    for (const InstrRecord& rec : r.timeline) end = std::max(end, rec.end_cycle);
    EXPECT_EQ(r.cycles, c.launch_overhead_cycles + c.launch_overhead_per_core_cycles * cores + end)
        << cores << " cores";
    ends.push_back(end);
  }
  EXPECT_EQ(ends[0], ends[2]);
}

TEST(MemoryTiming, StreamingAddIsDeterministicAndFollowsTheLadder) {
  // A scaled-down Add ladder on 48 cores (2 double-buffered tiles per core): two fresh devices
  // and a second launch on the same device give identical cycles and statistics (L2 starts cold
  // for every launch); bypassing L2 saves the write-allocate reads; the shifted layout removes
  // every bank conflict.
  SocConfig c = Config();
  LadderOptions o;
  o.total = 48 * 4 * 8192;
  o.tile = 8192;
  o.buffers = 2;
  auto run = [&](const LadderOptions& opt, Device& device, uint64_t x, uint64_t y, uint64_t z) {
    auto program = Decode(LadderKernel(opt));
    auto r = device.Launch(
        *program, 48, {ArgValue::Address(x), ArgValue::Address(y), ArgValue::Address(z)}, Strict());
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r->status, LaunchResult::Status::kOk);
    ExpectStrictClean(*r);
    return *r;
  };
  auto setup = [&](Device& d, uint64_t* x, uint64_t* y, uint64_t* z) {
    std::vector<uint16_t> ones(o.total, FloatToHalf(1.0f)), twos(o.total, FloatToHalf(2.0f));
    *x = Upload(d, ones);
    *y = Upload(d, twos);
    *z = Upload(d, std::vector<uint16_t>(o.total, 0));
  };
  Device d1(c), d2(c);
  uint64_t x1, y1, z1, x2, y2, z2;
  setup(d1, &x1, &y1, &z1);
  setup(d2, &x2, &y2, &z2);
  LaunchResult a = run(o, d1, x1, y1, z1);
  LaunchResult b = run(o, d2, x2, y2, z2);
  LaunchResult again = run(o, d1, x1, y1, z1);
  std::vector<uint16_t> z = Download<uint16_t>(d1, z1, o.total);
  EXPECT_TRUE(std::all_of(z.begin(), z.end(), [](uint16_t h) { return HalfToFloat(h) == 3.0f; }));
  for (const LaunchResult* r : {&b, &again}) {
    EXPECT_EQ(r->cycles, a.cycles);
    ASSERT_EQ(r->cores.size(), a.cores.size());
    for (size_t i = 0; i < a.cores.size(); ++i) {
      ASSERT_EQ(r->cores[i].pipes.size(), a.cores[i].pipes.size());
      for (size_t p = 0; p < a.cores[i].pipes.size(); ++p) {
        const PipeStats& u = a.cores[i].pipes[p];
        const PipeStats& v = r->cores[i].pipes[p];
        EXPECT_EQ(u.busy_cycles, v.busy_cycles);
        EXPECT_EQ(u.wait_flag_cycles, v.wait_flag_cycles);
        EXPECT_EQ(u.bandwidth_stall_cycles, v.bandwidth_stall_cycles);
        EXPECT_EQ(u.queue_full_stall_cycles, v.queue_full_stall_cycles);
        EXPECT_EQ(u.hbm_read_bytes, v.hbm_read_bytes);
        EXPECT_EQ(u.hbm_write_bytes, v.hbm_write_bytes);
      }
    }
  }
  uint64_t read_normal = 0, read_bypass = 0;
  LadderOptions bypass = o;
  bypass.bypass_l2 = true;
  LaunchResult by = run(bypass, d1, x1, y1, z1);
  for (const CoreStats& s : a.cores) {
    read_normal += FindPipe(s, "MTE2")->hbm_read_bytes + FindPipe(s, "MTE3")->hbm_read_bytes;
  }
  for (const CoreStats& s : by.cores) {
    read_bypass += FindPipe(s, "MTE2")->hbm_read_bytes + FindPipe(s, "MTE3")->hbm_read_bytes;
  }
  EXPECT_EQ(read_bypass, 2u * o.total * 2);  // x and y
  EXPECT_EQ(read_normal, 3u * o.total * 2);  // + a write-allocate fill of z
  EXPECT_EQ(FindPipe(by.cores[0], "MTE3")->hbm_write_bytes, FindPipe(by.cores[0], "MTE3")->bytes);
  LadderOptions shifted = bypass;
  shifted.conflict_free = true;
  LaunchResult sh = run(shifted, d1, x1, y1, z1);
  EXPECT_GT(FindPipe(by.cores[0], "V")->bank_conflict_cycles, 0u);
  EXPECT_EQ(FindPipe(sh.cores[0], "V")->bank_conflict_cycles, 0u);
  EXPECT_LT(FindPipe(sh.cores[0], "V")->busy_cycles, FindPipe(by.cores[0], "V")->busy_cycles);
}

}  // namespace
}  // namespace aicore::sim::testing
