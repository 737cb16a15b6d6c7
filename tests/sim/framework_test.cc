// The framework library (TPipe, TQue, TBuf, TBufPool) as the scalar unit runs it: the exact
// set_flag/wait_flag sequence of double-buffered queue loops (ascendc-semantics.md 8.2), the
// overlap depth 2 buys, the seed's two-stage TBufPool example, event id allocation, and every
// misuse as a kernel fault naming the object and the source line.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report.pb.h"
#include "sim/fwk/event_pool.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

using FW = ir::FrameworkOp;

// A launch that runs to the end must be clean under strict checking unless the kernel is
// written to race (`exhibits_race`); the misuse tests end in a fault instead.
LaunchResult Launch(Device& device, const ir::Kernel& k, const std::vector<ArgValue>& args,
                    uint32_t blocks = 1, bool exhibits_race = false) {
  auto program = Decode(k);
  EXPECT_NE(program, nullptr);
  if (program == nullptr) return LaunchResult();
  LaunchOptions options = Strict();
  options.record_timeline = true;
  auto r = device.Launch(*program, blocks, args, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok() && r->status == LaunchResult::Status::kOk && !exhibits_race) ExpectStrictClean(*r);
  return r.ok() ? *r : LaunchResult();
}

// "PIPE op detail" of every set_flag / wait_flag, in the order the scalar unit issued them.
std::vector<std::string> FlagSequence(const LaunchResult& r) {
  std::vector<const InstrRecord*> flags;
  for (const InstrRecord& rec : r.timeline) {
    if (rec.op == "set_flag" || rec.op == "wait_flag") flags.push_back(&rec);
  }
  std::stable_sort(flags.begin(), flags.end(), [](const InstrRecord* a, const InstrRecord* b) {
    return a->issue_cycle < b->issue_cycle;
  });
  std::vector<std::string> out;
  for (const InstrRecord* rec : flags) out.push_back(rec->pipe + " " + rec->op + " " + rec->detail);
  return out;
}

int CountInserted(const LaunchResult& r) {
  int n = 0;
  for (const InstrRecord& rec : r.timeline) {
    if (rec.detail.find("inserted by auto_sync") != std::string::npos) ++n;
  }
  return n;
}

std::string Errors(const LaunchResult& r) {
  std::string s;
  for (const Diagnostic& d : r.diagnostics) s += d.message + "\n";
  return s;
}

// Tutorial-style z = x + x through a VECIN and a VECOUT queue of `depth` (and as many buffers).
// Lines: 2 TPipe, 3 queues, 5 init_buffer, 10-12 copy-in, 20-24 compute, 30-32 copy-out,
// 40 destructor.
ir::Kernel QueueAdd(uint32_t depth, int64_t tiles, int64_t tile_len, bool auto_sync = true) {
  KernelBuilder b("queue_add", "qadd.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  b.At(2).Fwk(FW::PIPE_INIT);
  b.At(3);
  uint32_t inq = b.Que("inX", ir::POS_VECIN, depth);
  uint32_t outq = b.Que("outZ", ir::POS_VECOUT, depth);
  b.At(5).InitBuffer(inq, depth, tile_len * 4);
  b.InitBuffer(outq, depth, tile_len * 4);
  uint32_t count = b.Const(tile_len, ir::DT_INT32);
  auto loop = b.BeginFor(b.Const(0), b.Const(tiles), b.Const(1));
  uint32_t off = b.Mul(loop.iv, b.Const(tile_len));
  uint32_t gx = b.GmAddr(x, off, 4), gz = b.GmAddr(z, off, 4);
  b.At(10);
  KernelBuilder::Tensor xt = b.AllocTensor(inq);
  b.At(11).DataCopy(KernelBuilder::Ub(xt.addr, ir::DT_FLOAT32, ir::POS_VECIN),
                    KernelBuilder::Gm(gx, ir::DT_FLOAT32), count);
  b.At(12).Enque(inq, xt.addr);
  b.At(20);
  KernelBuilder::Tensor xd = b.Deque(inq);
  b.At(21);
  KernelBuilder::Tensor zt = b.AllocTensor(outq);
  b.At(22).VecBinary(ir::VecBinaryOp::ADD,
                     KernelBuilder::Ub(zt.addr, ir::DT_FLOAT32, ir::POS_VECOUT),
                     KernelBuilder::Ub(xd.addr, ir::DT_FLOAT32, ir::POS_VECIN),
                     KernelBuilder::Ub(xd.addr, ir::DT_FLOAT32, ir::POS_VECIN), count);
  b.At(23).Enque(outq, zt.addr);
  b.At(24).FreeTensor(inq, xd.addr);
  b.At(30);
  KernelBuilder::Tensor zd = b.Deque(outq);
  b.At(31).DataCopy(KernelBuilder::Gm(gz, ir::DT_FLOAT32),
                    KernelBuilder::Ub(zd.addr, ir::DT_FLOAT32, ir::POS_VECOUT), count);
  b.At(32).FreeTensor(outq, zd.addr);
  b.EndFor();
  b.At(40).Fwk(FW::PIPE_DESTROY);
  b.Sync(auto_sync);
  return b.Build();
}

struct QueueAddRun {
  LaunchResult result;
  bool exact = false;
};

QueueAddRun RunQueueAdd(uint32_t depth, int64_t tiles, int64_t tile_len, bool auto_sync = true) {
  Device device(Config());
  std::vector<float> xs(tiles * tile_len);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i % 97) - 40.0f;
  uint64_t x = Upload(device, xs);
  uint64_t z = Upload(device, std::vector<float>(xs.size(), 0.0f));
  QueueAddRun out;
  out.result = Launch(device, QueueAdd(depth, tiles, tile_len, auto_sync),
                      {ArgValue::Address(x), ArgValue::Address(z)});
  std::vector<float> zs = Download<float>(device, z, xs.size());
  out.exact = true;
  for (size_t i = 0; i < xs.size(); ++i) out.exact = out.exact && zs[i] == xs[i] + xs[i];
  return out;
}

