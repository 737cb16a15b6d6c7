// Vector element semantics over raw bytes, called through the instruction table's rows: half
// computed in float and rounded once, integer wraparound, NaN-propagating max/min, relu/abs on
// special values, scalar forms; and every row's dtypes are implemented by its function.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"
#include "sim/isa/opcode.h"
#include "sim/isa/semantics/cast.h"
#include "sim/isa/semantics/deq.h"
#include "sim/isa/semantics/movement.h"

namespace aicore::sim {
namespace {

template <typename T>
std::vector<T> Binary(Opcode op, DType t, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out(a.size());
  Info(op).semantics(VecOperands{t, reinterpret_cast<const uint8_t*>(a.data()),
                                 reinterpret_cast<const uint8_t*>(b.data()),
                                 reinterpret_cast<uint8_t*>(out.data()), a.size(), 0});
  return out;
}

template <typename T>
std::vector<T> Unary(Opcode op, DType t, const std::vector<T>& a) {
  std::vector<T> out(a.size());
  Info(op).semantics(VecOperands{t, reinterpret_cast<const uint8_t*>(a.data()), nullptr,
                                 reinterpret_cast<uint8_t*>(out.data()), a.size(), 0});
  return out;
}

TEST(VectorOps, HalfAddRoundsOnceToNearestEven) {
  // 2048 + 1 is a tie between 2048 and 2050 in half: even mantissa wins (2048); 2050 + 1 goes
  // to 2052. Runs longer than one staging chunk to cover the loop tail.
  std::vector<uint16_t> a(300, FloatToHalf(2048)), b(300, FloatToHalf(1));
  a[299] = FloatToHalf(2050);
  auto out = Binary(Opcode::kVecAdd, DType::kFloat16, a, b);
  EXPECT_EQ(HalfToFloat(out[0]), 2048.0f);
  EXPECT_EQ(HalfToFloat(out[299]), 2052.0f);
}

TEST(VectorOps, HalfOverflowGivesInfinity) {
  std::vector<uint16_t> a{FloatToHalf(60000)}, b{FloatToHalf(60000)};
  EXPECT_EQ(Binary(Opcode::kVecAdd, DType::kFloat16, a, b)[0], 0x7c00);
  EXPECT_EQ(Binary(Opcode::kVecMul, DType::kFloat16, a, b)[0], 0x7c00);
}

TEST(VectorOps, IntegersWrap) {
  std::vector<int16_t> a{32767, -32768}, b{1, -1};
  auto s = Binary(Opcode::kVecAdd, DType::kInt16, a, b);
  EXPECT_EQ(s[0], -32768);
  EXPECT_EQ(s[1], 32767);
  std::vector<int32_t> c{std::numeric_limits<int32_t>::max()}, d{2};
  EXPECT_EQ(Binary(Opcode::kVecMul, DType::kInt32, c, d)[0], -2);
}

TEST(VectorOps, MaxMinPropagateNan) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> a{nan, 1.0f, -0.0f}, b{1.0f, nan, 0.0f};
  auto mx = Binary(Opcode::kVecMax, DType::kFloat32, a, b);
  auto mn = Binary(Opcode::kVecMin, DType::kFloat32, a, b);
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));
  EXPECT_FALSE(std::signbit(mx[2]));  // max(-0, +0) = +0
  EXPECT_TRUE(std::signbit(mn[2]));   // min(-0, +0) = -0
  std::vector<uint16_t> h{0x7e00}, g{FloatToHalf(3)};
  EXPECT_EQ(Binary(Opcode::kVecMax, DType::kFloat16, h, g)[0] & 0x7fff, 0x7e00);
}

TEST(VectorOps, UnaryOps) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x{-2.0f, 0.0f, 4.0f, nan};
  auto r = Unary(Opcode::kVecRelu, DType::kFloat32, x);
  EXPECT_EQ(r[0], 0.0f);
  EXPECT_EQ(r[2], 4.0f);
  EXPECT_TRUE(std::isnan(r[3]));
  auto a = Unary(Opcode::kVecAbs, DType::kFloat32, x);
  EXPECT_EQ(a[0], 2.0f);
  auto s = Unary(Opcode::kVecSqrt, DType::kFloat32, x);
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[2], 2.0f);
  auto e = Unary(Opcode::kVecExp, DType::kFloat32, std::vector<float>{0.0f, -INFINITY});
  EXPECT_EQ(e[0], 1.0f);
  EXPECT_EQ(e[1], 0.0f);
  auto l = Unary(Opcode::kVecLn, DType::kFloat32, std::vector<float>{1.0f, 0.0f, -1.0f});
  EXPECT_EQ(l[0], 0.0f);
  EXPECT_TRUE(std::isinf(l[1]) && l[1] < 0);
  EXPECT_TRUE(std::isnan(l[2]));
  // Half: computed in float, rounded once.
  std::vector<uint16_t> h{FloatToHalf(2.0f), FloatToHalf(-3.0f)};
  auto hs = Unary(Opcode::kVecSqrt, DType::kFloat16, h);
  EXPECT_EQ(hs[0], FloatToHalf(std::sqrt(2.0f)));
  auto hr = Unary(Opcode::kVecRelu, DType::kFloat16, h);
  EXPECT_EQ(hr[1], 0);
  auto ha = Unary(Opcode::kVecAbs, DType::kFloat16, h);
  EXPECT_EQ(HalfToFloat(ha[1]), 3.0f);
}

