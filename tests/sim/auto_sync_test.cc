// auto_sync / erase_user_flags (asc-api.md 1.1, ascendc-semantics.md 8.4): the syncs inserted at
// issue time from the dependency tracker. A kernel without flags computes the chip's stale
// result with auto_sync off and the exact one with it on; inserted pairs are real instructions
// marked in the trace; correct programs get nothing inserted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/sync/dep_tracker.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

struct AddRun {
  LaunchResult result;
  int wrong = 0;
};

AddRun RunAdd(AddKernelOptions o, bool auto_sync, bool erase = false) {
  constexpr uint32_t kBlocks = 2;
  Device device(Config());
  size_t n = kBlocks * o.block_len;
  std::vector<float> xs(n), ys(n);
  for (size_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i % 31) + 1.0f;
    ys[i] = static_cast<float>(i % 17) * 0.5f;
  }
  o.dtype = ir::DT_FLOAT32;
  uint64_t x = Upload(device, xs), y = Upload(device, ys);
  uint64_t z = Upload(device, std::vector<float>(n, 0.0f));
  ir::Kernel k = AddKernel(o);
  k.mutable_sync()->set_auto_sync(auto_sync);
  k.mutable_sync()->set_erase_user_flags(erase);
  auto program = Decode(k);
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto r =
      device.Launch(*program, kBlocks,
                    {ArgValue::Address(x), ArgValue::Address(y), ArgValue::Address(z)}, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok() && (auto_sync || !o.ExhibitsRace())) ExpectStrictClean(*r);
  AddRun out;
  out.result = *r;
  std::vector<float> zs = Download<float>(device, z, n);
  for (size_t i = 0; i < n; ++i) out.wrong += zs[i] != xs[i] + ys[i];
  return out;
}

int Count(const LaunchResult& r, const std::string& op, const std::string& detail_part) {
  int c = 0;
  for (const InstrRecord& rec : r.timeline) {
    if (rec.op == op && rec.detail.find(detail_part) != std::string::npos) ++c;
  }
  return c;
}

TEST(AutoSync, StaticKernelWithoutFlagsIsStaleWithoutAndExactWithAutoSync) {
  AddKernelOptions o;
  o.flags = false;
  AddRun off = RunAdd(o, /*auto_sync=*/false);
  ASSERT_EQ(off.result.status, LaunchResult::Status::kOk);
  EXPECT_GT(off.wrong, 0) << "the add must read UB before the copies land";
  EXPECT_EQ(Count(off.result, "set_flag", ""), 0);

  AddRun on = RunAdd(o, /*auto_sync=*/true);
  ASSERT_EQ(on.result.status, LaunchResult::Status::kOk);
  EXPECT_EQ(on.wrong, 0);
  EXPECT_TRUE(on.result.diagnostics.empty());
  // Each tile needs MTE2->V before the add and V->MTE3 before the copy-out; reusing a ping-pong
  // buffer needs V->MTE2 (the add read it) before the next copy-in into it.
  EXPECT_GT(Count(on.result, "set_flag", "MTE2_V id="), 0);
  EXPECT_GT(Count(on.result, "wait_flag", "V_MTE3 id="), 0);
  EXPECT_GT(Count(on.result, "wait_flag", "V_MTE2 id="), 0);
  EXPECT_EQ(Count(on.result, "set_flag", "inserted by auto_sync"),
            Count(on.result, "set_flag", ""));
  EXPECT_EQ(Count(on.result, "set_flag", ""), Count(on.result, "wait_flag", ""));
  // The inserted instructions cost time.
  EXPECT_GT(on.result.cycles, off.result.cycles);
}

