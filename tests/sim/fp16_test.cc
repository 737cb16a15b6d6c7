// Half and bfloat16 conversions: exactness, round-to-nearest-even ties, subnormals, overflow,
// inf and NaN, and agreement between the float and double rounding paths.
#include "sim/isa/fp16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace aicore::sim {
namespace {

bool IsNanHalf(uint16_t h) { return (h & 0x7fff) > 0x7c00; }

TEST(Fp16, EveryHalfRoundTripsThroughFloatAndDouble) {
  for (uint32_t i = 0; i < 65536; ++i) {
    auto h = static_cast<uint16_t>(i);
    float f = HalfToFloat(h);
    if (IsNanHalf(h)) {
      EXPECT_TRUE(std::isnan(f));
      EXPECT_TRUE(IsNanHalf(FloatToHalf(f)));
      continue;
    }
    ASSERT_EQ(FloatToHalf(f), h) << i;
    ASSERT_EQ(DoubleToHalf(f), h) << i;
  }
}

TEST(Fp16, EveryHalfConvertsToTheExactFloatBitForBit) {
  for (uint32_t i = 0; i < 65536; ++i) {
    const uint32_t sign = (i & 0x8000u) << 16, exp = (i >> 10) & 0x1fu, mant = i & 0x3ffu;
    uint32_t want;
    if (exp == 31) {
      want = sign | 0x7f800000u | (mant << 13);  // infinity, or a NaN keeping its payload
    } else {
      double value = exp == 0 ? std::ldexp(mant, -24) : std::ldexp(1024 + mant, exp - 25);
      want = sign | std::bit_cast<uint32_t>(static_cast<float>(value));
    }
    ASSERT_EQ(std::bit_cast<uint32_t>(HalfToFloat(static_cast<uint16_t>(i))), want) << i;
  }
}

TEST(Fp16, KnownValues) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_FLOAT_EQ(HalfToFloat(0x3555), 0.333251953125f);
}

TEST(Fp16, TiesRoundToEven) {
  // Between 1 and 1 + 2^-10 the midpoint 1 + 2^-11 rounds down to the even 1.0 ...
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // ... and between 1 + 2^-10 (odd) and 1 + 2^-9 the midpoint rounds up to the even one.
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above a midpoint rounds up.
  EXPECT_EQ(FloatToHalf(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01);
  EXPECT_EQ(DoubleToHalf(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  EXPECT_EQ(DoubleToHalf(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  // A double just above the midpoint that float cannot see: rounding through float would
  // give the even value, the direct path correctly rounds up.
  double above = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(DoubleToHalf(above), 0x3c01);
  EXPECT_EQ(FloatToHalf(static_cast<float>(above)), 0x3c00);
}

TEST(Fp16, OverflowToInfinity) {
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // the midpoint to 2^16 rounds to even = inf
  EXPECT_EQ(FloatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(DoubleToHalf(65520.0), 0x7c00);
  EXPECT_EQ(DoubleToHalf(65519.999), 0x7bff);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isinf(HalfToFloat(0xfc00)) && HalfToFloat(0xfc00) < 0);
}

TEST(Fp16, Subnormals) {
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);     // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);     // half of it: tie to even zero
  EXPECT_EQ(FloatToHalf(std::ldexp(1.5f, -25)), 0x0001);     // above the tie
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -25)), 0x0002);     // 1.5 ulp: tie to even 2
  EXPECT_EQ(FloatToHalf(std::ldexp(1023.0f, -24)), 0x03ff);  // largest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1023.5f, -24)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(FloatToHalf(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(HalfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -25) * 1.0000001), 0x0001);
  EXPECT_EQ(DoubleToHalf(1e-300), 0x0000);
}

TEST(Fp16, NanStaysQuietNan) {
  float qnan = std::numeric_limits<float>::quiet_NaN();
  float snan = std::bit_cast<float>(0x7f800001u);
  EXPECT_TRUE(IsNanHalf(FloatToHalf(qnan)));
  EXPECT_TRUE(IsNanHalf(FloatToHalf(snan)));  // payload below half precision must not become inf
  EXPECT_NE(FloatToHalf(snan) & 0x0200, 0);   // quiet bit set
  EXPECT_TRUE(IsNanHalf(DoubleToHalf(std::numeric_limits<double>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
}

TEST(Fp16, FloatAndDoublePathsAgreeOnRandomFloats) {
  std::mt19937 rng(1);
  for (int i = 0; i < 200000; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), DoubleToHalf(f)) << std::hex << std::bit_cast<uint32_t>(f);
  }
}

// The bulk forms take the host's F16C path where it exists: they must equal the element forms
// bit for bit, signalling NaNs included, at every length (the vector body and the scalar tail).
TEST(Fp16, BulkHalfToFloatEqualsTheElementFormForEveryHalf) {
  std::vector<uint16_t> halves(65536);
  for (uint32_t i = 0; i < 65536; ++i) halves[i] = static_cast<uint16_t>(i);
  for (uint64_t start : {0, 3}) {  // an unaligned start puts other halves in the tail
    std::vector<float> floats(65536 - start);
    HalvesToFloats(halves.data() + start, floats.data(), floats.size());
    for (uint64_t i = 0; i < floats.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(floats[i]),
                std::bit_cast<uint32_t>(HalfToFloat(halves[start + i])))
          << std::hex << halves[start + i];
  }
}

TEST(Fp16, BulkFloatToHalfEqualsTheElementForm) {
  // Every sign, exponent and top-ten mantissa bits, with the thirteen bits that rounding reads
  // at their edges (zero, just below/at/above the midpoint, all ones) and at random.
  const uint32_t low_bits[] = {0, 1, 0x7ff, 0xfff, 0x1000, 0x1001, 0x17ff, 0x1fff};
  std::mt19937 rng(3);
  std::vector<float> floats;
  for (uint32_t high = 0; high < (1u << 19); ++high) {
    for (uint32_t low : low_bits) floats.push_back(std::bit_cast<float>(high << 13 | low));
    floats.push_back(std::bit_cast<float>(high << 13 | static_cast<uint32_t>(rng() & 0x1fffu)));
  }
  std::vector<uint16_t> halves(floats.size());
  FloatsToHalves(floats.data(), halves.data(), floats.size());
  for (uint64_t i = 0; i < floats.size(); ++i)
    ASSERT_EQ(halves[i], FloatToHalf(floats[i])) << std::hex << std::bit_cast<uint32_t>(floats[i]);
  for (uint64_t n = 0; n < 20; ++n) {  // short lengths: all tail, or one vector and a tail
    std::vector<uint16_t> few(n);
    FloatsToHalves(floats.data() + 12345, few.data(), n);
    for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(few[i], FloatToHalf(floats[12345 + i]));
  }
}

TEST(Bf16, RoundingAndSpecials) {
  EXPECT_EQ(FloatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(Bf16ToFloat(0x3f80), 1.0f);
  // 1 + 2^-8 is the midpoint between 1 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(FloatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(FloatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(DoubleToBf16(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(FloatToBf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to inf
  std::mt19937 rng(2);
  for (int i = 0; i < 100000; ++i) {
    float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBf16(f), DoubleToBf16(f));
  }
}

}  // namespace
}  // namespace aicore::sim
