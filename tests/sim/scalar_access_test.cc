// get_value / set_value: the scalar unit's element reads and writes of UB and GM. Values
// round-trip bit-exactly per element type, stores convert like a cast, accesses are PIPE_S
// accesses for the race checker (a missing V_S is a RACE naming both lines) and for auto_sync
// (which inserts the pair), bounds are checked like any operand, and the cost is the config's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

constexpr int kN = 32;  // elements per round trip: at least one 32-byte block of each type

struct TypeCase {
  ir::DType dtype;
  uint32_t size;
  std::vector<uint8_t> bytes;  // kN elements, little-endian
};

template <typename T>
TypeCase Case(ir::DType t, std::vector<T> v) {
  v.resize(kN, v.back());
  TypeCase c{t, sizeof(T), std::vector<uint8_t>(kN * sizeof(T))};
  std::memcpy(c.bytes.data(), v.data(), c.bytes.size());
  return c;
}

std::vector<TypeCase> Cases() {
  return {
      // Half: normal, negative, subnormal, the largest finite, -0 and infinity.
      Case<uint16_t>(ir::DT_FLOAT16, {0x3C00, 0xC500, 0x0001, 0x7BFF, 0x8000, 0x7C00, 0x3555}),
      Case<float>(ir::DT_FLOAT32, {1.5f, -2.25e-3f, 1e-40f, 3.4e38f, -0.0f, INFINITY, 0.1f}),
      Case<int16_t>(ir::DT_INT16, {1, -1, 32767, -32768, 0, 12345, -300}),
      Case<int32_t>(ir::DT_INT32, {7, -7, 2147483647, -2147483647 - 1, 0, 65536, -99}),
      Case<uint8_t>(ir::DT_UINT8, {0, 1, 127, 128, 255, 200, 3}),
  };
}

// for i in range(kN): ub[i] = x[i]; then y[i] = ub[i] (scalar loads and stores of GM and UB),
// and z = ub copied out by MTE3 after S_MTE3: every path a scalar access has.
ir::Kernel RoundTripKernel(ir::DType t) {
  KernelBuilder b("round_trip", "rt.py");
  uint32_t x = b.PointerParam("x", t);
  uint32_t y = b.PointerParam("y", t);
  uint32_t z = b.PointerParam("z", t);
  b.At(3);
  uint32_t ub = b.Const(0, ir::DT_UINT32);
  auto loop = b.BeginFor(b.Const(0, ir::DT_INT32), b.Const(kN, ir::DT_INT32),
                         b.Const(1, ir::DT_INT32), ir::DT_INT32);
  uint32_t v = b.At(5).ScalarLoad(KernelBuilder::Gm(x, t), loop.iv);
  b.At(6).ScalarStore(KernelBuilder::Ub(ub, t), loop.iv, v);
  uint32_t w = b.At(7).ScalarLoad(KernelBuilder::Ub(ub, t), loop.iv);
  b.At(8).ScalarStore(KernelBuilder::Gm(y, t), loop.iv, w);
  b.EndFor();
  b.At(10).SetFlag(kSMte3, b.Const(0, ir::DT_INT32));
  b.At(11).WaitFlag(kSMte3, b.Const(0, ir::DT_INT32));
  // 32 bytes: whole blocks of every element type.
  uint32_t elems =
      b.Const(32 / static_cast<int64_t>(t == ir::DT_UINT8                          ? 1
                                        : t == ir::DT_FLOAT16 || t == ir::DT_INT16 ? 2
                                                                                   : 4),
              ir::DT_INT32);
  b.At(12).DataCopy(KernelBuilder::Gm(z, t), KernelBuilder::Ub(ub, t), elems);
  return b.Build();
}

