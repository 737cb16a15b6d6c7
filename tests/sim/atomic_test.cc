// Atomic store combining (ascendc-semantics.md 5.12): one rounding per element for fp16 and
// bf16 sums, float sums in float, integer wraparound, NaN-propagating max/min, the AtomicDtype
// mapping, and bf16 copies through the copy row (pyasc has no bfloat16).
#include "sim/isa/semantics/atomic.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {
namespace {

template <typename T>
std::vector<T> Combine(AtomicOp op, DType t, std::vector<T> gm, const std::vector<T>& data) {
  AtomicCombine(op, t, reinterpret_cast<uint8_t*>(gm.data()),
                reinterpret_cast<const uint8_t*>(data.data()), gm.size() * sizeof(T));
  return gm;
}

TEST(Atomic, HalfSumsRoundOncePerElement) {
  // 2048 + 1 is a tie in half (spacing 2 above 2048): nearest even keeps 2048; 2048 + 3 -> 2052.
  std::vector<uint16_t> gm{FloatToHalf(2048.0f), FloatToHalf(2048.0f), FloatToHalf(65504.0f)};
  std::vector<uint16_t> add{FloatToHalf(1.0f), FloatToHalf(3.0f), FloatToHalf(65504.0f)};
  auto out = Combine(AtomicOp::kSum, DType::kFloat16, gm, add);
  EXPECT_EQ(HalfToFloat(out[0]), 2048.0f);
  EXPECT_EQ(HalfToFloat(out[1]), 2052.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(out[2])));  // overflow to inf
}

TEST(Atomic, Bf16SumsRoundOnce) {
  // bf16 has 8 significand bits: 256 + 1 is a tie (keeps 256), 256 + 3 rounds to 260.
  std::vector<uint16_t> gm{FloatToBf16(256.0f), FloatToBf16(256.0f)};
  std::vector<uint16_t> add{FloatToBf16(1.0f), FloatToBf16(3.0f)};
  auto out = Combine(AtomicOp::kSum, DType::kBFloat16, gm, add);
  EXPECT_EQ(Bf16ToFloat(out[0]), 256.0f);
  EXPECT_EQ(Bf16ToFloat(out[1]), 260.0f);
}

TEST(Atomic, FloatSumsAreFloatAdditions) {
  auto out = Combine<float>(AtomicOp::kSum, DType::kFloat32, {1.0f, 0.1f}, {1e-8f, 0.2f});
  EXPECT_EQ(out[0], 1.0f + 1e-8f);
  EXPECT_EQ(out[1], 0.1f + 0.2f);
}

TEST(Atomic, IntegersWrapAndMaxMinAreExact) {
  EXPECT_EQ(Combine<int8_t>(AtomicOp::kSum, DType::kInt8, {127, -128}, {1, -1}),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Combine<int16_t>(AtomicOp::kMax, DType::kInt16, {-5, 7}, {3, 2}),
            (std::vector<int16_t>{3, 7}));
  EXPECT_EQ(Combine<int32_t>(AtomicOp::kMin, DType::kInt32, {-5, 7}, {3, 2}),
            (std::vector<int32_t>{-5, 2}));
  auto nan = Combine<float>(AtomicOp::kMax, DType::kFloat32, {1.0f, NAN}, {NAN, 2.0f});
  EXPECT_TRUE(std::isnan(nan[0]) && std::isnan(nan[1]));
}

TEST(Atomic, TrailingBytesOfAPartialElementAreStored) {
  std::vector<uint8_t> gm{1, 0, 0, 0, 9, 9}, data{2, 0, 0, 0, 5, 6};
  AtomicCombine(AtomicOp::kSum, DType::kInt32, gm.data(), data.data(), gm.size());
  EXPECT_EQ(gm, (std::vector<uint8_t>{3, 0, 0, 0, 5, 6}));
}

TEST(Atomic, AtomicDtypeValuesMapBothWays) {
  const DType types[] = {DType::kFloat32, DType::kFloat16, DType::kInt16,
                         DType::kInt32,   DType::kInt8,    DType::kBFloat16};
  EXPECT_EQ(AtomicDtypeToDType(0), DType::kInvalid);
  EXPECT_EQ(AtomicDtypeToDType(7), DType::kInvalid);
  for (int i = 1; i <= 6; ++i) {
    EXPECT_EQ(AtomicDtypeToDType(i), types[i - 1]);
    EXPECT_EQ(AtomicDtypeOf(types[i - 1]), i);
  }
  EXPECT_EQ(AtomicDtypeOf(DType::kUInt16), 0);
  uint8_t two[2] = {0, 0};
  EXPECT_THROW(AtomicCombine(AtomicOp::kSum, DType::kUInt16, two, two, 2), InvariantViolation);
}

TEST(Atomic, CopyMovesBf16Bits) {
  std::vector<uint16_t> src{0x7FC1, 0x3F80, 0x8000}, dst(3);
  Info(Opcode::kVecCopy)
      .semantics(VecOperands{DType::kBFloat16, reinterpret_cast<const uint8_t*>(src.data()),
                             nullptr, reinterpret_cast<uint8_t*>(dst.data()), 3});
  EXPECT_EQ(dst, src);  // a NaN payload and -0 survive
}

}  // namespace
}  // namespace aicore::sim