TEST(AutoSync, TheFirstTileGetsExactlyTheTwoPairsItNeeds) {
  AddKernelOptions o;
  o.flags = false;
  o.block_len = 512;  // one tile
  AddRun on = RunAdd(o, true);
  ASSERT_EQ(on.result.status, LaunchResult::Status::kOk);
  EXPECT_EQ(on.wrong, 0);
  std::vector<std::string> got;
  for (const InstrRecord& rec : on.result.timeline) {
    if (rec.block_idx != 0 || rec.op == "data_copy" || rec.op == "add") continue;
    got.push_back(rec.pipe + " " + rec.op + " " + rec.detail + " @" +
                  std::to_string(rec.location.line));
  }
  std::vector<std::string> want = {
      "MTE2 set_flag MTE2_V id=0 inserted by auto_sync @14",
      "V wait_flag MTE2_V id=0 inserted by auto_sync @14",
      "V set_flag V_MTE3 id=0 inserted by auto_sync @17",
      "MTE3 wait_flag V_MTE3 id=0 inserted by auto_sync @17",
  };
  EXPECT_EQ(got, want);
}

TEST(AutoSync, CorrectFlagsGetNothingInserted) {
  AddRun on = RunAdd(AddKernelOptions{}, true);
  ASSERT_EQ(on.result.status, LaunchResult::Status::kOk);
  EXPECT_EQ(on.wrong, 0);
  EXPECT_EQ(Count(on.result, "set_flag", "inserted by auto_sync"), 0);
  EXPECT_EQ(Count(on.result, "wait_flag", "inserted by auto_sync"), 0);
  EXPECT_EQ(Count(on.result, "pipe_barrier", "inserted by auto_sync"), 0);
  AddRun off = RunAdd(AddKernelOptions{}, false);
  EXPECT_EQ(on.result.cycles, off.result.cycles);
}

TEST(AutoSync, EraseUserFlagsDropsTheProgramsFlagsAndInsertsItsOwn) {
  AddKernelOptions broken;
  broken.skip_mte2_v_wait = true;  // the user's flags are wrong; they are ignored anyway
  AddRun r = RunAdd(broken, /*auto_sync=*/false, /*erase=*/true);
  ASSERT_EQ(r.result.status, LaunchResult::Status::kOk);
  EXPECT_EQ(r.wrong, 0);
  EXPECT_TRUE(r.result.diagnostics.empty());
  int flags = Count(r.result, "set_flag", "") + Count(r.result, "wait_flag", "");
  EXPECT_GT(flags, 0);
  EXPECT_EQ(Count(r.result, "set_flag", "inserted by auto_sync") +
                Count(r.result, "wait_flag", "inserted by auto_sync"),
            flags);
}