TEST(Framework, DoubleBufferedQueuesIssueTheLibrarysFlagSequence) {
  QueueAddRun r = RunQueueAdd(/*depth=*/2, /*tiles=*/3, /*tile_len=*/512);
  ASSERT_EQ(r.result.status, LaunchResult::Status::kOk) << Errors(r.result);
  EXPECT_TRUE(r.exact);
  // Enque takes the lowest free id and DeQue releases it, so data-ready ids stay 0; the
  // buffer-free ids alternate 0, 1 because each is held until the buffer's next AllocTensor.
  std::vector<std::string> want = {
      // tile 0 (buffer 0): first use of each buffer waits on nothing
      "MTE2 set_flag MTE2_V id=0 (TQue inX.enque)",
      "V wait_flag MTE2_V id=0 (TQue inX.deque)",
      "V set_flag V_MTE3 id=0 (TQue outZ.enque)",
      "V set_flag V_MTE2 id=0 (TQue inX.free_tensor)",
      "MTE3 wait_flag V_MTE3 id=0 (TQue outZ.deque)",
      "MTE3 set_flag MTE3_V id=0 (TQue outZ.free_tensor)",
      // tile 1 (buffer 1)
      "MTE2 set_flag MTE2_V id=0 (TQue inX.enque)",
      "V wait_flag MTE2_V id=0 (TQue inX.deque)",
      "V set_flag V_MTE3 id=0 (TQue outZ.enque)",
      "V set_flag V_MTE2 id=1 (TQue inX.free_tensor)",
      "MTE3 wait_flag V_MTE3 id=0 (TQue outZ.deque)",
      "MTE3 set_flag MTE3_V id=1 (TQue outZ.free_tensor)",
      // tile 2 (buffer 0 again): AllocTensor waits its pending free event on the producer pipe
      "MTE2 wait_flag V_MTE2 id=0 (TQue inX.alloc_tensor)",
      "MTE2 set_flag MTE2_V id=0 (TQue inX.enque)",
      "V wait_flag MTE2_V id=0 (TQue inX.deque)",
      "V wait_flag MTE3_V id=0 (TQue outZ.alloc_tensor)",
      "V set_flag V_MTE3 id=0 (TQue outZ.enque)",
      "V set_flag V_MTE2 id=0 (TQue inX.free_tensor)",
      "MTE3 wait_flag V_MTE3 id=0 (TQue outZ.deque)",
      "MTE3 set_flag MTE3_V id=0 (TQue outZ.free_tensor)",
      // ~TPipe: every free buffer's pending event, queue by queue
      "MTE2 wait_flag V_MTE2 id=0 (TPipe.destroy)",
      "MTE2 wait_flag V_MTE2 id=1 (TPipe.destroy)",
      "V wait_flag MTE3_V id=0 (TPipe.destroy)",
      "V wait_flag MTE3_V id=1 (TPipe.destroy)",
  };
  EXPECT_EQ(FlagSequence(r.result), want);
  // The queues order everything: auto_sync has nothing to add, and no flag is left set.
  EXPECT_EQ(CountInserted(r.result), 0);
  EXPECT_TRUE(r.result.diagnostics.empty()) << Errors(r.result);
}

TEST(Framework, SingleBufferedQueuesReuseIdZero) {
  QueueAddRun r = RunQueueAdd(/*depth=*/1, /*tiles=*/3, /*tile_len=*/512);
  ASSERT_EQ(r.result.status, LaunchResult::Status::kOk) << Errors(r.result);
  EXPECT_TRUE(r.exact);
  std::vector<std::string> tile0 = {
      "MTE2 set_flag MTE2_V id=0 (TQue inX.enque)",
      "V wait_flag MTE2_V id=0 (TQue inX.deque)",
      "V set_flag V_MTE3 id=0 (TQue outZ.enque)",
      "V set_flag V_MTE2 id=0 (TQue inX.free_tensor)",
      "MTE3 wait_flag V_MTE3 id=0 (TQue outZ.deque)",
      "MTE3 set_flag MTE3_V id=0 (TQue outZ.free_tensor)",
  };
  std::vector<std::string> later = {
      "MTE2 wait_flag V_MTE2 id=0 (TQue inX.alloc_tensor)",
      "MTE2 set_flag MTE2_V id=0 (TQue inX.enque)",
      "V wait_flag MTE2_V id=0 (TQue inX.deque)",
      "V wait_flag MTE3_V id=0 (TQue outZ.alloc_tensor)",
      "V set_flag V_MTE3 id=0 (TQue outZ.enque)",
      "V set_flag V_MTE2 id=0 (TQue inX.free_tensor)",
      "MTE3 wait_flag V_MTE3 id=0 (TQue outZ.deque)",
      "MTE3 set_flag MTE3_V id=0 (TQue outZ.free_tensor)",
  };
  std::vector<std::string> want = tile0;
  want.insert(want.end(), later.begin(), later.end());
  want.insert(want.end(), later.begin(), later.end());
  want.push_back("MTE2 wait_flag V_MTE2 id=0 (TPipe.destroy)");
  want.push_back("V wait_flag MTE3_V id=0 (TPipe.destroy)");
  EXPECT_EQ(FlagSequence(r.result), want);
  EXPECT_EQ(CountInserted(r.result), 0);
}

bool Overlap(const InstrRecord& a, const InstrRecord& b) {
  return a.start_cycle < b.end_cycle && b.start_cycle < a.end_cycle;
}

bool AnyOverlap(const LaunchResult& r, const std::string& pa, const std::string& oa,
                const std::string& pb, const std::string& ob) {
  for (const InstrRecord& a : r.timeline) {
    if (a.pipe != pa || a.op != oa) continue;
    for (const InstrRecord& b : r.timeline) {
      if (b.pipe == pb && b.op == ob && Overlap(a, b)) return true;
    }
  }
  return false;
}

