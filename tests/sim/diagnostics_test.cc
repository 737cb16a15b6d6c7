// Kernel faults and warnings: deadlock (fails fast, one diagnostic per waiter with pipe, event,
// id and file:line), UB overflow and misalignment, GM out of bounds vs. overrun, event ids,
// flag overflow / unmatched flags, the cycle limit, and scalar faults; and the merge of several
// cores' findings at one place into one (hull range, every core, "other cores'").
#include "sim/check/diagnostics.h"

#include <gtest/gtest.h>

#include "tests/sim/fault_kernels.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

LaunchResult Launch(Device& device, const ir::Kernel& k, std::vector<ArgValue> args = {},
                    LaunchOptions options = {}, uint32_t blocks = 1) {
  auto program = Decode(k);
  auto r = device.Launch(*program, blocks, args, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LaunchResult();
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const Diagnostic* FindDiag(const LaunchResult& r, Diagnostic::Kind kind) {
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

TEST(Deadlock, WaitWithoutSetIsReportedWithPipeEventIdAndLine) {
  KernelBuilder b("stuck", "deadlock.py");
  uint32_t id = b.Const(3, ir::DT_INT32);
  b.At(7).WaitFlag(kMte2V, id);
  Device device(Config());
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kDeadlock);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.kind, Diagnostic::Kind::kDeadlock);
  EXPECT_EQ(d.severity, Diagnostic::Severity::kError);
  EXPECT_EQ(d.core, 0);
  EXPECT_EQ(d.pipe, "V");
  EXPECT_EQ(d.op, "wait_flag");
  EXPECT_EQ(d.location.file, "deadlock.py");
  EXPECT_EQ(d.location.line, 7u);
  EXPECT_TRUE(Contains(d.message, "PIPE_V")) << d.message;
  EXPECT_TRUE(Contains(d.message, "MTE2_V id 3")) << d.message;
  EXPECT_TRUE(Contains(d.message, "deadlock.py:7")) << d.message;
  EXPECT_TRUE(Contains(d.message, "Fix:")) << d.message;
}

TEST(Deadlock, EveryBlockedWaiterOnEveryCoreIsNamed) {
  // V waits for MTE2_V that MTE2 only sets after waiting for V_MTE2: a cycle. Two cores.
  KernelBuilder b("cycle", "cycle.py");
  uint32_t id = b.Const(1, ir::DT_INT32);
  b.At(3).WaitFlag(kVMte2, id);  // on MTE2
  b.At(4).SetFlag(kMte2V, id);   // on MTE2, behind the wait
  b.At(5).WaitFlag(kMte2V, id);  // on V
  b.At(6).SetFlag(kVMte2, id);   // on V, behind the wait
  Device device(Config());
  LaunchResult r = Launch(device, b.Build(), {}, {}, 2);
  ASSERT_EQ(r.status, LaunchResult::Status::kDeadlock);
  // The cycle first, then one finding per blocked pipe, each naming both cores (identical
  // findings are merged).
  ASSERT_EQ(r.diagnostics.size(), 3u);
  EXPECT_EQ(r.diagnostics[0].message,
            "deadlock: cores 0-1 PIPE_V wait_flag at cycle.py:5: a cycle of waits: PIPE_V waits "
            "at cycle.py:5 for MTE2_V, 1, whose set_flag at cycle.py:4 is queued on PIPE_MTE2 "
            "behind PIPE_MTE2 waits at cycle.py:3 for V_MTE2, 1, whose set_flag at cycle.py:6 is "
            "queued on PIPE_V behind PIPE_V again. None of them can move first. Fix: give "
            "the cycle a first step: a set_flag before the loop for a wait's first iteration "
            "(ping-pong buffers), or move a set_flag ahead of the wait that holds it up.");
  int v = 0, mte2 = 0;
  for (const Diagnostic& d : r.diagnostics) {
    if (Contains(d.message, "a cycle of waits")) continue;
    if (d.pipe == "V") {
      ++v;
      EXPECT_EQ(d.location.line, 5u);
      EXPECT_TRUE(Contains(d.message, "MTE2_V id 1")) << d.message;
      EXPECT_TRUE(Contains(d.message, "cycle.py:4 is queued on PIPE_MTE2")) << d.message;
    } else if (d.pipe == "MTE2") {
      ++mte2;
      EXPECT_EQ(d.location.line, 3u);
      EXPECT_TRUE(Contains(d.message, "V_MTE2 id 1")) << d.message;
    }
    EXPECT_EQ(d.cores, (std::vector<uint32_t>{0, 1}));
    EXPECT_TRUE(Contains(d.message, "cores 0-1 PIPE_")) << d.message;
  }
  EXPECT_EQ(v, 1);
  EXPECT_EQ(mte2, 1);
}

TEST(Deadlock, AWaitForAnotherIdNamesTheFlagThatIsSet) {
  // The set uses id 1, the wait id 2: the report points at the set that nothing consumes.
  KernelBuilder b("ids", "ids.py");
  b.At(3).SetFlag(kMte2V, b.Const(1, ir::DT_INT32));
  b.At(4).WaitFlag(kMte2V, b.Const(2, ir::DT_INT32));
  Device device(Config());
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kDeadlock);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].message,
            "deadlock: core 0 (block 0) PIPE_V wait_flag at ids.py:4, cycle 4: waits for flag "
            "MTE2_V id 2 (event MTE2_V = 4), which is never set; no set_flag(MTE2_V, 2) remains to "
            "be executed on this core; flag MTE2_V, 1 is set (by set_flag at ids.py:3) and nothing "
            "waits for it: the set and the wait use different ids. Fix: every wait_flag(MTE2_V, 2) "
            "on PIPE_V consumes one set_flag(MTE2_V, 2) on PIPE_MTE2; add the missing set_flag "
            "before this wait (or a set in the prologue for the first iteration of a ping-pong "
            "loop), or remove the wait.");
}