TEST(VectorOps, HardwareEstimatesAreCorrectlyRounded) {
  // The chip's Rsqrt/Reciprocal are estimates (ascendc-semantics.md 5.4); the model returns the
  // value rounded once from double, so 1/3 is float(1/3) and half(1/3) from double directly.
  std::vector<float> f{4.0f, 3.0f, 0.0f, -1.0f, INFINITY};
  auto r = Unary(Opcode::kVecRsqrt, DType::kFloat32, f);
  EXPECT_EQ(r[0], 0.5f);
  EXPECT_EQ(r[1], static_cast<float>(1.0 / std::sqrt(3.0)));
  EXPECT_TRUE(std::isinf(r[2]) && r[2] > 0);
  EXPECT_TRUE(std::isnan(r[3]));
  EXPECT_EQ(r[4], 0.0f);
  auto q = Unary(Opcode::kVecReciprocal, DType::kFloat32, f);
  EXPECT_EQ(q[1], static_cast<float>(1.0 / 3.0));
  EXPECT_TRUE(std::isinf(q[2]) && q[2] > 0);
  EXPECT_EQ(q[3], -1.0f);
  std::vector<uint16_t> h{FloatToHalf(3.0f), FloatToHalf(-0.0f), FloatToHalf(0.1f)};
  auto hq = Unary(Opcode::kVecReciprocal, DType::kFloat16, h);
  EXPECT_EQ(hq[0], DoubleToHalf(1.0 / 3.0));
  EXPECT_EQ(hq[1], 0xFC00);  // -inf
  EXPECT_EQ(hq[2], DoubleToHalf(1.0 / static_cast<double>(HalfToFloat(h[2]))));
  auto hr = Unary(Opcode::kVecRsqrt, DType::kFloat16, h);
  EXPECT_EQ(hr[0], DoubleToHalf(1.0 / std::sqrt(3.0)));
}

TEST(VectorOps, ScalarForms) {
  std::vector<float> x{1.0f, -1.0f};
  std::vector<float> out(2);
  VecMaxs(VecOperands{DType::kFloat32, reinterpret_cast<const uint8_t*>(x.data()), nullptr,
                      reinterpret_cast<uint8_t*>(out.data()), 2, std::bit_cast<uint32_t>(0.5f)});
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 0.5f);
  std::vector<int16_t> i{32767}, o(1);
  VecAdds(VecOperands{DType::kInt16, reinterpret_cast<const uint8_t*>(i.data()), nullptr,
                      reinterpret_cast<uint8_t*>(o.data()), 1, 1});
  EXPECT_EQ(o[0], -32768);
}

TEST(VectorOps, SupportTable) {
  EXPECT_TRUE(VectorOpSupports(Opcode::kVecAdd, DType::kInt16));
  EXPECT_FALSE(VectorOpSupports(Opcode::kVecDiv, DType::kInt32));
  EXPECT_FALSE(VectorOpSupports(Opcode::kVecExp, DType::kInt16));
  EXPECT_FALSE(VectorOpSupports(Opcode::kVecAdd, DType::kBFloat16));
  EXPECT_FALSE(VectorOpSupports(Opcode::kDataCopy, DType::kFloat16));
}