TEST(Framework, DoubleBufferingOverlapsCopyInComputeAndCopyOut) {
  QueueAddRun one = RunQueueAdd(1, 8, 4096);
  QueueAddRun two = RunQueueAdd(2, 8, 4096);
  ASSERT_EQ(one.result.status, LaunchResult::Status::kOk) << Errors(one.result);
  ASSERT_EQ(two.result.status, LaunchResult::Status::kOk) << Errors(two.result);
  EXPECT_TRUE(one.exact);
  EXPECT_TRUE(two.exact);
  EXPECT_LT(two.result.cycles, one.result.cycles);
  EXPECT_TRUE(AnyOverlap(two.result, "MTE2", "data_copy", "V", "add"));
  EXPECT_TRUE(AnyOverlap(two.result, "V", "add", "MTE3", "data_copy"));
  EXPECT_TRUE(AnyOverlap(two.result, "MTE2", "data_copy", "MTE3", "data_copy"));
  // With one buffer the next copy-in waits for the compute that frees it.
  EXPECT_FALSE(AnyOverlap(one.result, "MTE2", "data_copy", "V", "add"));
}

TEST(Framework, TimelineReachesTheReportProto) {
  QueueAddRun r = RunQueueAdd(2, 2, 256);
  aicore::report::v1::LaunchReport report;
  ToProto(r.result, &report);
  ASSERT_EQ(report.timeline_size(), static_cast<int>(r.result.timeline.size()));
  ASSERT_GT(report.timeline_size(), 0);
  for (int i = 0; i < report.timeline_size(); ++i) {
    EXPECT_EQ(report.timeline(i).detail(), r.result.timeline[i].detail);
    EXPECT_EQ(report.timeline(i).end_cycle(), r.result.timeline[i].end_cycle);
  }
}

// The seed's multi-stage pool example (TBufPool.init_buffer): pool0 (131072 bytes) holds src_que0
// and two 65536-byte sub-pools, pool2 aliasing pool1; stage 1 runs in pool1, stage 2 reuses the
// same memory through pool2 after pool1.reset(). x stays in src_que0 across both stages:
// stage 1 writes x + y to out[0, n), stage 2 writes x * y to out[n, 2n).
ir::Kernel TwoStagePool(bool auto_sync) {
  constexpr int64_t n = 8192;  // 32768 bytes of float32: one pool1/pool2 buffer
  KernelBuilder b("two_stage", "pool.py");
  uint32_t src0 = b.PointerParam("src0", ir::DT_FLOAT32);
  uint32_t src1 = b.PointerParam("src1", ir::DT_FLOAT32);
  uint32_t dst = b.PointerParam("dst", ir::DT_FLOAT32);
  b.At(2).Fwk(FW::PIPE_INIT);
  b.At(3);
  uint32_t que0 = b.Que("src_que0", ir::POS_VECIN, 1);
  uint32_t que1 = b.Que("src_que1", ir::POS_VECIN, 1);
  uint32_t out0 = b.Que("dst_que0", ir::POS_VECOUT, 1);
  uint32_t que2 = b.Que("src_que2", ir::POS_VECIN, 1);
  uint32_t out1 = b.Que("dst_que1", ir::POS_VECOUT, 1);
  b.At(4);
  uint32_t pool0 = b.Pool("tbuf_pool0", ir::POS_VECIN, 4);
  uint32_t pool1 = b.Pool("tbuf_pool1", ir::POS_VECIN, 2);
  uint32_t pool2 = b.Pool("tbuf_pool2", ir::POS_VECIN, 2);
  b.At(10).PoolOp(FW::INIT_BUF_POOL, 0, pool0, 0, {b.Const(131072, ir::DT_INT32)});
  b.At(11).PoolOp(FW::POOL_INIT_BUFFER, pool0, 0, 0,
                  {b.Const(1, ir::DT_INT32), b.Const(65536, ir::DT_INT32)});
  b.kernel().mutable_body()->mutable_ops()->rbegin()->mutable_framework()->set_queue(que0);
  b.At(12).PoolOp(FW::POOL_INIT_BUF_POOL, pool0, pool1, 0, {b.Const(65536, ir::DT_INT32)});
  b.At(13).PoolOp(FW::POOL_INIT_BUF_POOL, pool0, pool2, pool1, {b.Const(65536, ir::DT_INT32)});
  uint32_t count = b.Const(n, ir::DT_INT32);
  auto ub = [](uint32_t addr, ir::Position pos) {
    return KernelBuilder::Ub(addr, ir::DT_FLOAT32, pos);
  };
  auto gm = [](uint32_t addr) { return KernelBuilder::Gm(addr, ir::DT_FLOAT32); };
  // x: pool0's own buffer, alive through both stages.
  b.At(20);
  KernelBuilder::Tensor x = b.AllocTensor(que0);
  b.DataCopy(ub(x.addr, ir::POS_VECIN), gm(src0), count);
  b.Enque(que0, x.addr);
  KernelBuilder::Tensor xd = b.Deque(que0);
  auto stage = [&](uint32_t line, uint32_t pool, uint32_t in_q, uint32_t out_q,
                   ir::VecBinaryOp::Kind kind, uint32_t gm_out) {
    b.At(line);
    ir::FrameworkOp* f =
        b.Fwk(FW::POOL_INIT_BUFFER, in_q, {b.Const(1, ir::DT_INT32), b.Const(32768, ir::DT_INT32)});
    f->set_pool(pool);
    f = b.Fwk(FW::POOL_INIT_BUFFER, out_q,
              {b.Const(1, ir::DT_INT32), b.Const(32768, ir::DT_INT32)});
    f->set_pool(pool);
    b.At(line + 1);
    KernelBuilder::Tensor y = b.AllocTensor(in_q);
    b.DataCopy(ub(y.addr, ir::POS_VECIN), gm(src1), count);
    b.Enque(in_q, y.addr);
    b.At(line + 2);
    KernelBuilder::Tensor yd = b.Deque(in_q);
    KernelBuilder::Tensor z = b.AllocTensor(out_q);
    b.VecBinary(kind, ub(z.addr, ir::POS_VECOUT), ub(xd.addr, ir::POS_VECIN),
                ub(yd.addr, ir::POS_VECIN), count);
    b.Enque(out_q, z.addr);
    b.FreeTensor(in_q, yd.addr);
    b.At(line + 3);
    KernelBuilder::Tensor zd = b.Deque(out_q);
    b.DataCopy(gm(gm_out), ub(zd.addr, ir::POS_VECOUT), count);
    b.FreeTensor(out_q, zd.addr);
    b.At(line + 4).PoolOp(FW::POOL_RESET, pool, 0, 0, {});
  };
  stage(30, pool1, que1, out0, ir::VecBinaryOp::ADD, dst);
  stage(40, pool2, que2, out1, ir::VecBinaryOp::MUL, b.GmAddr(dst, b.Const(n), 4));
  b.At(50).FreeTensor(que0, xd.addr);
  b.At(51).PoolOp(FW::POOL_RESET, pool0, 0, 0, {});
  b.At(52).Fwk(FW::PIPE_RESET);
  b.At(53).Fwk(FW::PIPE_DESTROY);
  b.Sync(auto_sync);
  return b.Build();
}