TEST(ScalarAccess, ValuesRoundTripThroughGmAndUbForEveryElementType) {
  for (const TypeCase& c : Cases()) {
    SCOPED_TRACE(ir::DType_Name(c.dtype));
    Device device(Config());
    uint64_t x = Upload(device, c.bytes);
    uint64_t y = Upload(device, std::vector<uint8_t>(c.bytes.size(), 0xAB));
    uint64_t z = Upload(device, std::vector<uint8_t>(32, 0xAB));
    auto program = Decode(RoundTripKernel(c.dtype));
    ASSERT_NE(program, nullptr);
    auto r = device.Launch(
        *program, 1, {ArgValue::Address(x), ArgValue::Address(y), ArgValue::Address(z)}, Strict());
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->status, LaunchResult::Status::kOk);
    ExpectStrictClean(*r);
    EXPECT_EQ(Download<uint8_t>(device, y, c.bytes.size()), c.bytes);
    std::vector<uint8_t> first(c.bytes.begin(), c.bytes.begin() + 32);
    EXPECT_EQ(Download<uint8_t>(device, z, 32), first);
  }
}

// y[0] = value (a constant of `from`) stored into a tensor of `to`.
std::vector<uint8_t> StoreConverted(ir::DType to, uint32_t to_size, double value, ir::DType from) {
  KernelBuilder b("convert", "cv.py");
  uint32_t y = b.PointerParam("y", to);
  bool is_float = from == ir::DT_FLOAT16 || from == ir::DT_FLOAT32;
  uint32_t v = is_float ? b.ConstF(value, from) : b.Const(static_cast<int64_t>(value), from);
  b.At(4).ScalarStore(KernelBuilder::Gm(y, to), b.Const(0, ir::DT_INT32), v);
  Device device(Config());
  uint64_t out = Upload(device, std::vector<uint8_t>(32, 0));
  auto program = Decode(b.Build());
  auto r = device.Launch(*program, 1, {ArgValue::Address(out)}, Strict());
  EXPECT_TRUE(r.ok() && r->status == LaunchResult::Status::kOk);
  return Download<uint8_t>(device, out, to_size);
}

TEST(ScalarAccess, AStoreConvertsItsValueToTheElementTypeLikeACast) {
  std::vector<uint8_t> i32 = StoreConverted(ir::DT_INT32, 4, -2.75, ir::DT_FLOAT32);
  int32_t truncated = 0;
  std::memcpy(&truncated, i32.data(), 4);
  EXPECT_EQ(truncated, -2);  // float -> int truncates toward zero
  std::vector<uint8_t> f16 = StoreConverted(ir::DT_FLOAT16, 2, 0.1, ir::DT_FLOAT32);
  EXPECT_EQ(f16[0] | f16[1] << 8, 0x2E66);  // float(0.1) rounded to the nearest half
  std::vector<uint8_t> u8 = StoreConverted(ir::DT_UINT8, 1, 300, ir::DT_INT32);
  EXPECT_EQ(u8[0], 300 & 0xFF);  // integers wrap at the element width
}