TEST(Deadlock, AWaitWhoseSetIsStuckBehindAFullQueueIsACycleThroughTheScalarUnit) {
  // V waits for MTE2_V before the program sets it; the vector work behind the wait fills the V
  // queue, so the scalar unit never reaches the set: V -> scalar unit -> V.
  SocConfig c = Config();
  KernelBuilder b("full", "full.py");
  uint32_t id = b.Const(0, ir::DT_INT32);
  uint32_t n = b.Const(64, ir::DT_INT32);
  uint32_t src = b.Const(0), dst = b.Const(256);
  b.At(3).WaitFlag(kMte2V, id);
  for (uint32_t i = 0; i < c.queue_depth_vector + 1; ++i) {
    b.At(4).VecUnary(ir::VecUnaryOp::RELU, KernelBuilder::Ub(dst, ir::DT_FLOAT32),
                     KernelBuilder::Ub(src, ir::DT_FLOAT32), n);
  }
  b.At(5).SetFlag(kMte2V, id);
  Device device(c);
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kDeadlock);
  const Diagnostic* cycle = FindDiag(r, Diagnostic::Kind::kDeadlock);
  ASSERT_NE(cycle, nullptr);
  EXPECT_EQ(cycle->message,
            "deadlock: core 0 (block 0) PIPE_V wait_flag at full.py:3, cycle " +
                std::to_string(cycle->cycle) +
                ": a cycle of waits: PIPE_V waits at full.py:3 for MTE2_V, 0, whose set_flag the "
                "scalar unit has not issued yet, because the scalar unit is stalled at full.py:4 "
                "on the full PIPE_V queue, which waits: PIPE_V again. None of them can move "
                "first. Fix: give the cycle a first step: a set_flag before the loop for a "
                "wait's first iteration (ping-pong buffers), or move a set_flag ahead of the "
                "wait that holds it up.");
}

TEST(Deadlock, ScalarWaitOnSPipe) {
  KernelBuilder b("scalar_wait", "s.py");
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.At(9).WaitFlag(kVS, id);
  Device device(Config());
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kDeadlock);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].pipe, "S");
  EXPECT_TRUE(Contains(r.diagnostics[0].message, "V_S id 0")) << r.diagnostics[0].message;
  EXPECT_EQ(r.diagnostics[0].location.line, 9u);
}