TEST(VectorOps, EveryRowImplementsExactlyItsDTypes) {
  // 64 elements of 8 bytes cover any element type; zeros are valid inputs for every op.
  std::vector<uint8_t> a(512, 0), b(512, 0), out(512, 0);
  for (const OpcodeInfo& row : kOpcodeTable) {
    if (row.semantics == nullptr) {
      EXPECT_EQ(row.dtypes, kNoTypes) << row.mnemonic;
      continue;
    }
    EXPECT_NE(row.dtypes, kNoTypes) << row.mnemonic;
    EXPECT_EQ(row.pipe, PipeRule::kV) << row.mnemonic;
    EXPECT_FALSE(row.cost.empty()) << row.mnemonic;
    for (int d = 1; d < kNumDTypes; ++d) {
      auto t = static_cast<DType>(d);
      VecOperands ops{t, a.data(), b.data(), out.data(), 64, 0, b.data()};
      // A cast's row lists destination types; any source it has from float32 or int32 will do.
      if (row.op_class == OpClass::kVecCast) {
        ops.src_dtype = CastModes(DType::kFloat32, t) != 0 ? DType::kFloat32 : DType::kInt32;
        if (CastModes(ops.src_dtype, t) == 0) ops.src_dtype = DType::kFloat16;
        if (row.opcode == Opcode::kVecCastDeq) ops.src_dtype = DType::kInt16;
        ops.round_mode = static_cast<uint8_t>(RoundMode::kTrunc);
      }
      // Sort rows: two proposals, or a merge of two lists of two (zeros sort as equals).
      SortOperands lists;
      uint64_t taken[4] = {};
      if (row.op_class == OpClass::kVecProposal) ops.count = 2;
      if (row.op_class == OpClass::kVecMrgSort) {
        lists.lists = 2;
        lists.list[0] = a.data();
        lists.list[1] = b.data();
        lists.length[0] = lists.length[1] = 2;
        lists.taken = taken;
        ops.sort = &lists;
      }
      // A binary cast's row lists destination types: half into int8/uint8, float into half.
      if (row.op_class == OpClass::kVecBinCast) {
        ops.src_dtype = t == DType::kFloat16 ? DType::kFloat32 : DType::kFloat16;
        if (row.opcode == Opcode::kVecAddDeqRelu) ops.src_dtype = DType::kInt32;
      }
      if (VectorOpSupports(row.opcode, t)) {
        EXPECT_NO_THROW(row.semantics(ops)) << row.mnemonic << " " << DTypeName(t);
      } else {
        EXPECT_THROW(row.semantics(ops), InvariantViolation) << row.mnemonic << " " << DTypeName(t);
      }
    }
  }
}

TEST(VectorOps, DuplicateFillsBf16ByItsBits) {
  std::vector<uint16_t> out(5);
  uint16_t one_bf16 = 0x3F80;  // 1.0 in bfloat16: the high half of float 1.0f
  VecDuplicate(VecOperands{DType::kBFloat16, nullptr, nullptr,
                           reinterpret_cast<uint8_t*>(out.data()), out.size(), one_bf16});
  for (uint16_t v : out) EXPECT_EQ(v, one_bf16);
}

TEST(VectorOps, ShiftsOfTheBitWidthOrMoreSaturate) {
  std::vector<int16_t> x{-4, 4}, out(2);
  auto run = [&](Opcode op, uint64_t amount) {
    Info(op).semantics(VecOperands{DType::kInt16, reinterpret_cast<const uint8_t*>(x.data()),
                                   nullptr, reinterpret_cast<uint8_t*>(out.data()), 2, amount});
  };
  run(Opcode::kVecShiftRight, 1);
  EXPECT_EQ(out, (std::vector<int16_t>{-2, 2}));  // arithmetic
  run(Opcode::kVecShiftRight, 16);
  EXPECT_EQ(out, (std::vector<int16_t>{-1, 0}));
  run(Opcode::kVecShiftLeft, 16);
  EXPECT_EQ(out, (std::vector<int16_t>{0, 0}));
  run(Opcode::kVecShiftLeft, 14);
  EXPECT_EQ(out, (std::vector<int16_t>{0, 0}));  // 4 << 14 wraps to 0 in 16 bits
}

TEST(VectorOps, MultiplyAddRoundsTheProductFirst) {
  // Half: 1.0009765625 * 1.0009765625 = 1.00195408... rounds to 1.001953125 before the add.
  std::vector<uint16_t> a{FloatToHalf(1.0009765625f)}, b{FloatToHalf(1.0009765625f)};
  std::vector<uint16_t> d{FloatToHalf(-1.001953125f)}, out(1);
  VecMulAddDst(VecOperands{DType::kFloat16, reinterpret_cast<const uint8_t*>(a.data()),
                           reinterpret_cast<const uint8_t*>(b.data()),
                           reinterpret_cast<uint8_t*>(out.data()), 1, 0,
                           reinterpret_cast<const uint8_t*>(d.data())});
  EXPECT_EQ(HalfToFloat(out[0]), 0.0f);  // a fused rounding would leave 9.5e-7
}

uint64_t Cast(uint64_t bits, DType src, DType dst, RoundMode m) {
  return CastBits(bits, src, dst, m);
}
uint32_t F(float f) { return std::bit_cast<uint32_t>(f); }