// x -> UB (MTE2), ub2 = ub * 2 (V), then the scalar unit reads ub2[5] and stores it to y[0].
// With `vs`, a V_S pair orders the read after the muls.
ir::Kernel VectorThenScalarKernel(bool vs) {
  KernelBuilder b("v_then_s", "vs.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  uint32_t y = b.PointerParam("y", ir::DT_FLOAT32);
  b.At(3);
  uint32_t ub = b.Const(0, ir::DT_UINT32);
  uint32_t ub2 = b.Const(1024, ir::DT_UINT32);
  uint32_t n = b.Const(256, ir::DT_INT32);
  uint32_t id = b.Const(0, ir::DT_INT32);
  b.At(10).DataCopy(KernelBuilder::Ub(ub, ir::DT_FLOAT32), KernelBuilder::Gm(x, ir::DT_FLOAT32), n);
  b.At(11).SetFlag(kMte2V, id);
  b.At(12).WaitFlag(kMte2V, id);
  b.At(13).VecScalar(ir::VecScalarOp::MULS, KernelBuilder::Ub(ub2, ir::DT_FLOAT32),
                     KernelBuilder::Ub(ub, ir::DT_FLOAT32), b.ConstF(2.0), n);
  if (vs) {
    b.At(14).SetFlag(kVS, id);
    b.At(15).WaitFlag(kVS, id);
  }
  uint32_t v =
      b.At(16).ScalarLoad(KernelBuilder::Ub(ub2, ir::DT_FLOAT32), b.Const(5, ir::DT_INT32));
  b.At(17).ScalarStore(KernelBuilder::Gm(y, ir::DT_FLOAT32), b.Const(0, ir::DT_INT32), v);
  return b.Build();
}

struct VsRun {
  LaunchResult result;
  float y0 = 0;
};

VsRun RunVectorThenScalar(bool vs, bool auto_sync, CheckLevel check) {
  ir::Kernel k = VectorThenScalarKernel(vs);
  k.mutable_sync()->set_auto_sync(auto_sync);
  Device device(Config());
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<float>(i) + 0.5f;
  uint64_t x = Upload(device, in);
  uint64_t y = Upload(device, std::vector<float>(8, -1.0f));
  auto program = Decode(k);
  LaunchOptions options;
  options.check = check;
  options.record_timeline = true;
  auto r = device.Launch(*program, 1, {ArgValue::Address(x), ArgValue::Address(y)}, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return {*r, Download<float>(device, y, 1)[0]};
}

TEST(ScalarAccess, AReadOfWhatPipeVWroteWithoutVSIsARaceNamingBothLines) {
  VsRun run = RunVectorThenScalar(/*vs=*/false, /*auto_sync=*/false, CheckLevel::kWarn);
  const LaunchResult& r = run.result;
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);  // the chip reads on, stale data included
  const Diagnostic* race = nullptr;
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == Diagnostic::Kind::kRace) race = &d;
  }
  ASSERT_NE(race, nullptr) << r.check.Text();
  EXPECT_EQ(race->race, "RAW");
  EXPECT_EQ(race->pipe, "S");
  EXPECT_EQ(race->op, "get_value");
  EXPECT_EQ(race->location.line, 16u);
  EXPECT_EQ(race->other_pipe, "V");
  EXPECT_EQ(race->other_op, "muls");
  EXPECT_EQ(race->other_location.line, 13u);
  EXPECT_EQ(race->memory, "UB");
  EXPECT_EQ(race->address_lo, 1024u + 5 * 4);
  EXPECT_EQ(race->address_hi, 1024u + 6 * 4);
  EXPECT_NE(race->message.find("set_flag(HardEvent.V_S, id) on PIPE_V after the muls and "
                               "wait_flag(HardEvent.V_S, id) on PIPE_S before the get_value"),
            std::string::npos)
      << race->message;
  // The scalar unit read before the muls wrote: the chip's stale value, not 2 * 5.5.
  EXPECT_NE(run.y0, 11.0f);
}

TEST(ScalarAccess, WithVSTheReadSeesTheVectorResult) {
  VsRun run = RunVectorThenScalar(/*vs=*/true, /*auto_sync=*/false, CheckLevel::kStrict);
  EXPECT_EQ(run.result.status, LaunchResult::Status::kOk);
  ExpectStrictClean(run.result);
  EXPECT_EQ(run.y0, 11.0f);
}

TEST(ScalarAccess, AutoSyncInsertsTheVSPairTheReadNeeds) {
  VsRun run = RunVectorThenScalar(/*vs=*/false, /*auto_sync=*/true, CheckLevel::kStrict);
  EXPECT_EQ(run.result.status, LaunchResult::Status::kOk);
  ExpectStrictClean(run.result);
  EXPECT_EQ(run.y0, 11.0f);
  bool inserted_set = false;
  for (const InstrRecord& rec : run.result.timeline) {
    inserted_set |= rec.pipe == "V" && rec.op == "set_flag" && rec.location.line == 16 &&
                    rec.detail.find("V_S") != std::string::npos &&
                    rec.detail.find("auto_sync") != std::string::npos;
  }
  EXPECT_TRUE(inserted_set) << "no V_S set_flag inserted on PIPE_V before the get_value";
}

// A scalar store that MTE3 then copies out needs S_MTE3; auto_sync inserts it (an S-side set).
ir::Kernel ScalarThenMte3Kernel() {
  KernelBuilder b("s_then_mte3", "sm.py");
  uint32_t y = b.PointerParam("y", ir::DT_INT32);
  b.At(3);
  uint32_t ub = b.Const(0, ir::DT_UINT32);
  auto loop = b.BeginFor(b.Const(0, ir::DT_INT32), b.Const(8, ir::DT_INT32),
                         b.Const(1, ir::DT_INT32), ir::DT_INT32);
  uint32_t v = b.Mul(loop.iv, b.Const(3, ir::DT_INT32), ir::DT_INT32);
  b.At(5).ScalarStore(KernelBuilder::Ub(ub, ir::DT_INT32), loop.iv, v);
  b.EndFor();
  b.At(7).DataCopy(KernelBuilder::Gm(y, ir::DT_INT32), KernelBuilder::Ub(ub, ir::DT_INT32),
                   b.Const(8, ir::DT_INT32));
  return b.Build();
}