TEST(Deadlock, SetOnSPipeReleasesV) {
  // The S side of S_V / V_S executes on the scalar unit in program order.
  KernelBuilder b("handshake", "s.py");
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.SetFlag(kSV, id);
  b.WaitFlag(kSV, id);  // on V
  b.SetFlag(kVS, id);   // on V
  b.WaitFlag(kVS, id);  // on S
  Device device(Config());
  LaunchResult r = Launch(device, b.Build());
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);
  EXPECT_TRUE(r.diagnostics.empty());
}

TEST(Bounds, UbOverflowStopsWithRangeCapacityOpAndLine) {
  SocConfig c = Config();
  Device device(c);
  uint64_t x = Upload(device, std::vector<float>(128, 1.0f));
  int64_t addr = static_cast<int64_t>(c.ub_bytes) - 256;
  LaunchResult r = Launch(device, CopyToUb(addr, 128), {ArgValue::Address(x)});
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kOutOfBounds);
  ASSERT_NE(d, nullptr);
  std::string range = "UB[" + std::to_string(addr) + ", " + std::to_string(addr + 512) + ")";
  EXPECT_TRUE(Contains(d->message, range)) << d->message;
  EXPECT_TRUE(Contains(d->message, std::to_string(c.ub_bytes))) << d->message;
  EXPECT_TRUE(Contains(d->message, "ub.py:12")) << d->message;
  EXPECT_TRUE(Contains(d->message, "Fix:")) << d->message;
  EXPECT_EQ(d->pipe, "MTE2");
  EXPECT_EQ(d->op, "data_copy");
  EXPECT_EQ(d->location.line, 12u);
}

TEST(Bounds, MisalignedUbAddressIsInvalidOperand) {
  Device device(Config());
  uint64_t x = Upload(device, std::vector<float>(64, 1.0f));
  LaunchResult r = Launch(device, CopyToUb(100, 64), {ArgValue::Address(x)});
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kInvalidOperand);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(Contains(d->message, "32-byte aligned")) << d->message;
}

TEST(Bounds, VectorOverflowIsOutOfBounds) {
  SocConfig c = Config();
  KernelBuilder b("vec_overflow", "v.py");
  uint32_t a = b.Const(static_cast<int64_t>(c.ub_bytes) - 128);
  uint32_t n = b.Const(64, ir::DT_INT32);
  b.At(4).VecUnary(ir::VecUnaryOp::EXP, KernelBuilder::Ub(b.Const(0), ir::DT_FLOAT32),
                   KernelBuilder::Ub(a, ir::DT_FLOAT32), n);
  Device device(c);
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kOutOfBounds);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->pipe, "V");
  EXPECT_TRUE(Contains(d->message, "operand src reads UB[")) << d->message;
}

// Every allocation starts its own allocator block (gm.alloc_block_bytes, 2 MiB): a copy past a
// tensor's end reads or writes mapped memory, as on the chip.
TEST(Bounds, GmOverrunWarnsAndContinues) {
  SocConfig c = Config();
  Device device(c);
  // 8 floats requested, 16 copied: the second half is in x's block, beyond the tensor.
  std::vector<float> src(8, 2.0f);
  uint64_t x = Upload(device, src);
  uint64_t y = Upload(device, std::vector<float>(16, 0.0f));
  LaunchResult r = Launch(device, CopyFromGm(0, 16), {ArgValue::Address(x), ArgValue::Address(y)});
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kGmOverrun);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Diagnostic::Severity::kWarning);
  EXPECT_EQ(d->location.line, 20u);
  EXPECT_TRUE(Contains(d->message,
                       "runs 32 bytes past the end of tensor x (the 32-byte "
                       "allocation at "))
      << d->message;
  EXPECT_TRUE(Contains(d->message, "belongs to no tensor")) << d->message;
  EXPECT_EQ(d->address_lo, x + 32);
  EXPECT_EQ(d->address_hi, x + 64);
  // The overrun bytes were never written: the overrun says so, initcheck does not repeat it.
  EXPECT_EQ(FindDiag(r, Diagnostic::Kind::kUninitializedRead), nullptr);
  std::vector<float> out = Download<float>(device, y, 16);
  EXPECT_EQ(out[7], 2.0f);
  EXPECT_EQ(out[8], 0.0f);  // blocks start zeroed
}