TEST(Framework, TwoStageBufPoolFromTheSeedIsExact) {
  constexpr int64_t n = 8192;
  for (bool auto_sync : {false, true}) {
    Device device(Config());
    std::vector<float> a(n), c(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = static_cast<float>(i % 13) - 6.0f;
      c[i] = static_cast<float>(i % 7) + 0.5f;
    }
    uint64_t src0 = Upload(device, a), src1 = Upload(device, c);
    uint64_t dst = Upload(device, std::vector<float>(2 * n, -1.0f));
    LaunchResult r =
        Launch(device, TwoStagePool(auto_sync),
               {ArgValue::Address(src0), ArgValue::Address(src1), ArgValue::Address(dst)});
    ASSERT_EQ(r.status, LaunchResult::Status::kOk) << Errors(r);
    EXPECT_TRUE(r.diagnostics.empty()) << Errors(r);
    std::vector<float> out = Download<float>(device, dst, 2 * n);
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      wrong += out[i] != a[i] + c[i];
      wrong += out[n + i] != a[i] * c[i];
    }
    EXPECT_EQ(wrong, 0) << "auto_sync=" << auto_sync;
    // pool1.reset() ends stage 1's pending events before stage 2 reuses the memory.
    bool waited = false;
    for (const std::string& f : FlagSequence(r)) {
      waited = waited || f == "MTE2 wait_flag V_MTE2 id=0 (TBufPool tbuf_pool1.reset)";
    }
    EXPECT_TRUE(waited);
    EXPECT_EQ(CountInserted(r), 0);
  }
}

// ---- event ids ---------------------------------------------------------------------------------

TEST(Framework, EventIdsAreAllocatedLowestFreeFirst) {
  KernelBuilder b("ids", "ids.py");
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t a0 = b.At(3).FwkValue(FW::ALLOC_EVENT_ID, 0, kMte2V);  // 0
  uint32_t a1 = b.FwkValue(FW::ALLOC_EVENT_ID, 0, kMte2V);        // 1
  ir::FrameworkOp* rel = b.Fwk(FW::RELEASE_EVENT_ID, 0, {a0});
  rel->set_event(kMte2V);
  uint32_t a2 = b.FwkValue(FW::ALLOC_EVENT_ID, 0, kMte2V);  // 0 again: lowest free
  uint32_t f1 = b.FwkValue(FW::FETCH_EVENT_ID, 0, kMte2V);  // 2, not reserved...
  uint32_t f2 = b.FwkValue(FW::FETCH_EVENT_ID, 0, kMte2V);  // ...so 2 again
  for (uint32_t id : {a2, f1, f2, a1}) {
    b.At(5).SetFlag(kMte2V, id);
    b.WaitFlag(kMte2V, id);
  }
  b.At(6).Fwk(FW::PIPE_DESTROY);
  Device device(Config());
  LaunchResult r = Launch(device, b.Build(), {});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk) << Errors(r);
  std::vector<std::string> want;
  for (int id : {0, 2, 2, 1}) {
    want.push_back("MTE2 set_flag MTE2_V id=" + std::to_string(id));
    want.push_back("V wait_flag MTE2_V id=" + std::to_string(id));
  }
  EXPECT_EQ(FlagSequence(r), want);
}

TEST(EventPool, LowestFreeSharedByLibraryAndAutoSync) {
  EventPool pool(8);
  EXPECT_EQ(pool.Alloc(kMte2V), 0);
  EXPECT_EQ(pool.Alloc(kMte2V), 1);
  EXPECT_EQ(pool.AllocInserted(kMte2V, /*busy=*/0b100), 3);  // 2 is in flight elsewhere
  EXPECT_EQ(pool.Fetch(kMte2V), 2);
  EXPECT_TRUE(pool.Release(kMte2V, 0));
  EXPECT_EQ(pool.Alloc(kMte2V), 0);
  EXPECT_EQ(pool.Alloc(kVMte2), 0);  // per event
  pool.ResetLibrary();               // TPipe init: the inserted pair's id stays taken
  EXPECT_EQ(pool.Alloc(kMte2V), 0);
  EXPECT_EQ(pool.Alloc(kMte2V), 1);
  EXPECT_EQ(pool.Alloc(kMte2V), 2);
  EXPECT_EQ(pool.Alloc(kMte2V), 4);
  pool.ReleaseInserted(kMte2V, 3);
  EXPECT_EQ(pool.Alloc(kMte2V), 3);
  for (int i = 5; i < 8; ++i) EXPECT_EQ(pool.Alloc(kMte2V), i);
  EXPECT_EQ(pool.Alloc(kMte2V), -1);
  EXPECT_FALSE(pool.Release(kMte2V, 8));
}