TEST(Cast, FloatToHalfInEveryRoundMode) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10).
  uint32_t mid = F(1.0f + 0x1p-11f);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kFloat16, RoundMode::kRint), 0x3C00u);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kFloat16, RoundMode::kRound), 0x3C01u);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kFloat16, RoundMode::kFloor), 0x3C00u);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kFloat16, RoundMode::kCeil), 0x3C01u);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kFloat16, RoundMode::kTrunc), 0x3C00u);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kFloat16, RoundMode::kOdd), 0x3C01u);
  uint32_t neg = F(-(1.0f + 0x1p-11f));
  EXPECT_EQ(Cast(neg, DType::kFloat32, DType::kFloat16, RoundMode::kFloor), 0xBC01u);
  EXPECT_EQ(Cast(neg, DType::kFloat32, DType::kFloat16, RoundMode::kCeil), 0xBC00u);
  // Overflow: nearest gives inf, toward zero the largest half.
  EXPECT_EQ(Cast(F(70000.0f), DType::kFloat32, DType::kFloat16, RoundMode::kRint), 0x7C00u);
  EXPECT_EQ(Cast(F(70000.0f), DType::kFloat32, DType::kFloat16, RoundMode::kTrunc), 0x7BFFu);
  // Subnormal halves: 2^-24 is the smallest.
  EXPECT_EQ(Cast(F(0x1p-24f), DType::kFloat32, DType::kFloat16, RoundMode::kRint), 0x0001u);
  EXPECT_EQ(Cast(F(0x1p-26f), DType::kFloat32, DType::kFloat16, RoundMode::kCeil), 0x0001u);
}

TEST(Cast, FloatToIntegerSaturatesAndNanIsZero) {
  EXPECT_EQ(Cast(F(2.5f), DType::kFloat32, DType::kInt32, RoundMode::kRint), 2u);
  EXPECT_EQ(Cast(F(2.5f), DType::kFloat32, DType::kInt32, RoundMode::kRound), 3u);
  EXPECT_EQ(Cast(F(-2.5f), DType::kFloat32, DType::kInt32, RoundMode::kRound),
            static_cast<uint32_t>(-3));
  EXPECT_EQ(Cast(F(0x1p22f + 0.5f), DType::kFloat32, DType::kInt16, RoundMode::kRint), 32767u);
  EXPECT_EQ(Cast(F(NAN), DType::kFloat32, DType::kInt32, RoundMode::kTrunc), 0u);
  EXPECT_EQ(Cast(F(-INFINITY), DType::kFloat32, DType::kInt16, RoundMode::kTrunc), 0x8000u);
  EXPECT_EQ(Cast(0xFC00u, DType::kFloat16, DType::kUInt8, RoundMode::kNone), 0u);  // -inf
}

TEST(Cast, FloatToFloatIsRoundToIntegralAndMinusZeroBecomesPlus) {
  EXPECT_EQ(Cast(F(-0.3f), DType::kFloat32, DType::kFloat32, RoundMode::kTrunc), 0u);
  EXPECT_EQ(Cast(F(1.5f), DType::kFloat32, DType::kFloat32, RoundMode::kRint), F(2.0f));
  EXPECT_EQ(Cast(F(-1.5f), DType::kFloat32, DType::kFloat32, RoundMode::kFloor), F(-2.0f));
}

TEST(Cast, Bf16BothWays) {
  // 1 + 2^-8 is halfway between two bf16 values: RINT keeps 1.0, CEIL takes the next.
  uint32_t mid = F(1.0f + 0x1p-8f);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kBFloat16, RoundMode::kRint), 0x3F80u);
  EXPECT_EQ(Cast(mid, DType::kFloat32, DType::kBFloat16, RoundMode::kCeil), 0x3F81u);
  EXPECT_EQ(Cast(0x3FC0u, DType::kBFloat16, DType::kFloat32, RoundMode::kNone), F(1.5f));
  EXPECT_EQ(Cast(0xC0B0u, DType::kBFloat16, DType::kInt32, RoundMode::kTrunc),
            static_cast<uint32_t>(-5));  // -5.5
}

TEST(Cast, IntegersSaturateAndWidenExactly) {
  EXPECT_EQ(Cast(static_cast<uint32_t>(-70000), DType::kInt32, DType::kInt16, RoundMode::kNone),
            0x8000u);
  EXPECT_EQ(Cast(static_cast<uint32_t>(-5), DType::kInt32, DType::kInt64, RoundMode::kNone),
            static_cast<uint64_t>(-5));
  // int32 -> float: 2^31 - 1 is not a float; nearest rounds to 2^31, toward zero below it.
  EXPECT_EQ(Cast(0x7FFFFFFFu, DType::kInt32, DType::kFloat32, RoundMode::kRint), F(0x1p31f));
  EXPECT_EQ(Cast(0x7FFFFFFFu, DType::kInt32, DType::kFloat32, RoundMode::kTrunc), F(2147483520.0f));
}