// y's argument points 16 bytes before the end of its block, z's block follows: the copy writes z.
ir::Kernel CopyIntoNeighbour() {
  KernelBuilder b("spill", "spill.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
  b.PointerParam("z", ir::DT_FLOAT32);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(8, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  uint32_t gy = b.GmAddr(y, b.Const((2 << 20) / 4 - 4), 4);
  b.At(5).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.SetFlag(kMte2Mte3, id);
  b.WaitFlag(kMte2Mte3, id);
  b.At(8).DataCopy(KernelBuilder::Gm(gy, ir::DT_FLOAT32), KernelBuilder::Ub(ub, ir::DT_FLOAT32), n);
  return b.Build();
}

TEST(Bounds, GmOverrunIntoAnotherTensorWritesItAndNamesBoth) {
  Device device(Config());
  uint64_t x = Upload(device, std::vector<float>(8, 5.0f));
  uint64_t y = Upload(device, std::vector<float>(8, 0.0f));
  uint64_t z = Upload(device, std::vector<float>(8, 1.0f));
  ASSERT_EQ(z, y + device.config().gm_alloc_block_bytes);
  LaunchResult r = Launch(device, CopyIntoNeighbour(),
                          {ArgValue::Address(x), ArgValue::Address(y), ArgValue::Address(z)});
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kGmOverrun);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->location.line, 8u);
  EXPECT_TRUE(Contains(d->message, "past the end of tensor y (the 32-byte allocation at "))
      << d->message;
  EXPECT_TRUE(Contains(d->message, "into tensor z (the 32-byte allocation at ")) << d->message;
  EXPECT_TRUE(Contains(d->message, "overwrites its bytes")) << d->message;
  EXPECT_EQ(d->address_lo, z);
  EXPECT_EQ(d->address_hi, z + 16);
  // As on the chip, z's first four elements now hold x's.
  std::vector<float> out = Download<float>(device, z, 8);
  EXPECT_EQ(out[0], 5.0f);
  EXPECT_EQ(out[3], 5.0f);
  EXPECT_EQ(out[4], 1.0f);
}

TEST(Bounds, GmOutsideMappedMemoryIsAnError) {
  SocConfig c = Config();
  Device device(c);
  uint64_t x = Upload(device, std::vector<float>(8, 2.0f));
  uint64_t y = Upload(device, std::vector<float>(1024, 0.0f));
  // Past y's block, which ends two blocks after x: nothing is mapped there.
  int64_t too_far = static_cast<int64_t>(2 * c.gm_alloc_block_bytes / 4);
  LaunchResult r =
      Launch(device, CopyFromGm(too_far, 8), {ArgValue::Address(x), ArgValue::Address(y)});
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kGmOutOfBounds);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->location.line, 20u);
  EXPECT_TRUE(Contains(d->message, "not inside mapped device memory")) << d->message;
  EXPECT_TRUE(Contains(d->message, "nearest allocation below it is tensor y")) << d->message;
}

TEST(Flags, EventIdOutOfRangeIsInvalidOperand) {
  SocConfig c = Config();
  KernelBuilder b("bad_id", "id.py");
  uint32_t id = b.Const(c.flag_ids_per_event, ir::DT_INT32);
  b.At(2).SetFlag(kMte2V, id);
  Device device(c);
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  const Diagnostic* d = FindDiag(r, Diagnostic::Kind::kInvalidOperand);
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(Contains(d->message, "event id " + std::to_string(c.flag_ids_per_event) +
                                       " of MTE2_V is out of range 0.." +
                                       std::to_string(c.flag_ids_per_event - 1)))
      << d->message;
}