TEST(ScalarAccess, TracedIndicesInALoopAndAnInsertedSMte3) {
  for (bool auto_sync : {false, true}) {
    SCOPED_TRACE(auto_sync ? "auto_sync" : "no sync");
    ir::Kernel k = ScalarThenMte3Kernel();
    k.mutable_sync()->set_auto_sync(auto_sync);
    Device device(Config());
    uint64_t y = Upload(device, std::vector<int32_t>(8, -1));
    auto program = Decode(k);
    LaunchOptions options;
    options.check = CheckLevel::kWarn;
    auto r = device.Launch(*program, 1, {ArgValue::Address(y)}, options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->status, LaunchResult::Status::kOk);
    EXPECT_EQ(Download<int32_t>(device, y, 8), (std::vector<int32_t>{0, 3, 6, 9, 12, 15, 18, 21}));
    int races = 0;
    for (const Diagnostic& d : r->diagnostics) {
      if (d.kind != Diagnostic::Kind::kRace) continue;
      ++races;
      EXPECT_EQ(d.pipe, "MTE3");
      EXPECT_EQ(d.other_pipe, "S");
      EXPECT_EQ(d.other_op, "set_value");
      EXPECT_NE(d.message.find("HardEvent.S_MTE3"), std::string::npos) << d.message;
    }
    EXPECT_EQ(races > 0, !auto_sync) << r->check.Text();
  }
}

// One get_value of `space` at element `index` of a 32-byte tensor; the launch's diagnostics.
LaunchResult OneLoad(ir::MemSpace space, int64_t index) {
  KernelBuilder b("one_load", "ol.py");
  uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
  ir::TensorRef t = space == ir::MEM_GM
                        ? KernelBuilder::Gm(x, ir::DT_FLOAT32)
                        : KernelBuilder::Ub(b.Const(0, ir::DT_UINT32), ir::DT_FLOAT32);
  uint32_t v = b.At(4).ScalarLoad(t, b.Const(index, ir::DT_INT64));
  b.At(5).ScalarStore(KernelBuilder::Gm(x, ir::DT_FLOAT32), b.Const(0, ir::DT_INT32), v);
  Device device(Config());
  uint64_t buf = Upload(device, std::vector<float>(8, 1.0f));
  auto program = Decode(b.Build());
  auto r = device.Launch(*program, 1, {ArgValue::Address(buf)}, LaunchOptions{});
  EXPECT_TRUE(r.ok()) << r.status().message();
  return *r;
}

bool HasKind(const LaunchResult& r, Diagnostic::Kind kind, uint32_t line) {
  for (const Diagnostic& d : r.diagnostics) {
    if (d.kind == kind && d.location.line == line) return true;
  }
  return false;
}

TEST(ScalarAccess, OutOfBoundsAndNegativeIndicesAreFaultsAtTheLine) {
  LaunchResult ub_end = OneLoad(ir::MEM_UB, 192 * 1024 / 4);  // one past UB
  EXPECT_EQ(ub_end.status, LaunchResult::Status::kKernelFault);
  EXPECT_TRUE(HasKind(ub_end, Diagnostic::Kind::kOutOfBounds, 4));
  LaunchResult gm_far = OneLoad(ir::MEM_GM, int64_t{1} << 40);
  EXPECT_EQ(gm_far.status, LaunchResult::Status::kKernelFault);
  EXPECT_TRUE(HasKind(gm_far, Diagnostic::Kind::kGmOutOfBounds, 4));
  LaunchResult negative = OneLoad(ir::MEM_UB, -1);
  EXPECT_EQ(negative.status, LaunchResult::Status::kKernelFault);
  EXPECT_TRUE(HasKind(negative, Diagnostic::Kind::kInvalidOperand, 4));
}