// dst = |src| then dst2 = dst + dst: a vector RAW on the same pipe (line 6 reads what line 5
// writes). The vector pipe overlaps instructions, so without a barrier the add reads stale UB.
ir::Kernel VectorChain(bool auto_sync, bool copy_twice) {
  KernelBuilder b("chain", "chain.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  b.At(2);
  uint32_t n = b.Const(1024, ir::DT_INT32);
  uint32_t a = b.Const(0, ir::DT_UINT32), t = b.Const(4096, ir::DT_UINT32);
  uint32_t o = b.Const(8192, ir::DT_UINT32);
  b.At(4).DataCopy(KernelBuilder::Ub(a, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  if (copy_twice) {
    // Same-pipe MTE2 WAW: left manual (ascendc-semantics.md 8.4), so nothing is inserted here.
    b.At(3).DataCopy(KernelBuilder::Ub(a, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  }
  b.At(5).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(t, ir::DT_FLOAT32),
                   KernelBuilder::Ub(a, ir::DT_FLOAT32), n);
  b.At(6).VecBinary(ir::VecBinaryOp::ADD, KernelBuilder::Ub(o, ir::DT_FLOAT32),
                    KernelBuilder::Ub(t, ir::DT_FLOAT32), KernelBuilder::Ub(t, ir::DT_FLOAT32), n);
  b.At(7).DataCopy(KernelBuilder::Gm(z, ir::DT_FLOAT32), KernelBuilder::Ub(o, ir::DT_FLOAT32), n);
  b.Sync(auto_sync);
  return b.Build();
}

TEST(AutoSync, DependentVectorInstructionsGetAPipeVBarrier) {
  for (bool auto_sync : {false, true}) {
    Device device(Config());
    std::vector<float> xs(1024);
    for (int i = 0; i < 1024; ++i) xs[i] = static_cast<float>(i % 9) - 4.0f;
    uint64_t x = Upload(device, xs);
    uint64_t z = Upload(device, std::vector<float>(1024, 0.0f));
    auto program = Decode(VectorChain(auto_sync, /*copy_twice=*/true));
    LaunchOptions options = Strict();
    options.record_timeline = true;
    auto r = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(z)}, options);
    ASSERT_TRUE(r.ok());
    if (auto_sync) {
      // The MTE2 -> MTE2 overlap stays the author's job, and the race checker says so: it is
      // the one finding left (the two copies write the same bytes, so the result is right).
      ASSERT_EQ(r->check.races, 1u) << r->check.Text();
      const Diagnostic& d = r->diagnostics[0];
      EXPECT_EQ(d.race, "WAW");
      EXPECT_EQ(d.pipe + "/" + d.other_pipe, "MTE2/MTE2");
      EXPECT_NE(d.message.find("pipe_barrier(PIPE_MTE2)"), std::string::npos) << d.message;
    }
    std::vector<float> zs = Download<float>(device, z, 1024);
    int wrong = 0;
    for (int i = 0; i < 1024; ++i) wrong += zs[i] != 2.0f * std::abs(xs[i]);
    if (!auto_sync) {
      EXPECT_GT(wrong, 0);
      continue;
    }
    EXPECT_EQ(wrong, 0);
    std::vector<std::string> got;
    for (const InstrRecord& rec : r->timeline) {
      if (rec.detail.empty()) continue;
      got.push_back(rec.pipe + " " + rec.op + " " + rec.detail + " @" +
                    std::to_string(rec.location.line));
    }
    std::vector<std::string> want = {
        // Only the later of the two MTE2 copies needs to be waited for: the set fires after
        // every earlier MTE2 instruction; the MTE2 -> MTE2 overlap itself is not touched.
        "MTE2 set_flag MTE2_V id=0 inserted by auto_sync @5",
        "V wait_flag MTE2_V id=0 inserted by auto_sync @5",
        "V pipe_barrier PIPE_V inserted by auto_sync @6",
        "V set_flag V_MTE3 id=0 inserted by auto_sync @7",
        "MTE3 wait_flag V_MTE3 id=0 inserted by auto_sync @7",
    };
    EXPECT_EQ(got, want);
  }
}

// ---- the tracker itself ------------------------------------------------------------------------

constexpr uint32_t kAivPipes = 1u << PipeIndex(PipeId::kS) | 1u << PipeIndex(PipeId::kV) |
                               1u << PipeIndex(PipeId::kMte2) | 1u << PipeIndex(PipeId::kMte3);

MemRange Ub(uint64_t lo, uint64_t hi, bool write) { return MemRange{MemSpace::kUb, lo, hi, write}; }

uint32_t Bit(PipeId p) { return 1u << PipeIndex(p); }

// The tracker with the core's happens-before clocks, driven as the scalar unit drives them.
class Tracker {
 public:
  Tracker(uint32_t pipes, uint32_t max_records) : order_(35 * 8), records_(pipes, max_records) {}
  void OnAccess(PipeId p, const MemRange* r, int n, const Instr* instr) {
    records_.OnAccess(p, order_.OnAccess(p), r, n, instr);
  }
  uint32_t Unordered(PipeId p, const MemRange* r, int n, DepTracker::Conflict* first) const {
    return records_.Unordered(order_, p, r, n, first);
  }
  void OnSetFlag(PipeId p, uint32_t flag) { order_.OnSetFlag(p, flag); }
  void OnWaitFlag(PipeId p, uint32_t flag) {
    order_.OnWaitFlag(p, flag);
    records_.Prune(order_);
  }
  void OnBarrier(PipeId p) {
    order_.OnBarrier(p);
    records_.Prune(order_);
  }
  void OnBarrierAll() {
    order_.OnBarrierAll();
    records_.Prune(order_);
  }

 private:
  HappensBefore order_;
  DepTracker records_;
};

TEST(DepTracker, FlagsCarryOrderingTransitively) {
  Tracker t(kAivPipes, 64);
  MemRange w = Ub(0, 256, true);
  t.OnAccess(PipeId::kMte2, &w, 1, nullptr);
  MemRange r = Ub(128, 512, false);
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), Bit(PipeId::kMte2));  // RAW
  MemRange other = Ub(256, 512, false);
  EXPECT_EQ(t.Unordered(PipeId::kV, &other, 1, nullptr), 0u);  // disjoint
  MemRange read_only = Ub(0, 256, false);
  t.OnAccess(PipeId::kMte3, &read_only, 1, nullptr);
  MemRange read2 = Ub(0, 64, false);
  EXPECT_EQ(t.Unordered(PipeId::kV, &read2, 1, nullptr), Bit(PipeId::kMte2));  // R-R is fine
  // MTE2 -> MTE3 -> V: V learns about MTE2 through MTE3 (transitivity).
  t.OnSetFlag(PipeId::kMte2, 20 * 8);
  t.OnWaitFlag(PipeId::kMte3, 20 * 8);
  t.OnSetFlag(PipeId::kMte3, 6 * 8);
  t.OnWaitFlag(PipeId::kV, 6 * 8);
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), 0u);
  // V writing what MTE3 read before its set_flag is ordered too (WAR).
  MemRange vw = Ub(0, 32, true);
  EXPECT_EQ(t.Unordered(PipeId::kV, &vw, 1, nullptr), 0u);
}