std::vector<const Diagnostic*> FindAll(const LaunchResult& r, Diagnostic::Kind kind) {
  std::vector<const Diagnostic*> out;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == kind) out.push_back(&d);
  }
  return out;
}

SocConfig LosingSecondSets() {
  SocConfig c = Config();
  c.flag_set_waits_for_clear = 0;
  return c;
}

TEST(Flags, TwoSetsInARowWarnAtTheSecondAndLeftoversWarnUnmatched) {
  KernelBuilder b("flags", "f.py");
  uint32_t id = b.Const(2, ir::DT_INT32);
  b.At(3).SetFlag(kMte2V, id);
  b.At(4).SetFlag(kMte2V, id);
  b.At(5).SetFlag(kVMte3, id);  // never waited
  b.At(6).WaitFlag(kMte2V, id);
  for (bool waits : {true, false}) {
    Device device(waits ? Config() : LosingSecondSets());
    LaunchResult r = Launch(device, b.Build());
    EXPECT_EQ(r.status, LaunchResult::Status::kOk);
    const Diagnostic* overflow = FindDiag(r, Diagnostic::Kind::kFlagOverflow);
    ASSERT_NE(overflow, nullptr);
    EXPECT_EQ(overflow->severity, Diagnostic::Severity::kWarning);
    EXPECT_EQ(overflow->location.line, 4u);
    EXPECT_TRUE(Contains(overflow->message, "f.py:3")) << overflow->message;
    // Waiting, the second set lands once line 6 clears the first and is left over; lost, not.
    std::string unmatched;
    for (const Diagnostic* d : FindAll(r, Diagnostic::Kind::kUnmatchedFlag)) {
      unmatched += d->message + "\n";
    }
    EXPECT_TRUE(Contains(unmatched, "V_MTE3, 2")) << unmatched;
    EXPECT_EQ(Contains(unmatched, "MTE2_V, 2"), waits) << unmatched;
  }
}

TEST(Flags, TwoSetsInARowThenAPipeAllBarrierHangAsTheChipDoes) {
  // The devkit's SetFlag page: the second set of one id, then PipeBarrier<PIPE_ALL>, hangs.
  KernelBuilder b("flags", "f.py");
  uint32_t id = b.Const(2, ir::DT_INT32);
  b.At(3).SetFlag(kMte2V, id);
  b.At(4).SetFlag(kMte2V, id);
  b.At(5).Barrier(ir::PIPE_ALL);
  b.At(6).WaitFlag(kMte2V, id);
  b.At(7).WaitFlag(kMte2V, id);
  Device device(Config());
  LaunchResult r = Launch(device, b.Build());
  ASSERT_EQ(r.status, LaunchResult::Status::kDeadlock);
  bool named = false;
  for (const Diagnostic* d : FindAll(r, Diagnostic::Kind::kDeadlock)) {
    if (d->location.line == 4u && d->pipe == "MTE2" && Contains(d->message, "cannot land")) {
      named = true;
      EXPECT_TRUE(Contains(d->message, "still set (by set_flag at f.py:3)")) << d->message;
      EXPECT_TRUE(Contains(d->message, "Fix:")) << d->message;
    }
  }
  EXPECT_TRUE(named) << r.diagnostics[0].message;
  // Losing the second set instead, the barrier passes and the second wait finds no set.
  Device losing(LosingSecondSets());
  LaunchResult lost = Launch(losing, b.Build());
  ASSERT_EQ(lost.status, LaunchResult::Status::kDeadlock);
  const Diagnostic* d = FindDiag(lost, Diagnostic::Kind::kDeadlock);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->location.line, 7u) << d->message;
}