TEST(ScalarAccess, AReadOfUnwrittenUbIsAnInitcheckWarning) {
  LaunchResult r = OneLoad(ir::MEM_UB, 3);
  EXPECT_EQ(r.status, LaunchResult::Status::kOk);
  EXPECT_TRUE(HasKind(r, Diagnostic::Kind::kUninitializedRead, 4));
}

// The scalar unit's busy time grows by exactly the configured load latency per extra load.
uint64_t ScalarBusy(int loads, ir::MemSpace space) {
  KernelBuilder b("loads", "ld.py");
  uint32_t x = b.PointerParam("x", ir::DT_INT32);
  uint32_t ub = b.Const(0, ir::DT_UINT32);
  ir::TensorRef t = space == ir::MEM_GM ? KernelBuilder::Gm(x, ir::DT_INT32)
                                        : KernelBuilder::Ub(ub, ir::DT_INT32);
  uint32_t zero = b.Const(0, ir::DT_INT32);
  b.ScalarStore(t, zero, zero);  // initialised, so the loads are clean
  for (int i = 0; i < loads; ++i) b.ScalarLoad(t, zero);
  Device device(Config());
  uint64_t buf = Upload(device, std::vector<int32_t>(8, 0));
  auto program = Decode(b.Build());
  auto r = device.Launch(*program, 1, {ArgValue::Address(buf)}, Strict());
  EXPECT_TRUE(r.ok() && r->status == LaunchResult::Status::kOk);
  ExpectStrictClean(*r);
  return FindPipe(r->cores[0], "S")->busy_cycles;
}

TEST(ScalarAccess, ALoadCostsTheConfiguredLatency) {
  SocConfig c = Config();
  EXPECT_EQ(ScalarBusy(3, ir::MEM_UB) - ScalarBusy(2, ir::MEM_UB), c.scalar_local_load_cycles);
  EXPECT_EQ(ScalarBusy(3, ir::MEM_GM) - ScalarBusy(2, ir::MEM_GM), c.scalar_gm_load_cycles);
}

TEST(ScalarAccess, TheDecoderRejectsMalformedAccessesWithTheirField) {
  struct Bad {
    const char* want;
    void (*make)(KernelBuilder&, uint32_t x);
  };
  const Bad cases[] = {
      {"field index: ",
       [](KernelBuilder& b, uint32_t x) { b.ScalarLoad(KernelBuilder::Gm(x, ir::DT_FLOAT32), 0); }},
      {"field index: ",
       [](KernelBuilder& b, uint32_t x) {
         b.ScalarLoad(KernelBuilder::Gm(x, ir::DT_FLOAT32), b.ConstF(1.0));
       }},
      {"field src.dtype: ",
       [](KernelBuilder& b, uint32_t x) {
         b.ScalarLoad(KernelBuilder::Gm(x, ir::DT_BOOL), b.Const(0));
       }},
      {"field src.space: ",
       [](KernelBuilder& b, uint32_t x) {
         ir::TensorRef t = KernelBuilder::Gm(x, ir::DT_FLOAT32);
         t.set_space(ir::MEM_INVALID);
         b.ScalarLoad(t, b.Const(0));
       }},
      {"field value: ",
       [](KernelBuilder& b, uint32_t x) {
         b.ScalarStore(KernelBuilder::Gm(x, ir::DT_FLOAT32), b.Const(0), 999);
       }},
      {"field dst.addr: ",
       [](KernelBuilder& b, uint32_t x) {
         b.ScalarStore(KernelBuilder::Gm(0, ir::DT_FLOAT32), b.Const(0), b.Const(1));
       }},
  };
  for (const Bad& c : cases) {
    KernelBuilder b("bad", "bad.py");
    uint32_t x = b.PointerParam("x", ir::DT_FLOAT32);
    c.make(b, x);
    auto p = DecodeKernel(b.Build());
    ASSERT_FALSE(p.ok()) << c.want;
    EXPECT_NE(p.status().message().find(c.want), std::string::npos) << p.status().message();
  }
}

}  // namespace
}  // namespace aicore::sim::testing