// ---- queries and TBuf --------------------------------------------------------------------------

TEST(Framework, QueueStateQueries) {
  // The queries' answers become MTE2_MTE3 flag ids, which the trace shows.
  KernelBuilder b("query", "q.py");
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t q = b.At(3).Que("q", ir::POS_VECIN, 2);
  b.At(4).InitBuffer(q, 2, 1000);  // rounded to 1024 per buffer
  auto as_id = [&](uint32_t v, ir::DType t) { return b.Cast(v, t, ir::DT_INT32); };
  auto flag = [&](uint32_t id) {
    b.SetFlag(kMte2Mte3, id);
    b.WaitFlag(kMte2Mte3, id);
  };
  b.At(5);
  flag(b.FwkValue(FW::TENSOR_COUNT_IN_QUE, q));  // 0
  KernelBuilder::Tensor t = b.AllocTensor(q);
  b.Enque(q, t.addr);
  flag(b.FwkValue(FW::TENSOR_COUNT_IN_QUE, q));                    // 1
  flag(as_id(b.FwkValue(FW::HAS_TENSOR_IN_QUE, q), ir::DT_BOOL));  // 1
  flag(as_id(b.FwkValue(FW::VACANT_IN_QUE, q), ir::DT_BOOL));      // 1 (1 < depth 2)
  flag(as_id(b.FwkValue(FW::HAS_IDLE_BUFFER, q), ir::DT_BOOL));    // 1 (buffer 1 is free)
  KernelBuilder::Tensor t2 = b.AllocTensor(q);
  b.Enque(q, t2.addr);
  flag(as_id(b.FwkValue(FW::VACANT_IN_QUE, q), ir::DT_BOOL));    // 0
  flag(as_id(b.FwkValue(FW::HAS_IDLE_BUFFER, q), ir::DT_BOOL));  // 0
  // The second buffer starts at 1024 (1000 rounded up to 32 bytes): 1024 / 256 = id 4.
  flag(as_id(b.Binary(ir::ScalarBinaryOp::DIV, ir::DT_UINT32, t2.addr, b.Const(256, ir::DT_UINT32)),
             ir::DT_UINT32));
  flag(as_id(t2.bytes, ir::DT_UINT32));  // 1024 bytes: out of range, proves the length below
  ir::Kernel k = b.Build();
  Device device(Config());
  LaunchResult r = Launch(device, k, {});
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  ASSERT_EQ(r.diagnostics.size(), 1u) << Errors(r);
  EXPECT_NE(r.diagnostics[0].message.find("event id 1024 of MTE2_MTE3 is out of range"),
            std::string::npos)
      << r.diagnostics[0].message;
  std::vector<std::string> want;
  for (std::string e : {"0", "ENQ0", "1", "1", "1", "1", "ENQ1", "0", "0", "4"}) {
    if (e == "ENQ0" || e == "ENQ1") {
      want.push_back("MTE2 set_flag MTE2_V id=" + std::string(e == "ENQ0" ? "0" : "1") +
                     " (TQue q.enque)");
    } else {
      want.push_back("MTE2 set_flag MTE2_MTE3 id=" + e);
      want.push_back("MTE3 wait_flag MTE2_MTE3 id=" + e);
    }
  }
  EXPECT_EQ(FlagSequence(r), want);
}