TEST(Flags, ASetIssuedAfterItsWaitIsKeptWhileTheWaitIsStillQueued) {
  // A TQue's next enque sets the id its deque released before the consumer ran that wait: V is
  // busy with the exp, so the second set reaches the flag before line 5's wait consumed it.
  KernelBuilder b("requeue", "q.py");
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.At(3).SetFlag(kMte2V, id);
  uint32_t src = b.Const(0), dst = b.Const(65536);
  b.At(4).VecScalar(ir::VecScalarOp::ADDS, KernelBuilder::Ub(dst, ir::DT_FLOAT32),
                    KernelBuilder::Ub(src, ir::DT_FLOAT32), b.ConstF(1), b.Const(16384));
  b.At(5).WaitFlag(kMte2V, id);
  b.At(6).SetFlag(kMte2V, id);
  b.At(7).WaitFlag(kMte2V, id);
  Device device(Config());
  LaunchResult r = Launch(device, b.Build());
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);
  EXPECT_EQ(FindDiag(r, Diagnostic::Kind::kFlagOverflow), nullptr);
  EXPECT_EQ(FindDiag(r, Diagnostic::Kind::kUnmatchedFlag), nullptr);
  // With the second set lost, line 7 waits forever.
  Device losing(LosingSecondSets());
  LaunchResult lost = Launch(losing, b.Build());
  EXPECT_EQ(lost.status, LaunchResult::Status::kDeadlock);
  const Diagnostic* overflow = FindDiag(lost, Diagnostic::Kind::kFlagOverflow);
  ASSERT_NE(overflow, nullptr);
  EXPECT_EQ(overflow->location.line, 6u);
}

TEST(Limits, CycleLimitStopsAnEndlessLoop) {
  KernelBuilder b("spin", "spin.py");
  auto loop = b.BeginFor(b.Const(0), b.Const(int64_t{1} << 60), b.Const(1));
  b.Add(loop.iv, loop.iv);
  b.EndFor();
  Device device(Config());
  LaunchOptions options;
  options.max_cycles = 100000;
  LaunchResult r = Launch(device, b.Build(), {}, options);
  ASSERT_EQ(r.status, LaunchResult::Status::kCycleLimitExceeded);
  ASSERT_NE(FindDiag(r, Diagnostic::Kind::kCycleLimit), nullptr);
}

TEST(Limits, CancelStopsAnEndlessScalarLoop) {
  KernelBuilder b("spin", "spin.py");
  auto loop = b.BeginFor(b.Const(0), b.Const(int64_t{1} << 60), b.Const(1));
  b.Add(loop.iv, loop.iv);
  b.EndFor();
  Device device(Config());
  std::atomic<bool> cancel{true};
  LaunchOptions options;
  options.cancel = &cancel;
  auto r = device.Launch(*Decode(b.Build()), 1, {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("cancelled"), std::string::npos);
}

TEST(Scalar, IntegerDivisionByZeroIsAFault) {
  KernelBuilder b("div0", "d.py");
  uint32_t n = b.ScalarParam("n", ir::DT_INT32);
  b.At(3).Binary(ir::ScalarBinaryOp::DIV, ir::DT_INT32, b.Const(7, ir::DT_INT32), n);
  Device device(Config());
  LaunchResult r = Launch(device, b.Build(), {ArgValue::Int(0)});
  ASSERT_EQ(r.status, LaunchResult::Status::kKernelFault);
  EXPECT_EQ(r.diagnostics.at(0).location.line, 3u);
}

TEST(Scalar, AnIntegerArgumentMustFitItsParameter) {
  // 2^32 + 64 for an int32 once ran as 64 with the report saying OK.
  KernelBuilder b("fits", "f.py");
  b.ScalarParam("n", ir::DT_INT32);
  b.ScalarParam("u", ir::DT_UINT16);
  Device device(Config());
  auto program = Decode(b.Build());
  auto over = device.Launch(*program, 1, {ArgValue::Int((int64_t{1} << 32) + 64), ArgValue::Int(1)},
                            LaunchOptions());
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(over.status().message().find("argument 0 (n) is DT_INT32"), std::string::npos)
      << over.status().message();
  EXPECT_NE(over.status().message().find("4294967360, which does not fit"), std::string::npos)
      << over.status().message();
  auto negative =
      device.Launch(*program, 1, {ArgValue::Int(-5), ArgValue::Int(-1)}, LaunchOptions());
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("argument 1 (u) is DT_UINT16 (0 .. 65535)"),
            std::string::npos)
      << negative.status().message();
  EXPECT_TRUE(
      device
          .Launch(*program, 1, {ArgValue::Int(-2147483648), ArgValue::Int(65535)}, LaunchOptions())
          .ok());
}