TEST(Cast, TheTableNamesEveryLegalPair) {
  EXPECT_NE(CastModes(DType::kFloat32, DType::kFloat16) & RoundModeBit(RoundMode::kOdd), 0);
  EXPECT_EQ(CastModes(DType::kFloat16, DType::kFloat32), RoundModeBit(RoundMode::kNone));
  // int32 -> half dequantises by DEQSCALE whatever the mode (ascendc-semantics.md 5.2).
  EXPECT_EQ(RoundModeList(CastModes(DType::kInt32, DType::kFloat16)),
            "CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD");
  EXPECT_EQ(RoundModeList(CastModes(DType::kInt16, DType::kFloat32)), "CAST_NONE");
}

// A reduction over one iteration of `lanes` lanes with the given active flags and order.
template <typename T>
std::vector<T> Reduce(Opcode op, DType t, const std::vector<T>& a, const std::vector<uint8_t>& on,
                      uint8_t order, size_t results) {
  std::vector<T> out(results, T{});
  VecOperands o{t,        reinterpret_cast<const uint8_t*>(a.data()),
                nullptr,  reinterpret_cast<uint8_t*>(out.data()),
                a.size(), 0};
  o.round_mode = order;
  o.active = on.data();
  Info(op).semantics(o);
  return out;
}

TEST(Reduce, WholeMaxOrdersValueAndIndexAsPyascReduceOrder) {
  std::vector<float> a(64, 1.0f);
  a[9] = 7.0f;
  a[20] = 7.0f;  // a tie: the first lane wins
  std::vector<uint8_t> on(64, 1);
  auto vi = Reduce<float>(Opcode::kVecWholeReduceMax, DType::kFloat32, a, on, 0, 2);
  EXPECT_EQ(vi[0], 7.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(vi[1]), 9u);
  auto iv = Reduce<float>(Opcode::kVecWholeReduceMax, DType::kFloat32, a, on, 1, 2);
  EXPECT_EQ(std::bit_cast<uint32_t>(iv[0]), 9u);
  EXPECT_EQ(iv[1], 7.0f);
  EXPECT_EQ(Reduce<float>(Opcode::kVecWholeReduceMax, DType::kFloat32, a, on, 2, 1)[0], 7.0f);
  EXPECT_EQ(std::bit_cast<uint32_t>(
                Reduce<float>(Opcode::kVecWholeReduceMax, DType::kFloat32, a, on, 3, 1)[0]),
            9u);
  EXPECT_EQ(ReduceLayoutOf(Opcode::kVecWholeReduceMax, 0, 64, 4).width, 2u);
  EXPECT_EQ(ReduceLayoutOf(Opcode::kVecWholeReduceMin, 3, 64, 4).width, 1u);
}

TEST(Reduce, HalfMinSkipsInactiveLanesAndNanWins) {
  std::vector<uint16_t> a(128, FloatToHalf(3.0f));
  std::vector<uint8_t> on(128, 1);
  a[5] = FloatToHalf(-9.0f);
  on[5] = 0;  // masked off: does not compete
  a[6] = FloatToHalf(-1.0f);
  auto m = Reduce<uint16_t>(Opcode::kVecWholeReduceMin, DType::kFloat16, a, on, 0, 2);
  EXPECT_EQ(m[0], FloatToHalf(-1.0f));
  EXPECT_EQ(m[1], 6u);
  a[40] = 0x7e00;  // NaN
  m = Reduce<uint16_t>(Opcode::kVecWholeReduceMin, DType::kFloat16, a, on, 0, 2);
  EXPECT_EQ(m[0] & 0x7fffu, 0x7e00u);
  EXPECT_EQ(m[1], 40u);
}

TEST(Reduce, BlockAndPairSumsRoundPerAddition) {
  // One fp16 block: 2048 + fifteen 1s. The tree adds the ones together first and comes
  // up to 2062 (each level rounded), where a sequential sum stays 2048.
  std::vector<uint16_t> a(128, 0);
  a[0] = FloatToHalf(2048.0f);
  for (int i = 1; i < 16; ++i) a[i] = FloatToHalf(1.0f);
  std::vector<uint8_t> on(128, 1);
  auto b = Reduce<uint16_t>(Opcode::kVecBlockReduceSum, DType::kFloat16, a, on, 0, 8);
  EXPECT_EQ(HalfToFloat(b[0]), 2062.0f);
  EXPECT_EQ(b[1], 0u);
  auto p = Reduce<uint16_t>(Opcode::kVecPairReduceSum, DType::kFloat16, a, on, 0, 64);
  EXPECT_EQ(HalfToFloat(p[0]), 2048.0f);  // 2048 + 1 ties to even
  EXPECT_EQ(HalfToFloat(p[1]), 2.0f);
  EXPECT_EQ(ReduceLayoutOf(Opcode::kVecBlockReduceSum, 0, 128, 2).group, 16u);
  EXPECT_EQ(ReduceLayoutOf(Opcode::kVecPairReduceSum, 0, 64, 4).group, 2u);
}