// Copies 32 floats from x into UB at `addr`, then out to z from the literal UB address 2048, and
// checks z: exact only if `addr` is 2048.
void ExpectUbAddressIs2048(KernelBuilder& b, uint32_t x, uint32_t z, uint32_t addr) {
  uint32_t n = b.Const(32, ir::DT_INT32);
  b.DataCopy(KernelBuilder::Ub(addr, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.SetFlag(kMte2Mte3, b.Const(0, ir::DT_INT32));
  b.WaitFlag(kMte2Mte3, b.Const(0, ir::DT_INT32));
  b.DataCopy(KernelBuilder::Gm(z, ir::DT_FLOAT32),
             KernelBuilder::Ub(b.Const(2048, ir::DT_UINT32), ir::DT_FLOAT32), n);
  b.At(6).Fwk(FW::PIPE_DESTROY);
  Device device(Config());
  std::vector<float> xs(32);
  for (int i = 0; i < 32; ++i) xs[i] = static_cast<float>(i) * 1.5f;
  uint64_t xa = Upload(device, xs);
  uint64_t za = Upload(device, std::vector<float>(32, 0.0f));
  LaunchResult r = Launch(device, b.Build(), {ArgValue::Address(xa), ArgValue::Address(za)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk) << Errors(r);
  EXPECT_EQ(Download<float>(device, za, 32), xs);
}

TEST(Framework, TBufGetReturnsItsBaseAfterEarlierBuffers) {
  // q takes [0, 2048); the TBuf's 100 bytes round to 128 at 2048.
  KernelBuilder b("tbuf", "t.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t q = b.At(3).Que("q", ir::POS_VECIN, 2);
  uint32_t tb = b.TBuf("tmp");
  b.At(4).InitBuffer(q, 2, 1000);
  b.InitBuffer(tb, 1, 100);
  KernelBuilder::Tensor t = b.At(5).TBufGet(tb);
  ExpectUbAddressIs2048(b, x, z, t.addr);
}

TEST(Framework, StackBufferIsTheUbAboveThePipesBuffers) {
  // The adv library's scratch (Ascend C's PopStackBuffer): q takes [0, 2048), so the scratch
  // starts at 2048.
  KernelBuilder b("stack", "t.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t z = b.PointerParam("z", ir::DT_FLOAT32);
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t q = b.At(3).Que("q", ir::POS_VECIN, 2);
  b.At(4).InitBuffer(q, 2, 1000);
  ir::FrameworkOp* f = b.At(5).Fwk(FW::STACK_BUFFER, 0, {b.Const(64, ir::DT_UINT32)});
  KernelBuilder::Tensor t{b.NewValue(), b.NewValue()};
  f->set_result(t.addr);
  f->set_result2(t.bytes);
  ExpectUbAddressIs2048(b, x, z, t.addr);
}

// ---- misuse: each a kernel fault naming the object and the line --------------------------------

struct Misuse {
  LaunchResult result;
  const Diagnostic* fault = nullptr;
};

Misuse RunMisuse(const ir::Kernel& k, std::vector<ArgValue> args = {}) {
  static Device* device = new Device(Config());
  Misuse m;
  m.result = Launch(*device, k, args);
  EXPECT_EQ(m.result.status, LaunchResult::Status::kKernelFault) << Errors(m.result);
  for (const Diagnostic& d : m.result.diagnostics) {
    if (d.severity == Diagnostic::Severity::kError) {
      m.fault = &d;
      break;
    }
  }
  return m;
}

void ExpectFault(const Misuse& m, uint32_t line, const std::string& text) {
  ASSERT_NE(m.fault, nullptr);
  EXPECT_EQ(m.fault->location.line, line) << m.fault->message;
  EXPECT_EQ(m.fault->location.file, "bad.py");
  EXPECT_NE(m.fault->message.find(text), std::string::npos) << m.fault->message;
}

// A kernel with queue q (VECIN, `depth`, `num` buffers of 1 KiB) set up on lines 2-4.
struct Bad {
  KernelBuilder b{"bad", "bad.py"};
  uint32_t q = 0;
  Bad(uint32_t depth = 1, int64_t num = 1) {
    b.At(2).Fwk(FW::PIPE_INIT);
    q = b.At(3).Que("inQueueX", ir::POS_VECIN, depth);
    b.At(4).InitBuffer(q, num, 1024);
  }
};

TEST(FrameworkMisuse, DequeOfAnEmptyQueue) {
  Bad k;
  k.b.At(9).Deque(k.q);
  Misuse m = RunMisuse(k.b.Build());
  ExpectFault(m, 9, "framework at bad.py:9, cycle ");
  ExpectFault(m, 9, ": TQue inQueueX.deque(): deque of an empty queue: no tensor is enqueued");
}

TEST(FrameworkMisuse, EnqueBeyondDepth) {
  Bad k(/*depth=*/1, /*num=*/2);
  KernelBuilder::Tensor a = k.b.At(5).AllocTensor(k.q);
  KernelBuilder::Tensor c = k.b.AllocTensor(k.q);
  k.b.At(6).Enque(k.q, a.addr);
  k.b.At(7).Enque(k.q, c.addr);
  ExpectFault(RunMisuse(k.b.Build()), 7,
              "TQue inQueueX.enque(): enque beyond depth: the queue already holds 1 tensor "
              "(depth = 1)");
}

TEST(FrameworkMisuse, AllocWithNoFreeBuffer) {
  Bad k;
  k.b.At(5).AllocTensor(k.q);
  k.b.At(6).AllocTensor(k.q);
  ExpectFault(RunMisuse(k.b.Build()), 6,
              "TQue inQueueX.alloc_tensor(): alloc_tensor with no free buffer: all 1 buffers "
              "are in use ([0, 1024) allocated)");
}

TEST(FrameworkMisuse, FreeOfAForeignAddress) {
  Bad k;
  k.b.At(5).AllocTensor(k.q);
  k.b.At(6).FreeTensor(k.q, k.b.Const(4096, ir::DT_UINT32));
  ExpectFault(RunMisuse(k.b.Build()), 6,
              "TQue inQueueX.free_tensor(): free_tensor of address 4096, which is not the start "
              "of a buffer allocated from this queue (its buffers: [0, 1024) allocated)");
}

TEST(FrameworkMisuse, DoubleFree) {
  Bad k;
  KernelBuilder::Tensor t = k.b.At(5).AllocTensor(k.q);
  k.b.At(6).FreeTensor(k.q, t.addr);
  k.b.At(7).FreeTensor(k.q, t.addr);
  ExpectFault(RunMisuse(k.b.Build()), 7, "whose buffer is already free (a double free");
}

TEST(FrameworkMisuse, UseOfAFreedTensor) {
  Bad k;
  KernelBuilder::Tensor t = k.b.At(5).AllocTensor(k.q);
  k.b.At(6).FreeTensor(k.q, t.addr);
  uint32_t n = k.b.Const(64, ir::DT_INT32);
  uint32_t other = k.b.Const(8192, ir::DT_UINT32);
  k.b.At(8).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(other, ir::DT_FLOAT32),
                     KernelBuilder::Ub(t.addr, ir::DT_FLOAT32, ir::POS_VECIN), n);
  Misuse m = RunMisuse(k.b.Build());
  ExpectFault(m, 8, "PIPE_V abs at bad.py:8, cycle ");
  ExpectFault(m, 8,
              ": use of a freed tensor: it reads UB[0, 256), inside the buffer [0, 1024) of TQue "
              "inQueueX (declared at bad.py:3), which was freed by free_tensor");
}

TEST(FrameworkMisuse, AHandPlacedTensorOverAnUnallocatedQueueBufferIsAWarning) {
  // The vector op writes UB[512, 768) by hand: inside inQueueX's buffer [0, 1024), which no
  // alloc_tensor has handed out yet. The chip runs it; the checker warns once per site.
  Bad k;
  uint32_t n = k.b.Const(64, ir::DT_INT32);
  uint32_t src = k.b.Const(4096, ir::DT_UINT32), dst = k.b.Const(512, ir::DT_UINT32);
  for (int i = 0; i < 2; ++i) {
    k.b.At(9).Barrier(ir::PIPE_V);
    k.b.At(9).VecUnary(ir::VecUnaryOp::ABS, KernelBuilder::Ub(dst, ir::DT_FLOAT32),
                       KernelBuilder::Ub(src, ir::DT_FLOAT32), n);
  }
  Device device(Config());
  LaunchResult r = Launch(device, k.b.Build(), {});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  std::vector<const Diagnostic*> found;  // (the source is uninitialised too: a warning of its own)
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == Diagnostic::Kind::kUnallocatedBuffer) found.push_back(&d);
  }
  ASSERT_EQ(found.size(), 1u);
  const Diagnostic& d = *found[0];
  EXPECT_EQ(d.severity, Diagnostic::Severity::kWarning);
  EXPECT_EQ(d.message.substr(d.message.find(": it ")),
            ": it writes UB[512, 768), inside the buffer [0, 1024) of TQue inQueueX (declared at "
            "bad.py:3), which no alloc_tensor has handed out: a tensor placed by hand overlaps "
            "the TPipe's buffers, and the queue will hand these bytes to another stage. Fix: take "
            "the tensor from alloc_tensor, or place hand-set tensors outside the TPipe's buffers "
            "(or in a TBuf).");
  EXPECT_EQ(d.location.line, 9u);
}

TEST(FrameworkMisuse, EventIdsExhausted) {
  KernelBuilder b("bad", "bad.py");
  b.At(2).Fwk(FW::PIPE_INIT);
  for (int i = 0; i < 8; ++i) b.At(3).FwkValue(FW::ALLOC_EVENT_ID, 0, kVMte3);
  b.At(4).FwkValue(FW::ALLOC_EVENT_ID, 0, kVMte3);
  ExpectFault(RunMisuse(b.Build()), 4,
              "TPipe.alloc_event_id(): no free event id of V_MTE3: all 8 ids are in use");
}

TEST(FrameworkMisuse, UbExhaustedNamesMemoryRequestLeftQueueAndLine) {
  SocConfig c = Config();
  KernelBuilder b("bad", "bad.py");
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t big = b.At(3).Que("big", ir::POS_VECCALC, 1);
  uint32_t q = b.Que("inQueueX", ir::POS_VECIN, 2);
  b.At(4).InitBuffer(big, 1, 100000);
  b.At(5).InitBuffer(q, 2, 65530);  // rounds to 65536 each
  Misuse m = RunMisuse(b.Build());
  uint64_t left = c.ub_bytes - 100000;
  ExpectFault(m, 5,
              "TQue inQueueX.init_buffer() (TQue inQueueX declared at bad.py:3) needs 2 x 65536 = "
              "131072 bytes of UB but only " +
                  std::to_string(left) + " of its " + std::to_string(c.ub_bytes) +
                  " bytes are left (100000 taken by earlier init_buffer/init_buf_pool calls)");
  EXPECT_EQ(m.fault->kind, Diagnostic::Kind::kOutOfBounds);
}

TEST(FrameworkMisuse, StackBufferTooSmallNamesTheBytes) {
  SocConfig c = Config();
  KernelBuilder b("bad", "bad.py");
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t big = b.At(3).Que("big", ir::POS_VECCALC, 1);
  b.At(4).InitBuffer(big, 1, static_cast<int64_t>(c.ub_bytes) - 32);
  ir::FrameworkOp* f = b.At(7).Fwk(FW::STACK_BUFFER, 0, {b.Const(64, ir::DT_UINT32)});
  f->set_result(b.NewValue());
  f->set_result2(b.NewValue());
  ExpectFault(RunMisuse(b.Build()), 7,
              "the library's scratch needs 64 bytes of UB but only 32 of its " +
                  std::to_string(c.ub_bytes) + " are left above the " +
                  std::to_string(c.ub_bytes - 32) + " bytes init_buffer and init_buf_pool took");
}

TEST(FrameworkMisuse, PoolBufferIdsAndLength) {
  // A non-shared sub-pool takes buffer ids from its parent; a shared one may not exceed the
  // parent's set count; buffers beyond buf_id_size or the pool's length fault.
  {
    KernelBuilder b("bad", "bad.py");
    b.At(2).Fwk(FW::PIPE_INIT);
    uint32_t p0 = b.At(3).Pool("p0", ir::POS_VECIN, 4);
    uint32_t p1 = b.Pool("p1", ir::POS_VECIN, 3);
    uint32_t p2 = b.Pool("p2", ir::POS_VECIN, 2);
    b.At(4).PoolOp(FW::INIT_BUF_POOL, 0, p0, 0, {b.Const(4096, ir::DT_INT32)});
    b.At(5).PoolOp(FW::POOL_INIT_BUF_POOL, p0, p1, 0, {b.Const(1024, ir::DT_INT32)});
    b.At(6).PoolOp(FW::POOL_INIT_BUF_POOL, p0, p2, 0, {b.Const(1024, ir::DT_INT32)});
    ExpectFault(RunMisuse(b.Build()), 6,
                "TBufPool p0.init_buf_pool(TBufPool p2): the sub-pool's buf_id_size = 2 exceeds "
                "the 1 buffer ids TBufPool p0 has left (of its 4)");
  }
  {
    KernelBuilder b("bad", "bad.py");
    b.At(2).Fwk(FW::PIPE_INIT);
    uint32_t p0 = b.At(3).Pool("p0", ir::POS_VECIN, 2);
    uint32_t p1 = b.Pool("p1", ir::POS_VECIN, 2);
    uint32_t p2 = b.Pool("p2", ir::POS_VECIN, 3);
    b.At(4).PoolOp(FW::INIT_BUF_POOL, 0, p0, 0, {b.Const(4096, ir::DT_INT32)});
    b.At(5).PoolOp(FW::POOL_INIT_BUF_POOL, p0, p1, 0, {b.Const(1024, ir::DT_INT32)});
    b.At(6).PoolOp(FW::POOL_INIT_BUF_POOL, p0, p2, p1, {b.Const(1024, ir::DT_INT32)});
    ExpectFault(RunMisuse(b.Build()), 6,
                "the shared sub-pool's buf_id_size = 3 exceeds the buf_id_size = 2 of TBufPool p0");
  }
  {
    KernelBuilder b("bad", "bad.py");
    b.At(2).Fwk(FW::PIPE_INIT);
    uint32_t p0 = b.At(3).Pool("p0", ir::POS_VECIN, 4);
    uint32_t p1 = b.Pool("p1", ir::POS_VECIN, 2);
    uint32_t p2 = b.Pool("p2", ir::POS_VECIN, 2);
    b.At(4).PoolOp(FW::INIT_BUF_POOL, 0, p0, 0, {b.Const(4096, ir::DT_INT32)});
    b.At(5).PoolOp(FW::POOL_INIT_BUF_POOL, p0, p1, 0, {b.Const(1024, ir::DT_INT32)});
    b.At(6).PoolOp(FW::POOL_INIT_BUF_POOL, p0, p2, p1, {b.Const(1056, ir::DT_INT32)});
    ExpectFault(RunMisuse(b.Build()), 6,
                "len = 1056 bytes exceeds the 1024 bytes of the shared pool TBufPool p1");
  }
  {
    KernelBuilder b("bad", "bad.py");
    b.At(2).Fwk(FW::PIPE_INIT);
    uint32_t q = b.At(3).Que("q", ir::POS_VECIN, 1);
    uint32_t p0 = b.Pool("p0", ir::POS_VECCALC, 1);
    b.At(4).PoolOp(FW::INIT_BUF_POOL, 0, p0, 0, {b.Const(4096, ir::DT_INT32)});
    ir::FrameworkOp* f = b.At(5).Fwk(FW::POOL_INIT_BUFFER, q,
                                     {b.Const(2, ir::DT_INT32), b.Const(100, ir::DT_INT32)});
    f->set_pool(p0);
    ExpectFault(RunMisuse(b.Build()), 5,
                "needs 2 buffers but TBufPool p0 has 1 of its buf_id_size = 1 left");
  }
  {
    KernelBuilder b("bad", "bad.py");
    b.At(2).Fwk(FW::PIPE_INIT);
    uint32_t q = b.At(3).Que("q", ir::POS_VECIN, 1);
    uint32_t p0 = b.Pool("p0", ir::POS_VECCALC, 4);
    b.At(4).PoolOp(FW::INIT_BUF_POOL, 0, p0, 0, {b.Const(1000, ir::DT_INT32)});  // 1024
    ir::FrameworkOp* f = b.At(5).Fwk(FW::POOL_INIT_BUFFER, q,
                                     {b.Const(2, ir::DT_INT32), b.Const(513, ir::DT_INT32)});
    f->set_pool(p0);
    ExpectFault(RunMisuse(b.Build()), 5,
                "needs 1088 bytes of UB but TBufPool p0 has 1024 of its 1024 bytes left");
  }
}

TEST(FrameworkMisuse, PipeUsedAfterDestroy) {
  Bad k;
  k.b.At(5).Fwk(FW::PIPE_DESTROY);
  k.b.At(6).AllocTensor(k.q);
  ExpectFault(RunMisuse(k.b.Build()), 6,
              "TQue inQueueX.alloc_tensor(): the TPipe was destroyed and not initialised again");
}

// ---- depth 0 -----------------------------------------------------------------------------------

TEST(Framework, DepthZeroQueueSetsItsFreeEventAtInitBuffer) {
  KernelBuilder b("d0", "d0.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  b.At(2).Fwk(FW::PIPE_INIT);
  uint32_t q = b.At(3).Que("q0", ir::POS_VECIN, 0);
  b.At(4).InitBuffer(q, 1, 256);
  uint32_t n = b.Const(64, ir::DT_INT32);
  for (int i = 0; i < 2; ++i) {
    KernelBuilder::Tensor t = b.At(5).AllocTensor(q);
    b.DataCopy(KernelBuilder::Ub(t.addr, ir::DT_FLOAT32, ir::POS_VECIN),
               KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
    b.Enque(q, t.addr);
    KernelBuilder::Tensor d = b.At(6).Deque(q);
    b.FreeTensor(q, d.addr);
  }
  b.At(7).Fwk(FW::PIPE_DESTROY);
  Device device(Config());
  uint64_t xa = Upload(device, std::vector<float>(64, 1.0f));
  LaunchResult r = Launch(device, b.Build(), {ArgValue::Address(xa)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk) << Errors(r);
  std::vector<std::string> round = {
      "MTE2 wait_flag V_MTE2 id=0 (TQue q0.alloc_tensor)",
      "MTE2 set_flag MTE2_V id=0 (TQue q0.enque)",
      "V wait_flag MTE2_V id=0 (TQue q0.deque)",
      "V set_flag V_MTE2 id=0 (TQue q0.free_tensor)",
  };
  std::vector<std::string> want = {"V set_flag V_MTE2 id=0 (TQue q0.init_buffer)"};
  want.insert(want.end(), round.begin(), round.end());
  want.insert(want.end(), round.begin(), round.end());
  want.push_back("MTE2 wait_flag V_MTE2 id=0 (TPipe.destroy)");
  EXPECT_EQ(FlagSequence(r), want);
  EXPECT_TRUE(r.diagnostics.empty()) << Errors(r);
}

}  // namespace
}  // namespace aicore::sim::testing