TEST(Scalar, LoopsIfsAndSelectsComputeOnTheScalarUnit) {
  // sum = 0; for i in [lo, 10): sum += (i % 3 == 0) ? i : -1   -> written to GM via duplicate
  // of nothing: we store it through adds on a UB zero vector and copy out.
  KernelBuilder b("scalar", "s.py");
  uint32_t y = b.PointerParam("y", ir::DT_INT32);
  uint32_t lo = b.ScalarParam("lo", ir::DT_INT32);
  uint32_t lo64 = b.Cast(lo, ir::DT_INT32, ir::DT_INT64);
  auto loop = b.BeginFor(lo64, b.Const(10), b.Const(1), ir::DT_INT64, {b.Const(0)});
  uint32_t m = b.Binary(ir::ScalarBinaryOp::MOD, ir::DT_INT64, loop.iv, b.Const(3));
  uint32_t is0 = b.Binary(ir::ScalarBinaryOp::EQ, ir::DT_INT64, m, b.Const(0));
  b.BeginIf(is0);
  uint32_t t = b.Add(loop.iter_args[0], loop.iv);
  b.Else();
  uint32_t e = b.Add(loop.iter_args[0], b.Const(-1));
  auto picked = b.EndIf({t}, {e});
  auto sum = b.EndFor({picked[0]});
  uint32_t s32 = b.Cast(sum[0], ir::DT_INT64, ir::DT_INT32);
  uint32_t ub = b.Const(0);
  uint32_t n = b.Const(8, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.VecScalar(ir::VecScalarOp::ADDS, KernelBuilder::Ub(ub, ir::DT_INT32),
              KernelBuilder::Ub(ub, ir::DT_INT32), s32, n);
  b.SetFlag(kVMte3, id);
  b.WaitFlag(kVMte3, id);
  b.DataCopy(KernelBuilder::Gm(y, ir::DT_INT32), KernelBuilder::Ub(ub, ir::DT_INT32), n);
  Device device(Config());
  uint64_t gy = Upload(device, std::vector<int32_t>(8, 0));
  LaunchResult r = Launch(device, b.Build(), {ArgValue::Address(gy), ArgValue::Int(-2)});
  ASSERT_EQ(r.status, LaunchResult::Status::kOk);
  int32_t want = 0;
  for (int i = -2; i < 10; ++i) want += (i % 3 == 0) ? i : -1;
  EXPECT_EQ(Download<int32_t>(device, gy, 8)[0], want);
}

}  // namespace
}  // namespace aicore::sim::testing

// The merge of several cores' findings at one place, on findings built by hand so each case
// names its cores, ranges and other cores exactly.
namespace aicore::sim::testing {
namespace {

struct Merge : ::testing::Test {
  void SetUp() override {
    program = Decode(OverlappingTiles(32, 64));
    ASSERT_NE(program, nullptr);
    for (const Instr& in : program->regions[0].ops) {
      if (in.line == 5) out = &in;
    }
    ASSERT_NE(out, nullptr);
  }

  // Core `core`'s copy out wrote [lo, hi), which core `other` wrote too, with `why` after the
  // other side (what would differ between two findings of one place).
  void Shared(DiagnosticSink& sink, uint32_t core, int32_t other, uint64_t lo, uint64_t hi,
              const std::string& why = "already wrote") {
    Site site{core, core, PipeId::kMte3, out, Cycle(100 + core)};
    Diagnostic d =
        sink.Make(Diagnostic::Kind::kGmSharedWrite, Diagnostic::Severity::kNote, site,
                  sink.Prefix(site) + ": shared write on " + RangeText("GM", lo, hi) +
                      ": this data_copy writes bytes that " + OtherCoreText(other) +
                      " PIPE_MTE3 data_copy at tiles.py:5 " + why + ". Fix: clip the tile.");
    d.race = "WAW";
    d.other_core = other;
    d.other_pipe = "MTE3";
    d.other_op = "data_copy";
    d.other_location = d.location;
    d.memory = "GM";
    d.address_lo = lo;
    d.address_hi = hi;
    sink.Pair(std::move(d), out, out);
  }