TEST(VectorOps, TableRowsAreIndexedByTheirOpcode) {
  for (int i = 0; i < kNumOpcodes; ++i) {
    EXPECT_EQ(static_cast<int>(kOpcodeTable[i].opcode), i) << kOpcodeTable[i].mnemonic;
    const OpcodeInfo* found = FindOpcode(kOpcodeTable[i].ir_op, kOpcodeTable[i].ir_kind);
    ASSERT_NE(found, nullptr) << kOpcodeTable[i].mnemonic;
    if (kOpcodeTable[i].ir_kind != 0) {
      EXPECT_EQ(found, &kOpcodeTable[i]);
    }
  }
}

// Sort32 (semantics/sort.cc): descending, NaN above +inf, -0 and +0 equal and kept in input
// order, a half score's bytes 2-3 zero.
TEST(VectorOps, Sort32OrdersNanFirstAndKeepsTiesInInputOrder) {
  std::vector<uint16_t> score(32, FloatToHalf(1.0f));
  score[3] = 0x7E00;              // NaN
  score[4] = FloatToHalf(65504);  // max half
  score[5] = 0x8000;              // -0
  score[6] = 0x0000;              // +0
  score[7] = FloatToHalf(-1.0f);
  std::vector<uint32_t> index(32);
  for (uint32_t i = 0; i < 32; ++i) index[i] = 100 + i;
  std::vector<uint8_t> out(32 * 8, 0xAB);
  Info(Opcode::kVecSort32)
      .semantics(VecOperands{DType::kFloat16, reinterpret_cast<const uint8_t*>(score.data()),
                             reinterpret_cast<const uint8_t*>(index.data()), out.data(), 32, 0});
  auto index_at = [&](int k) {
    uint32_t v;
    std::memcpy(&v, out.data() + 8 * k + 4, 4);
    return v;
  };
  EXPECT_EQ(index_at(0), 103u);  // NaN first
  EXPECT_EQ(index_at(1), 104u);
  EXPECT_EQ(index_at(2), 100u);  // the 1.0s in input order
  EXPECT_EQ(index_at(28), 131u);
  EXPECT_EQ(index_at(29), 105u);  // -0 before +0: input order
  EXPECT_EQ(index_at(30), 106u);
  EXPECT_EQ(index_at(31), 107u);
  EXPECT_EQ(out[8 * 29 + 2], 0);  // reserved half bytes written 0
  EXPECT_EQ(out[8 * 29 + 3], 0);
}

// A merge takes equal scores from the lower-numbered list first; with exhausted suspension it
// stops once a list is empty and reports what it took from each.
TEST(VectorOps, MrgSortTiesFavourTheFirstListAndSuspensionStops) {
  auto structs = [](std::vector<float> s, uint32_t base) {
    std::vector<uint8_t> b(s.size() * 8);
    for (size_t i = 0; i < s.size(); ++i) {
      uint32_t idx = base + static_cast<uint32_t>(i);
      std::memcpy(b.data() + 8 * i, &s[i], 4);
      std::memcpy(b.data() + 8 * i + 4, &idx, 4);
    }
    return b;
  };
  std::vector<uint8_t> l0 = structs({5, 3, 3}, 0), l1 = structs({3, 1}, 10);
  for (bool suspend : {false, true}) {
    std::vector<uint8_t> out(5 * 8, 0);
    uint64_t taken[4] = {};
    SortOperands s;
    s.lists = 2;
    s.list[0] = l0.data();
    s.list[1] = l1.data();
    s.length[0] = 3;
    s.length[1] = 2;
    s.exhausted_suspension = suspend;
    s.taken = taken;
    VecOperands o{DType::kFloat32, nullptr, nullptr, out.data()};
    o.sort = &s;
    Info(Opcode::kVecMrgSort).semantics(o);
    std::vector<uint32_t> order;
    for (uint64_t k = 0; k < taken[0] + taken[1]; ++k) {
      uint32_t v;
      std::memcpy(&v, out.data() + 8 * k + 4, 4);
      order.push_back(v);
    }
    if (suspend) {
      EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2}));  // list 0 ran out first
      EXPECT_EQ(taken[1], 0u);
    } else {
      EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 10, 11}));
    }
  }
}

