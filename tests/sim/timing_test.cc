// Timing pins and golden cycle counts. Expected values are computed from the loaded config's
// fields with the formula in each comment, so the comment is what the test checks (no magic
// numbers): change a figure in configs/ and the expectations follow.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/cycle.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

// copy GM->UB (line 3); set_flag(MTE2_V) (4); wait_flag(MTE2_V) (5); abs on the copied data (6).
ir::Kernel CopyThenAbs(uint32_t elements) {
  KernelBuilder b("copy_abs", "pin.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  b.At(2);
  uint32_t ub = b.Const(0);
  uint32_t out = b.Const(elements * 4);
  uint32_t n = b.Const(elements, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.At(3).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.At(4).SetFlag(kMte2V, id);
  b.At(5).WaitFlag(kMte2V, id);
  b.At(6).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(out, ir::DT_FLOAT32),
                   KernelBuilder::Ub(ub, ir::DT_FLOAT32), n);
  return b.Build();
}

TEST(Timing, InstructionAfterWaitFlagStartsExactlyWhenTheFlagBecomesVisible) {
  SocConfig config = Config();
  Device device(config);
  std::vector<float> data(1024, -2.0f);
  uint64_t x = Upload(device, data);
  LaunchResult r = RunTimed(device, CopyThenAbs(1024), 1, {ArgValue::Address(x)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  const InstrRecord* copy = Find(r, "data_copy", 3);
  const InstrRecord* set = Find(r, "set_flag", 4);
  const InstrRecord* wait = Find(r, "wait_flag", 5);
  const InstrRecord* abs = Find(r, "abs", 6);
  ASSERT_TRUE(copy && set && wait && abs);
  // set_flag fires on MTE2 when every earlier MTE2 instruction has ended...
  EXPECT_EQ(set->end_cycle, copy->end_cycle);
  // ...and the flag is visible flag_latency_cycles later; the wait passes that cycle and the
  // next V instruction starts in the same cycle: not one cycle earlier, not later.
  uint64_t visible = copy->end_cycle + config.flag_latency_cycles;
  EXPECT_EQ(wait->end_cycle, visible);
  EXPECT_EQ(abs->start_cycle, visible);
  EXPECT_NE(abs->start_cycle, visible - 1);
  // It was issued long before: only the flag held it back.
  EXPECT_LT(abs->issue_cycle + config.scalar_issue_cycles, visible);
  // V was blocked on the wait from the cycle it was ready until the flag became visible.
  EXPECT_EQ(FindPipe(r.cores[0], "V")->wait_flag_cycles,
            visible - (wait->issue_cycle + config.scalar_issue_cycles));
}

TEST(Timing, GoldenSingleVectorAdd) {
  // Ops: const (line 1), const, const, add. The scalar unit executes 3 consts at op_cycles each,
  // then issues the add at t_issue = 3 * op_cycles; it is ready at t_issue + issue_cycles and V
  // is idle, so:
  //   start = 3 * op + issue
  //   repeats = ceil(n * 4 / repeat_bytes)
  //   beats per repeat = 3: src0 = src1 = UB 0 reads every group of the repeat twice, and dst
  //   (UB 16 KB: same groups, same 64 KB bank) adds a write to the bank of those reads
  //   end = start + max(1, ceil(3 * repeats * cycles_per_repeat[add, float32]))
  //               + ceil(per_call_cycles[add, float32])
  //   cycles = launch_overhead(1 core) + end
  SocConfig c = Config();
  const int64_t n = 4096;
  KernelBuilder b("one_add", "golden.py");
  uint32_t a = b.Const(0), o = b.Const(n * 4);
  uint32_t cnt = b.Const(n, ir::DT_INT32);
  b.VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(o, ir::DT_FLOAT32),
              KernelBuilder::Ub(a, ir::DT_FLOAT32), KernelBuilder::Ub(a, ir::DT_FLOAT32), cnt);
  Device device(c);
  LaunchResult r = RunTimed(device, b.Build(), 1, {});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  const VectorCostRow* row = nullptr;
  for (const auto& v : c.vector_costs) {
    if (v.op == "add" && v.dtype == "float32") row = &v;
  }
  ASSERT_NE(row, nullptr);
  uint64_t start = 3 * c.scalar_op_cycles + c.scalar_issue_cycles;
  uint64_t repeats = (n * 4 + c.vector_repeat_bytes - 1) / c.vector_repeat_bytes;
  uint64_t end = start + std::max<uint64_t>(1, Ceil(3 * repeats * row->cycles_per_repeat)) +
                 Ceil(row->per_call_cycles);
  EXPECT_EQ(r.timeline.at(0).start_cycle, start);
  EXPECT_EQ(r.timeline.at(0).end_cycle, end);
  EXPECT_EQ(r.cycles, c.LaunchOverhead(1) + end);
  EXPECT_EQ(FindPipe(r.cores[0], "V")->busy_cycles, end - start);
  EXPECT_EQ(FindPipe(r.cores[0], "V")->bank_conflict_cycles,
            Ceil(3 * repeats * row->cycles_per_repeat) - Ceil(repeats * row->cycles_per_repeat));
}

TEST(Timing, GoldenCopyInAndOut) {
  // copy GM->UB of B bytes (line 3), set/wait MTE2_MTE3... expressed through V here:
  //   MTE2: start2 = 4 * op + issue (4 consts before it)
  //         L2 is cold, so every line misses: the copy waits for L2 (B / l2 rate) and for the
  //         HBM read channel (B / hbm_read + hbm_transfer_overhead), then the HBM latency:
  //         end2 = start2 + ceil(max(per_burst + B / mte2.rate, B / hbm_read + overhead,
  //                                  B / l2) + mte2.fixed + gm.latency)
  //   set_flag(MTE2_V) fires at end2; wait_flag(MTE2_V) on V passes at end2 + flag_latency;
  //   set_flag(V_MTE3) on V fires at once (V has nothing in flight) -> visible +flag_latency;
  //   MTE3: start3 = end2 + 2 * flag_latency
  //         end3 = start3 + ceil(per_burst + B / mte3.rate + mte3.fixed)  (no GM latency on
  //         writes; the NORMAL write goes into L2, its write-allocate fill occupies the HBM
  //         read channel without holding the copy)
  //   cycles = launch_overhead(1 core) + end3
  SocConfig c = Config();
  const int64_t bytes = 16384;
  KernelBuilder b("copy_in_out", "golden.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
  b.At(2);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(bytes / 4, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  uint32_t id2 = b.Const(1, ir::DT_INT32);
  b.At(3).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.At(4).SetFlag(kMte2V, id);
  b.At(5).WaitFlag(kMte2V, id);
  b.At(6).SetFlag(kVMte3, id2);
  b.At(7).WaitFlag(kVMte3, id2);
  b.At(8).DataCopy(KernelBuilder::Gm(y, ir::DT_FLOAT32), KernelBuilder::Ub(ub, ir::DT_FLOAT32), n);
  Device device(c);
  std::vector<float> data(bytes / 4, 1.5f);
  uint64_t gx = Upload(device, data);
  uint64_t gy = Upload(device, std::vector<float>(bytes / 4, 0.0f));
  LaunchResult r = RunTimed(device, b.Build(), 1, {ArgValue::Address(gx), ArgValue::Address(gy)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  EXPECT_EQ(Download<float>(device, gy, bytes / 4), data);

  uint64_t start2 = 4 * c.scalar_op_cycles + c.scalar_issue_cycles;
  double stream2 = c.mte2.per_burst_cycles + bytes / c.mte2.core_bytes_per_cycle;
  double moved2 =
      std::max({stream2, bytes / c.hbm_read_bytes_per_cycle + c.hbm_transfer_overhead_cycles,
                bytes / c.l2.bytes_per_cycle});
  uint64_t end2 = start2 + Ceil(moved2 + c.mte2.fixed_cycles + c.gm_latency_cycles);
  uint64_t start3 = end2 + 2 * c.flag_latency_cycles;
  uint64_t end3 = start3 + Ceil(c.mte3.per_burst_cycles + bytes / c.mte3.core_bytes_per_cycle +
                                c.mte3.fixed_cycles);
  const InstrRecord* in = Find(r, "data_copy", 3);
  const InstrRecord* out = Find(r, "data_copy", 8);
  ASSERT_TRUE(in && out);
  EXPECT_EQ(in->start_cycle, start2);
  EXPECT_EQ(in->end_cycle, end2);
  EXPECT_EQ(out->start_cycle, start3);
  EXPECT_EQ(out->end_cycle, end3);
  EXPECT_EQ(r.cycles, c.LaunchOverhead(1) + end3);
  // The stall and traffic statistics of both copies.
  const PipeStats* m2 = FindPipe(r.cores[0], "MTE2");
  const PipeStats* m3 = FindPipe(r.cores[0], "MTE3");
  EXPECT_EQ(m2->bandwidth_stall_cycles, Ceil(moved2) - Ceil(stream2));
  EXPECT_EQ(m2->hbm_read_bytes, static_cast<uint64_t>(bytes));
  EXPECT_EQ(m3->hbm_read_bytes, static_cast<uint64_t>(bytes));  // write-allocate
  EXPECT_EQ(m3->hbm_write_bytes, 0u);
  EXPECT_EQ(m3->bandwidth_stall_cycles, 0u);
}

TEST(Timing, TwoCopiesOnOnePipeOverlap) {
  // MTE2 accepts the second copy once the first has streamed its bytes at the engine's rate:
  //   start_b = start_a + max(1, ceil(per_burst + B / mte2.core_bytes_per_cycle))
  // while copy a still travels (its end adds fixed_cycles + GM latency), so b starts before a
  // ends: in-order issue, overlapping execution.
  SocConfig c = Config();
  const int64_t bytes = 4096;
  KernelBuilder b("two_copies", "overlap.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t u0 = b.Const(0), u1 = b.Const(bytes);
  uint32_t n = b.Const(bytes / 4, ir::DT_INT32);
  b.At(3).DataCopy(KernelBuilder::Ub(u0, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.At(4).DataCopy(KernelBuilder::Ub(u1, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  Device device(c);
  uint64_t gx = Upload(device, std::vector<float>(bytes / 4, 1.0f));
  LaunchResult r = RunTimed(device, b.Build(), 1, {ArgValue::Address(gx)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  const InstrRecord* a = Find(r, "data_copy", 3);
  const InstrRecord* second = Find(r, "data_copy", 4);
  ASSERT_TRUE(a && second);
  uint64_t stream =
      std::max<uint64_t>(1, Ceil(c.mte2.per_burst_cycles + bytes / c.mte2.core_bytes_per_cycle));
  EXPECT_EQ(second->start_cycle, a->start_cycle + stream);
  EXPECT_LT(second->start_cycle, a->end_cycle);
}

TEST(Timing, HbmBandwidthIsSharedBetweenCoresInEventOrder) {
  // Two cores each copy B bytes GM->UB at the same cycle, bypassing L2 (so core 1 does not hit
  // the lines core 0 fetched). With HBM slower than one core's engine, the grants serialise:
  // core 0 (earlier in the event order) moves its bytes by start + B/hbm + overhead, core 1 by
  // start + 2 (B/hbm + overhead).
  SocConfig c = Config();
  c.hbm_read_bytes_per_cycle = c.mte2.core_bytes_per_cycle / 4;
  const int64_t bytes = 8192;
  KernelBuilder b("two_cores", "hbm.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(bytes / 4, ir::DT_INT32);
  ir::TensorRef src = KernelBuilder::Gm(x, ir::DT_FLOAT32);
  src.set_cache_mode(ir::CACHE_MODE_DISABLE);
  b.At(3).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), src, n);
  Device device(c);
  uint64_t gx = Upload(device, std::vector<float>(bytes / 4, 1.0f));
  LaunchResult r = RunTimed(device, b.Build(), 2, {ArgValue::Address(gx)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  ASSERT_EQ(r.timeline.size(), 2u);
  uint64_t start = 2 * c.scalar_op_cycles + c.scalar_issue_cycles;
  double tail = c.mte2.fixed_cycles + c.gm_latency_cycles;
  for (const InstrRecord& rec : r.timeline) {
    EXPECT_EQ(rec.start_cycle, start);
    double moved =
        (rec.core + 1) * (bytes / c.hbm_read_bytes_per_cycle + c.hbm_transfer_overhead_cycles);
    EXPECT_EQ(rec.end_cycle, start + Ceil(moved + tail)) << "core " << rec.core;
  }
}

TEST(Timing, PipelinedVectorNeedsABarrierForDependentOps) {
  // add(t = a + a) then mul(u = t * t) on V. Without pipe_barrier(PIPE_V) the mul starts when V
  // accepts it (occupancy of the add) and reads t before the add has written it; with the
  // barrier it starts at add.end + barrier_cycles and sees the result.
  SocConfig c = Config();
  for (bool barrier : {false, true}) {
    KernelBuilder b("chain", "chain.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
    uint32_t a = b.Const(0), t = b.Const(1024), u = b.Const(2048);
    uint32_t n = b.Const(64, ir::DT_INT32);
    uint32_t id = b.Const(0, ir::DT_INT32);
    auto F = [&](uint32_t addr) { return KernelBuilder::Ub(addr, ir::DT_FLOAT32); };
    b.At(3).DataCopy(F(a), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
    b.SetFlag(kMte2V, id);
    b.WaitFlag(kMte2V, id);
    b.At(6).VecBinary(ir::VecBinaryOp::ADD, F(t), F(a), F(a), n);
    if (barrier) b.At(7).Barrier(ir::PIPE_V);
    b.At(8).VecBinary(ir::VecBinaryOp::MUL, F(u), F(t), F(t), n);
    b.At(9).SetFlag(kVMte3, id);
    b.WaitFlag(kVMte3, id);
    b.At(11).DataCopy(KernelBuilder::Gm(y, ir::DT_FLOAT32), F(u), n);
    Device device(c);
    uint64_t gx = Upload(device, std::vector<float>(64, 3.0f));
    uint64_t gy = Upload(device, std::vector<float>(64, -1.0f));
    LaunchResult r = RunTimed(device, b.Build(), 1, {ArgValue::Address(gx), ArgValue::Address(gy)},
                              /*exhibits_race=*/!barrier);
    ASSERT_EQ(r.status, LaunchResult::Status::kOk);
    const InstrRecord* add = Find(r, "add", 6);
    const InstrRecord* mul = Find(r, "mul", 8);
    ASSERT_TRUE(add && mul);
    std::vector<float> out = Download<float>(device, gy, 64);
    if (barrier) {
      EXPECT_EQ(mul->start_cycle, add->end_cycle + c.barrier_cycles);
      EXPECT_EQ(out[0], 36.0f);  // (3 + 3)^2
    } else {
      EXPECT_LT(mul->start_cycle, add->end_cycle);
      EXPECT_EQ(out[0], 0.0f);  // t was still the zeros UB started with
    }
  }
}

TEST(Timing, FullQueueStallsTheScalarUnit) {
  // depth + 2 independent vector ops (one source, a destination each): op 0 starts at once and
  // leaves the queue, ops 1..depth fill it, so op depth+1 can only be issued when op 1 starts
  // (its slot frees).
  SocConfig c = Config();
  KernelBuilder b("flood", "flood.py");
  uint32_t src = b.Const(0);
  // 20 repeats each: op 0 runs longer than the depth + 1 issues that fill the queue behind it.
  const int64_t bytes = 1280 * 4;
  uint32_t n = b.Const(1280, ir::DT_INT32);
  uint32_t depth = c.queue_depth_vector;
  ASSERT_LE((depth + 3) * bytes, static_cast<int64_t>(c.ub_bytes));
  std::vector<uint32_t> dsts;  // made first: scalar work between the issues would drain the queue
  for (uint32_t i = 0; i < depth + 2; ++i)
    dsts.push_back(b.Const(static_cast<int64_t>(i + 1) * bytes));
  for (uint32_t i = 0; i < depth + 2; ++i) {
    uint32_t dst = dsts[i];
    b.At(10 + i).VecUnary(ir::VecUnaryOp::RELU, KernelBuilder::Ub(dst, ir::DT_FLOAT32),
                          KernelBuilder::Ub(src, ir::DT_FLOAT32), n);
  }
  Device device(c);
  LaunchResult r = RunTimed(device, b.Build(), 1, {});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  const InstrRecord* second = Find(r, "relu", 11);
  const InstrRecord* last = Find(r, "relu", 10 + depth + 1);
  ASSERT_TRUE(second && last);
  EXPECT_EQ(last->issue_cycle, second->start_cycle);
  EXPECT_GT(r.cores[0].queue_full_stall_cycles, 0u);
}

}  // namespace
}  // namespace aicore::sim::testing