TEST(DepTracker, SamePipeNeedsABarrierAndWaitsWithoutSetsTeachNothing) {
  Tracker t(kAivPipes, 64);
  MemRange w = Ub(0, 256, true);
  t.OnAccess(PipeId::kV, &w, 1, nullptr);
  MemRange r = Ub(0, 256, false);
  DepTracker::Conflict c;
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, &c), Bit(PipeId::kV));
  EXPECT_EQ(c.pipe, PipeId::kV);
  EXPECT_TRUE(c.earlier.write);
  t.OnWaitFlag(PipeId::kV, 5);  // no set issued: no knowledge
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), Bit(PipeId::kV));
  t.OnBarrier(PipeId::kV);
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), 0u);
}

TEST(DepTracker, ASetConsumedByAnEarlierWaitTeachesNoLaterWait) {
  Tracker t(kAivPipes, 64);
  constexpr uint32_t kFlag = 4 * 8;  // MTE2_V id 0
  t.OnWaitFlag(PipeId::kV, kFlag);   // issued before its set: pairs with the next set
  MemRange w = Ub(0, 256, true);
  t.OnAccess(PipeId::kMte2, &w, 1, nullptr);
  t.OnSetFlag(PipeId::kMte2, kFlag);  // consumed by the wait above at run time
  t.OnWaitFlag(PipeId::kV, kFlag);    // pairs with a set that is not issued yet
  MemRange r = Ub(0, 256, false);
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), Bit(PipeId::kMte2));
}

TEST(DepTracker, PipeAllOrdersEverythingAndFoldingNeverMissesAConflict) {
  Tracker t(kAivPipes, 4);
  for (uint64_t i = 0; i < 10; ++i) {
    MemRange w = Ub(i * 1024, i * 1024 + 32, true);
    t.OnAccess(PipeId::kMte2, &w, 1, nullptr);
  }
  // The oldest ranges were folded; a read of the first one still conflicts.
  MemRange r = Ub(0, 32, false);
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), Bit(PipeId::kMte2));
  t.OnBarrierAll();
  EXPECT_EQ(t.Unordered(PipeId::kV, &r, 1, nullptr), 0u);
}

}  // namespace
}  // namespace aicore::sim::testing
