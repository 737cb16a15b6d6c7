// Vector element semantics over raw bytes: half computed in float and rounded once, integer
// wraparound, NaN-propagating max/min, relu/abs on special values, scalar forms.
#include "sim/isa/vector_ops.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "sim/isa/fp16.h"

namespace aicore::sim {
namespace {

template <typename T>
std::vector<T> Binary(Opcode op, DType t, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> out(a.size());
  VecBinary(op, t, reinterpret_cast<const uint8_t*>(a.data()),
            reinterpret_cast<const uint8_t*>(b.data()), reinterpret_cast<uint8_t*>(out.data()),
            a.size());
  return out;
}

template <typename T>
std::vector<T> Unary(Opcode op, DType t, const std::vector<T>& a) {
  std::vector<T> out(a.size());
  VecUnary(op, t, reinterpret_cast<const uint8_t*>(a.data()),
           reinterpret_cast<uint8_t*>(out.data()), a.size());
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

TEST(VectorOps, ScalarForms) {
  std::vector<float> x{1.0f, -1.0f};
  std::vector<float> out(2);
  VecScalar(Opcode::kVecMaxs, DType::kFloat32, reinterpret_cast<const uint8_t*>(x.data()),
            std::bit_cast<uint32_t>(0.5f), reinterpret_cast<uint8_t*>(out.data()), 2);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[1], 0.5f);
  std::vector<int16_t> i{32767}, o(1);
  VecScalar(Opcode::kVecAdds, DType::kInt16, reinterpret_cast<const uint8_t*>(i.data()), 1,
            reinterpret_cast<uint8_t*>(o.data()), 1);
  EXPECT_EQ(o[0], -32768);
}

TEST(VectorOps, SupportTable) {
  EXPECT_TRUE(VectorOpSupports(Opcode::kVecAdd, DType::kInt16));
  EXPECT_FALSE(VectorOpSupports(Opcode::kVecDiv, DType::kInt32));
  EXPECT_FALSE(VectorOpSupports(Opcode::kVecExp, DType::kInt16));
  EXPECT_FALSE(VectorOpSupports(Opcode::kVecAdd, DType::kBFloat16));
  EXPECT_FALSE(VectorOpSupports(Opcode::kDataCopy, DType::kFloat16));
}

}  // namespace
}  // namespace aicore::sim