// Rearrangements move bf16 by its bits (pyasc has no bfloat16, so only here): brcb fills a block
// per element, transpose swaps a 16x16, trans_data_to_5hd crosses 16 address pairs.
struct Ub {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(8192, 0);
  std::vector<uint8_t> image = std::vector<uint8_t>(8192, 0);
  std::vector<uint8_t> written = std::vector<uint8_t>(8192, 0);
  MoveTarget Target(uint64_t lo, uint64_t span) {
    return MoveTarget{lo, span, image.data(), written.data()};
  }
  uint16_t At(uint64_t byte) const {
    uint16_t v;
    std::memcpy(&v, image.data() + byte, 2);
    return v;
  }
  void Put(uint64_t byte, uint16_t v) { std::memcpy(bytes.data() + byte, &v, 2); }
};

TEST(Movement, BrcbAndTransposeMoveBf16Bits) {
  Ub ub;
  for (int i = 0; i < 256; ++i) ub.Put(2 * i, static_cast<uint16_t>(0x3F80 + i));  // bf16 bits
  MoveArgs brcb;
  brcb.kind = MoveKind::kBrcb;
  brcb.dtype = DType::kBFloat16;
  brcb.src = 0;
  brcb.dst = 4096;
  brcb.repeats = 1;
  uint64_t kept = 0;
  std::string fault;
  ASSERT_TRUE(RunMove(brcb, ub.bytes.data(), ub.bytes.size(), ub.Target(4096, 256), &kept, &fault));
  for (int t = 0; t < 8; ++t) {
    for (int k = 0; k < 16; ++k) EXPECT_EQ(ub.At(t * 32 + 2 * k), 0x3F80 + t);
  }
  MoveArgs tr;
  tr.kind = MoveKind::kTranspose;
  tr.dtype = DType::kBFloat16;
  tr.src = 0;
  tr.dst = 1024;
  Ub out = ub;
  ASSERT_TRUE(RunMove(tr, ub.bytes.data(), ub.bytes.size(), out.Target(1024, 512), &kept, &fault));
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) EXPECT_EQ(out.At((i * 16 + j) * 2), 0x3F80 + j * 16 + i);
  }
  VecOperands ops;
  ops.dtype = DType::kBFloat16;
  EXPECT_NO_THROW(VecTransDataTo5hd(ops));
  ops.dtype = DType::kFloat32;
  EXPECT_THROW(VecTranspose(ops), InvariantViolation);  // 2-byte elements only
}

TEST(Movement, AGatherOffsetPastUbFaultsAndNamesTheRange) {
  Ub ub;
  uint32_t far = 9000;
  std::memcpy(ub.bytes.data() + 1024, &far, 4);
  MoveArgs g;
  g.kind = MoveKind::kGather;
  g.dtype = DType::kFloat16;
  g.dst = 2048;
  g.index = 1024;
  g.counter = true;
  g.count = 1;
  uint64_t kept = 0;
  std::string fault;
  EXPECT_FALSE(RunMove(g, ub.bytes.data(), ub.bytes.size(), ub.Target(2048, 2), &kept, &fault));
  EXPECT_NE(fault.find("UB[9000, 9002)"), std::string::npos) << fault;
  EXPECT_EQ(ub.written[0], 0);
}

TEST(VectorOps, MulCastRoundsTheHalfProductThenConvertsNearestEvenWithSaturation) {
  // 2.5 * 1 -> 2 (tie to even), 3.5 * 1 -> 4, 100 * 2 -> 127 (saturates), -100 * 2 -> -128,
  // NaN -> 0, and 0.1 * 0.1 rounded to half first.
  std::vector<uint16_t> a{
      FloatToHalf(2.5f), FloatToHalf(3.5f), FloatToHalf(100.0f), FloatToHalf(-100.0f), 0x7e00,
      FloatToHalf(0.1f)};
  std::vector<uint16_t> b{FloatToHalf(1.0f), FloatToHalf(1.0f), FloatToHalf(2.0f),
                          FloatToHalf(2.0f), FloatToHalf(1.0f), FloatToHalf(0.1f)};
  std::vector<int8_t> out(a.size(), 9);
  VecOperands ops{DType::kInt8, reinterpret_cast<const uint8_t*>(a.data()),
                  reinterpret_cast<const uint8_t*>(b.data()),
                  reinterpret_cast<uint8_t*>(out.data()), a.size()};
  ops.src_dtype = DType::kFloat16;
  VecMulCast(ops);
  EXPECT_EQ(out, (std::vector<int8_t>{2, 4, 127, -128, 0, 0}));
  std::vector<uint8_t> uout(a.size(), 9);
  ops.dtype = DType::kUInt8;
  ops.dst = uout.data();
  VecMulCast(ops);
  EXPECT_EQ(uout, (std::vector<uint8_t>{2, 4, 200, 0, 0, 0}));
}

