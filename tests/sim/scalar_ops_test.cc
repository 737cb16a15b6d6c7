// Scalar unit semantics: wraparound at the dtype width, C-style truncating DIV/MOD (negative
// operands included), comparisons to BOOL, shifts, casts (float->int truncates, saturates), and
// float32 arithmetic done in float.
#include "sim/isa/scalar_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace aicore::sim {
namespace {

int64_t Bin(ScalarBinaryKind k, DType t, int64_t a, int64_t b) {
  ScalarValue r;
  EXPECT_EQ(EvalScalarBinary(k, t, WrapInteger(a, t), WrapInteger(b, t), &r), ScalarFault::kNone);
  return r.i;
}

TEST(ScalarOps, DivAndModTruncateTowardZero) {
  using K = ScalarBinaryKind;
  EXPECT_EQ(Bin(K::kDiv, DType::kInt32, -7, 2), -3);
  EXPECT_EQ(Bin(K::kMod, DType::kInt32, -7, 2), -1);
  EXPECT_EQ(Bin(K::kDiv, DType::kInt32, 7, -2), -3);
  EXPECT_EQ(Bin(K::kMod, DType::kInt32, 7, -2), 1);
  EXPECT_EQ(Bin(K::kDiv, DType::kInt64, -8, -3), 2);
  EXPECT_EQ(Bin(K::kMod, DType::kInt64, -8, -3), -2);
  // INT_MIN / -1 wraps instead of trapping.
  EXPECT_EQ(Bin(K::kDiv, DType::kInt32, std::numeric_limits<int32_t>::min(), -1),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Bin(K::kDiv, DType::kInt64, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Bin(K::kMod, DType::kInt64, std::numeric_limits<int64_t>::min(), -1), 0);
  // Unsigned division uses the unsigned value.
  ScalarValue r;
  ScalarValue big;
  big.u = 0xfffffffffffffff0ull;
  ASSERT_EQ(EvalScalarBinary(K::kDiv, DType::kUInt64, big, WrapInteger(16, DType::kUInt64), &r),
            ScalarFault::kNone);
  EXPECT_EQ(r.u, 0x0fffffffffffffffull);
}

TEST(ScalarOps, DivisionByZeroIsReported) {
  ScalarValue r;
  EXPECT_EQ(EvalScalarBinary(ScalarBinaryKind::kMod, DType::kInt32, IntValue(1), IntValue(0), &r),
            ScalarFault::kDivisionByZero);
  // Float division by zero is IEEE, not a fault.
  EXPECT_EQ(
      EvalScalarBinary(ScalarBinaryKind::kDiv, DType::kFloat32, FloatValue(1), FloatValue(0), &r),
      ScalarFault::kNone);
  EXPECT_TRUE(std::isinf(r.f));
}

TEST(ScalarOps, IntegersWrapAtTheirWidth) {
  using K = ScalarBinaryKind;
  EXPECT_EQ(Bin(K::kAdd, DType::kInt32, std::numeric_limits<int32_t>::max(), 1),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Bin(K::kAdd, DType::kInt16, 32767, 1), -32768);
  EXPECT_EQ(Bin(K::kSub, DType::kUInt8, 0, 1), 255);
  EXPECT_EQ(Bin(K::kMul, DType::kInt8, 16, 16), 0);
  EXPECT_EQ(Bin(K::kMul, DType::kUInt16, 300, 300), (300 * 300) & 0xffff);
  EXPECT_EQ(WrapInteger(0x1ffffffffull, DType::kUInt32).i, 0xffffffffll);
  EXPECT_EQ(WrapInteger(0x80, DType::kInt8).i, -128);
}

TEST(ScalarOps, ShiftsAndBitwise) {
  using K = ScalarBinaryKind;
  EXPECT_EQ(Bin(K::kShr, DType::kInt32, -16, 2), -4);  // arithmetic for signed
  EXPECT_EQ(Bin(K::kShr, DType::kUInt32, 0xfffffff0ll, 4), 0x0fffffffll);
  EXPECT_EQ(Bin(K::kShl, DType::kInt32, 1, 31), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Bin(K::kShl, DType::kInt32, 1, 32), 0);    // shifted out
  EXPECT_EQ(Bin(K::kShr, DType::kInt16, -1, 40), -1);  // sign fill
  EXPECT_EQ(Bin(K::kXor, DType::kInt32, 0x0f, 0xff), 0xf0);
}

TEST(ScalarOps, ComparisonsProduceBool) {
  using K = ScalarBinaryKind;
  EXPECT_EQ(Bin(K::kLt, DType::kInt32, -1, 0), 1);
  // The same bits compare differently as unsigned.
  EXPECT_EQ(Bin(K::kLt, DType::kUInt32, 0xffffffffll, 0), 0);
  ScalarValue r;
  double nan = std::numeric_limits<double>::quiet_NaN();
  EvalScalarBinary(K::kEq, DType::kFloat32, FloatValue(nan), FloatValue(nan), &r);
  EXPECT_EQ(r.i, 0);
  EvalScalarBinary(K::kNe, DType::kFloat32, FloatValue(nan), FloatValue(nan), &r);
  EXPECT_EQ(r.i, 1);
  EvalScalarBinary(K::kLogicalAnd, DType::kInt32, IntValue(5), IntValue(0), &r);
  EXPECT_EQ(r.i, 0);
}

TEST(ScalarOps, Float32ArithmeticIsDoneInFloat) {
  ScalarValue r;
  // 1 + 2^-30 is exact in double but rounds to 1 in float.
  EvalScalarBinary(ScalarBinaryKind::kAdd, DType::kFloat32, FloatValue(1.0),
                   FloatValue(std::ldexp(1.0, -30)), &r);
  EXPECT_EQ(r.f, 1.0);
  EvalScalarBinary(ScalarBinaryKind::kAdd, DType::kFloat64, FloatValue(1.0),
                   FloatValue(std::ldexp(1.0, -30)), &r);
  EXPECT_EQ(r.f, 1.0 + std::ldexp(1.0, -30));
  // Half arithmetic rounds to half: 2048 + 1 is not representable.
  EvalScalarBinary(ScalarBinaryKind::kAdd, DType::kFloat16, FloatValue(2048), FloatValue(1), &r);
  EXPECT_EQ(r.f, 2048.0);
}

TEST(ScalarOps, Casts) {
  EXPECT_EQ(CastScalar(FloatValue(-2.7), DType::kFloat32, DType::kInt32).i, -2);  // truncates
  EXPECT_EQ(CastScalar(FloatValue(2.7), DType::kFloat32, DType::kInt32).i, 2);
  EXPECT_EQ(CastScalar(FloatValue(1e20), DType::kFloat32, DType::kInt32).i,
            std::numeric_limits<int32_t>::max());  // saturates
  EXPECT_EQ(CastScalar(FloatValue(-5), DType::kFloat32, DType::kUInt8).i, 0);
  EXPECT_EQ(CastScalar(FloatValue(std::nan("")), DType::kFloat32, DType::kInt32).i, 0);
  EXPECT_EQ(CastScalar(IntValue(-1), DType::kInt32, DType::kUInt16).i, 0xffff);  // wraps
  EXPECT_EQ(CastScalar(IntValue(70000), DType::kInt32, DType::kInt16).i, 70000 - 65536);
  EXPECT_EQ(CastScalar(IntValue(16777217), DType::kInt32, DType::kFloat32).f, 16777216.0);
  EXPECT_EQ(CastScalar(IntValue(2049), DType::kInt32, DType::kFloat16).f, 2048.0);
  EXPECT_EQ(CastScalar(IntValue(3), DType::kInt32, DType::kBool).i, 1);
  EXPECT_EQ(AsInt64(CastScalar(IntValue(-1), DType::kInt64, DType::kUInt64), DType::kUInt64),
            std::numeric_limits<int64_t>::max());
}

TEST(ScalarOps, ElementBitsForVectorScalars) {
  EXPECT_EQ(ToElementBits(FloatValue(1.0), DType::kFloat32, DType::kFloat16), 0x3c00u);
  EXPECT_EQ(ToElementBits(FloatValue(2.9), DType::kFloat32, DType::kInt16), 2u);
  EXPECT_EQ(ToElementBits(IntValue(-1), DType::kInt32, DType::kInt16), 0xffffu);
  EXPECT_EQ(ToElementBits(IntValue(3), DType::kInt32, DType::kFloat32), 0x40400000u);
}

// The inline path the scalar unit takes agrees with the reference for every kind and type,
// on values around each width's edges (wrap, sign, unsigned order, NaN, bool).
TEST(ScalarOps, InlinePathMatchesTheReference) {
  const ScalarBinaryKind kinds[] = {
      ScalarBinaryKind::kAdd,        ScalarBinaryKind::kSub,      ScalarBinaryKind::kMul,
      ScalarBinaryKind::kDiv,        ScalarBinaryKind::kMod,      ScalarBinaryKind::kMin,
      ScalarBinaryKind::kMax,        ScalarBinaryKind::kAnd,      ScalarBinaryKind::kOr,
      ScalarBinaryKind::kXor,        ScalarBinaryKind::kShl,      ScalarBinaryKind::kShr,
      ScalarBinaryKind::kEq,         ScalarBinaryKind::kNe,       ScalarBinaryKind::kLt,
      ScalarBinaryKind::kLe,         ScalarBinaryKind::kGt,       ScalarBinaryKind::kGe,
      ScalarBinaryKind::kLogicalAnd, ScalarBinaryKind::kLogicalOr};
  const int64_t ints[] = {0,
                          1,
                          -1,
                          2,
                          127,
                          -128,
                          255,
                          32767,
                          -32768,
                          65535,
                          std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int64_t>::max(),
                          std::numeric_limits<int64_t>::min()};
  const double floats[] = {0.0, -0.0, 1.5, -2.25, 65504.0, std::nan("")};
  int compared = 0;
  for (int d = 1; d < kNumDTypes; ++d) {
    auto t = static_cast<DType>(d);
    std::vector<ScalarValue> values;
    if (IsFloat(t)) {
      for (double f : floats) values.push_back(RoundFloat(f, t));
    } else {
      for (int64_t i : ints) values.push_back(WrapInteger(static_cast<uint64_t>(i), t));
    }
    for (ScalarBinaryKind k : kinds) {
      for (ScalarValue a : values) {
        for (ScalarValue b : values) {
          ScalarValue want{}, got{};
          ScalarFault fw = EvalScalarBinary(k, t, a, b, &want);
          ScalarFault fg = EvalScalarBinaryInline(k, t, a, b, &got);
          ASSERT_EQ(fg, fw) << static_cast<int>(k) << " " << DTypeName(t);
          if (fw == ScalarFault::kNone) {
            ASSERT_EQ(got.u, want.u) << static_cast<int>(k) << " " << DTypeName(t);
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 20000);
}

// The unary inline path (integer casts) agrees with the reference for every pair of types.
TEST(ScalarOps, InlineUnaryPathMatchesTheReference) {
  const int64_t ints[] = {0,
                          1,
                          -1,
                          127,
                          -129,
                          255,
                          65536,
                          -32769,
                          std::numeric_limits<int64_t>::max(),
                          std::numeric_limits<int64_t>::min()};
  const ScalarUnaryKind kinds[] = {ScalarUnaryKind::kCast, ScalarUnaryKind::kNeg,
                                   ScalarUnaryKind::kBitNot, ScalarUnaryKind::kLogicalNot};
  int compared = 0;
  for (int from = 1; from < kNumDTypes; ++from) {
    for (int to = 1; to < kNumDTypes; ++to) {
      auto f = static_cast<DType>(from), t = static_cast<DType>(to);
      for (ScalarUnaryKind k : kinds) {
        for (int64_t i : ints) {
          ScalarValue v = IsFloat(f) ? RoundFloat(static_cast<double>(i), f)
                                     : WrapInteger(static_cast<uint64_t>(i), f);
          ASSERT_EQ(EvalScalarUnaryInline(k, t, f, v).u, EvalScalarUnary(k, t, f, v).u)
              << DTypeName(f) << " -> " << DTypeName(t) << " kind " << static_cast<int>(k);
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 5000);
}

}  // namespace
}  // namespace aicore::sim
