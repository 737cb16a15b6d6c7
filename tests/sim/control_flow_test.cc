// The while loop (WhileOp, a do-while with loop-carried values): it runs its body at least once,
// repeats while the condition its body computes holds, carries values pass to pass, ends with
// the last yields; the decoder refuses a malformed one. And gm_wait's any-of form, which a
// message server polling two queues waits with.
#include <gtest/gtest.h>

#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

Status DecodeStatus(const ir::Kernel& k) { return DecodeKernel(k).status(); }

// x = 1; n = 0; do { x = x * 3; n = n + 1; } while (x < limit); y[0] = x; y[1] = n.
ir::Kernel TriplingKernel(int64_t limit) {
  KernelBuilder b("tripling", "w.py");
  uint32_t y = b.PointerParam("y", ir::DT_INT32);
  b.At(3);
  auto loop = b.BeginWhile({b.Const(1, ir::DT_INT32), b.Const(0, ir::DT_INT32)});
  uint32_t x = b.At(4).Mul(loop.iter_args[0], b.Const(3, ir::DT_INT32), ir::DT_INT32);
  uint32_t n = b.At(5).Add(loop.iter_args[1], b.Const(1, ir::DT_INT32), ir::DT_INT32);
  uint32_t more =
      b.At(6).Binary(ir::ScalarBinaryOp::LT, ir::DT_INT32, x, b.Const(limit, ir::DT_INT32));
  std::vector<uint32_t> out = b.EndWhile(more, {x, n});
  b.At(8).ScalarStore(KernelBuilder::Gm(y, ir::DT_INT32), b.Const(0, ir::DT_INT32), out[0]);
  b.At(9).ScalarStore(KernelBuilder::Gm(y, ir::DT_INT32), b.Const(1, ir::DT_INT32), out[1]);
  return b.Build();
}

std::vector<int32_t> RunTripling(int64_t limit) {
  Device device(Config());
  uint64_t y = Upload(device, std::vector<int32_t>(8, -1));
  auto program = Decode(TriplingKernel(limit));
  auto r = device.Launch(*program, 1, {ArgValue::Address(y)}, LaunchOptions{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, LaunchResult::Status::kOk);
  return Download<int32_t>(device, y, 2);
}

TEST(WhileLoop, RepeatsWhileItsConditionHoldsAndCarriesItsValues) {
  EXPECT_EQ(RunTripling(100), (std::vector<int32_t>{243, 5}));
  EXPECT_EQ(RunTripling(81), (std::vector<int32_t>{81, 4}));
}

TEST(WhileLoop, RunsItsBodyOnceWhenTheConditionFailsAtOnce) {
  EXPECT_EQ(RunTripling(0), (std::vector<int32_t>{3, 1}));
}

TEST(WhileLoop, TheDecoderRefusesAConditionThatIsNoBool) {
  KernelBuilder b("bad_while", "w.py");
  auto loop = b.BeginWhile({b.Const(1, ir::DT_INT32)});
  uint32_t x = b.Add(loop.iter_args[0], b.Const(1, ir::DT_INT32), ir::DT_INT32);
  b.EndWhile(x, {x});
  Status s = DecodeStatus(b.Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cond"), std::string::npos) << s.message();
}

TEST(WhileLoop, TheDecoderRefusesYieldsThatDoNotMatchTheCarriedValues) {
  KernelBuilder b("bad_while", "w.py");
  b.BeginWhile({b.Const(1, ir::DT_INT32)});
  b.EndWhile(b.Binary(ir::ScalarBinaryOp::LT, ir::DT_INT32, b.Const(0, ir::DT_INT32),
                      b.Const(1, ir::DT_INT32)),
             {});
  Status s = DecodeStatus(b.Build());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("same length"), std::string::npos) << s.message();
}

// Two int32 words 64 bytes apart; gm_wait for either (any) or both to be non-zero; its result
// (which words held) is stored to word 1.
ir::Kernel PollKernel(bool any) {
  KernelBuilder b("poll", "p.py");
  uint32_t q = b.PointerParam("q", ir::DT_INT32);
  uint32_t held = b.At(3).GmWait(q, ir::GmWaitOp::NE, b.Const(0, ir::DT_INT32),
                                 b.Const(2, ir::DT_INT32), b.Const(64, ir::DT_INT32), any);
  b.At(4).ScalarStore(KernelBuilder::Gm(q, ir::DT_INT32), b.Const(1, ir::DT_INT32), held);
  return b.Build();
}

TEST(GmWait, TheAnyFormIsReleasedByOneWordAndTheDefaultNeedsEvery) {
  for (bool any : {true, false}) {
    SCOPED_TRACE(any ? "any" : "every");
    Device device(Config());
    std::vector<int32_t> words(32, 0);
    words[16] = 9;  // the second word (64 bytes on) holds; the first does not
    uint64_t q = Upload(device, words);
    auto program = Decode(PollKernel(any));
    LaunchOptions options;
    options.check = CheckLevel::kWarn;
    auto r = device.Launch(*program, 1, {ArgValue::Address(q)}, options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    if (any) {
      EXPECT_EQ(r->status, LaunchResult::Status::kOk);
      EXPECT_EQ(Download<int32_t>(device, q, 2)[1], 2);  // the result: only element 1 held
    } else {
      // Nothing else runs to write the first word: the wait never ends.
      EXPECT_EQ(r->status, LaunchResult::Status::kDeadlock);
    }
  }
}

}  // namespace
}  // namespace aicore::sim::testing