TEST(VectorOps, ReluCastsWrapInt16AndOverflowFloatToInf) {
  std::vector<int16_t> x{32767, -5, 300}, y{1, 2, -100};
  std::vector<int8_t> out(3, 9);
  VecOperands ops{DType::kInt8, reinterpret_cast<const uint8_t*>(x.data()),
                  reinterpret_cast<const uint8_t*>(y.data()),
                  reinterpret_cast<uint8_t*>(out.data()), 3};
  ops.src_dtype = DType::kInt16;
  VecAddReluCast(ops);  // 32767 + 1 wraps to -32768, relu 0; -3 -> 0; 200 -> 127
  EXPECT_EQ(out, (std::vector<int8_t>{0, 0, 127}));
  std::vector<float> f{70000.0f, -1.0f}, g{0.0f, 0.5f};
  std::vector<uint16_t> h(2, 9);
  VecOperands fo{DType::kFloat16, reinterpret_cast<const uint8_t*>(f.data()),
                 reinterpret_cast<const uint8_t*>(g.data()), reinterpret_cast<uint8_t*>(h.data()),
                 2};
  fo.src_dtype = DType::kFloat32;
  VecSubReluCast(fo);  // 70000 -> +inf in half; -1.5 -> 0
  EXPECT_EQ(h, (std::vector<uint16_t>{0x7c00, 0}));
}

// A quant word as set_deq_scale(scale, offset, sign_mode) builds it.
uint64_t QuantWord(float scale, int offset, bool sign) {
  return std::bit_cast<uint32_t>(scale) | (static_cast<uint64_t>(offset) & 0x1ffu) << 37 |
         static_cast<uint64_t>(sign) << 46;
}

TEST(VectorOps, DeqInt16RoundsTiesToEvenClampsTo9BitsAddsTheOffsetThenSaturates) {
  uint64_t w = QuantWord(0.5f, 0, true);
  EXPECT_EQ(DeqInt16ToInt8(5, w), 2);                         // 2.5 -> 2 (ties to even)
  EXPECT_EQ(DeqInt16ToInt8(7, w), 4);                         // 3.5 -> 4
  EXPECT_EQ(static_cast<int8_t>(DeqInt16ToInt8(-7, w)), -4);  // -3.5 -> -4
  EXPECT_EQ(DeqInt16ToInt8(1000, w), 127);                    // int8 saturation
  // Clamped to [-256, 255] before the offset: 32767 * 0.5 -> 255, + (-200) -> 55.
  EXPECT_EQ(DeqInt16ToInt8(32767, QuantWord(0.5f, -200, true)), 55);
  EXPECT_EQ(DeqInt16ToInt8(-3, QuantWord(1.0f, 0, false)), 0);  // uint8: negatives give 0
  EXPECT_EQ(DeqInt16ToInt8(300, QuantWord(1.0f, 0, false)), 255);
  // The scale keeps bits 31..13: 1 + 2^-20 acts as 1.
  EXPECT_EQ(DeqInt16ToInt8(100, QuantWord(1.0f + 0x1p-20f, 0, true)), 100);
}

TEST(VectorOps, DeqInt32ToHalfRoundsOnceAndSaturates) {
  uint64_t one = FloatToHalf(1.0f);
  EXPECT_EQ(DeqInt32ToHalf(2049, one), FloatToHalf(2048.0f));  // one rounding, ties to even
  EXPECT_EQ(DeqInt32ToHalf(2051, one), FloatToHalf(2052.0f));
  EXPECT_EQ(DeqInt32ToHalf(INT32_MAX, one), 0x7bffu);  // +65504
  EXPECT_EQ(DeqInt32ToHalf(INT32_MIN, one), 0xfbffu);  // -65504
  // A subnormal-range scale: 3 * 2^-14 is exact.
  EXPECT_EQ(DeqInt32ToHalf(3, FloatToHalf(0x1p-14f)), FloatToHalf(3 * 0x1p-14f));
}

TEST(VectorOps, AxpyMixedWidensHalfExactlyAndRoundsInFloat) {
  std::vector<uint16_t> x{FloatToHalf(0.1f), FloatToHalf(-3.0f)};
  std::vector<float> d{1.0f, 0.25f}, out(2);
  VecOperands ops{DType::kFloat32, reinterpret_cast<const uint8_t*>(x.data()), nullptr,
                  reinterpret_cast<uint8_t*>(out.data()), 2};
  ops.scalar_bits = std::bit_cast<uint32_t>(3.0f);
  ops.dst_in = reinterpret_cast<const uint8_t*>(d.data());
  ops.src_dtype = DType::kFloat16;
  VecAxpy(ops);
  EXPECT_EQ(out[0], HalfToFloat(FloatToHalf(0.1f)) * 3.0f + 1.0f);
  EXPECT_EQ(out[1], -8.75f);
}

}  // namespace
}  // namespace aicore::sim