  std::shared_ptr<const Program> program;
  const Instr* out = nullptr;
};

TEST_F(Merge, SeveralCoresWithTheirOwnRangesBecomeOneWithTheHullAndEveryCore) {
  DiagnosticSink sink(*program);
  for (uint32_t c : {3u, 1u, 2u})
    Shared(sink, c, static_cast<int32_t>(c) - 1, 128 * c, 128 * c + 128);
  CheckSummary summary;
  sink.Finish(&summary);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  const Diagnostic& d = sink.diagnostics()[0];
  EXPECT_EQ(d.cores, (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(d.other_cores, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(d.address_lo, 128u);
  EXPECT_EQ(d.address_hi, 512u);
  EXPECT_EQ(d.message,
            "cores 1-3 PIPE_MTE3 data_copy at tiles.py:5: shared write on GM[0x80, 0x200): this "
            "data_copy writes bytes that other cores' PIPE_MTE3 data_copy at tiles.py:5 already "
            "wrote. Fix: clip the tile.");
  EXPECT_EQ(summary.notes, 1u);
  EXPECT_EQ(summary.warnings, 0u);
  EXPECT_EQ(summary.Text(), "0 races, 0 errors, 0 warnings, 1 note");
}

TEST_F(Merge, OneOtherCoreKeepsItsNameAndAGapSaysPieces) {
  DiagnosticSink sink(*program);
  Shared(sink, 1, 0, 0x100, 0x180);
  Shared(sink, 3, 0, 0x300, 0x380);
  CheckSummary summary;
  sink.Finish(&summary);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].message,
            "cores 1, 3 PIPE_MTE3 data_copy at tiles.py:5: shared write on GM[0x100, 0x380) (in 2 "
            "pieces): this data_copy writes bytes that core 0's PIPE_MTE3 data_copy at tiles.py:5 "
            "already wrote. Fix: clip the tile.");
}

TEST_F(Merge, ManyRunsOfCoresAreAbbreviated) {
  DiagnosticSink sink(*program);
  for (uint32_t c : {1u, 3u, 5u, 7u, 9u}) Shared(sink, c, 0, 0x100, 0x180);
  CheckSummary summary;
  sink.Finish(&summary);
  ASSERT_EQ(sink.diagnostics().size(), 1u);
  EXPECT_EQ(sink.diagnostics()[0].message.rfind(
                "cores 1, 3, ..., 9 (5 in all) PIPE_MTE3 data_copy at tiles.py:5: shared write on "
                "GM[0x100, 0x180): ",
                0),
            0u)
      << sink.diagnostics()[0].message;
}

TEST_F(Merge, FindingsThatSayDifferentThingsOrOfOtherPlacesStayApart) {
  DiagnosticSink sink(*program);
  Shared(sink, 1, 0, 0x100, 0x180);
  Shared(sink, 2, 1, 0x180, 0x200, "also wrote");     // same place, another finding
  Site site{4, 4, PipeId::kMte3, nullptr, Cycle(7)};  // another place: no instruction
  sink.Warn(sink.Make(Diagnostic::Kind::kGmSharedWrite, Diagnostic::Severity::kWarning, site,
                      sink.Prefix(site) + ": something else."),
            nullptr);
  CheckSummary summary;
  sink.Finish(&summary);
  ASSERT_EQ(sink.diagnostics().size(), 3u);
  for (const Diagnostic& d : sink.diagnostics()) EXPECT_EQ(d.cores.size(), 1u) << d.message;
  EXPECT_EQ(summary.Text(), "0 races, 0 errors, 1 warning, 2 notes");
}

}  // namespace
}  // namespace aicore::sim::testing
