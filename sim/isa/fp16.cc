// Bit-level half/bfloat16 rounding (see fp16.h). The float->half path is specialised because
// vector ops call it per element; the double paths share one generic routine.
#include "sim/isa/fp16.h"

#include <array>

namespace aicore::sim {
namespace {

uint32_t HalfToFloatBits(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return sign;
    // Subnormal half: renormalise into a float, which represents it exactly.
    uint32_t e = 113;  // float exponent of 2^-14
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --e;
    }
    return sign | (e << 23) | ((mant & 0x3ffu) << 13);
  }
  if (exp == 31) return sign | 0x7f800000u | (mant << 13);  // inf, NaN keeps its payload
  return sign | ((exp + 112) << 23) | (mant << 13);
}

const std::array<float, 65536>& HalfTable() {
  static const std::array<float, 65536> table = [] {
    std::array<float, 65536> t{};
    for (uint32_t i = 0; i < 65536; ++i) {
      t[i] = std::bit_cast<float>(HalfToFloatBits(static_cast<uint16_t>(i)));
    }
    return t;
  }();
  return table;
}

// Rounds a double to a binary format with `kExpBits` exponent and `kMantBits` mantissa bits.
template <int kExpBits, int kMantBits>
uint32_t DoubleToSmallFloat(double d) {
  constexpr int kBias = (1 << (kExpBits - 1)) - 1;
  constexpr int kMinNormalExp = 1 - kBias;
  constexpr uint32_t kInf = ((1u << kExpBits) - 1) << kMantBits;
  constexpr int kShift = 52 - kMantBits;

  uint64_t x = std::bit_cast<uint64_t>(d);
  uint32_t sign = static_cast<uint32_t>(x >> 63) << (kExpBits + kMantBits);
  uint64_t abs = x & 0x7fffffffffffffffull;
  if (abs >= 0x7ff0000000000000ull) {
    if (abs == 0x7ff0000000000000ull) return sign | kInf;
    uint32_t payload = static_cast<uint32_t>(abs >> kShift) & ((1u << kMantBits) - 1);
    return sign | kInf | (1u << (kMantBits - 1)) | payload;  // quiet NaN
  }
  uint64_t exp_field = abs >> 52;
  if (exp_field == 0) return sign;  // double subnormals are far below any target subnormal
  int e = static_cast<int>(exp_field) - 1023;
  if (e >= kMinNormalExp) {
    uint64_t r = abs - (static_cast<uint64_t>(1023 - kBias) << 52);
    uint64_t lsb = (r >> kShift) & 1u;
    r += (1ull << (kShift - 1)) - 1 + lsb;
    r >>= kShift;
    if (r >= kInf) return sign | kInf;
    return sign | static_cast<uint32_t>(r);
  }
  // Target subnormal: count units of 2^(kMinNormalExp - kMantBits).
  int shift = kMinNormalExp - kMantBits - e + 52;
  if (shift > 63) return sign;
  uint64_t m = (abs & 0xfffffffffffffull) | (1ull << 52);
  uint64_t q = m >> shift;
  uint64_t rem = m & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return sign | static_cast<uint32_t>(q);  // q == 1 << kMantBits is the smallest normal: correct
}

}  // namespace

float HalfToFloat(uint16_t h) { return HalfTable()[h]; }

uint16_t FloatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {
    if (abs == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // quiet NaN
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (abs >= 0x38800000u) {  // normal half: rebias the exponent, round 13 bits away
    uint32_t r = abs - 0x38000000u;
    r += 0xfffu + ((r >> 13) & 1u);
    return static_cast<uint16_t>(sign | (r >> 13));
  }
  if (abs <= 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25: ties to even zero
  uint32_t e = abs >> 23;
  uint32_t m = (abs & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - e;  // 14..24: units of 2^-24
  uint32_t q = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

uint16_t DoubleToHalf(double d) { return static_cast<uint16_t>(DoubleToSmallFloat<5, 10>(d)); }

uint16_t FloatToBf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

uint16_t DoubleToBf16(double d) { return static_cast<uint16_t>(DoubleToSmallFloat<8, 7>(d)); }

}  // namespace aicore::sim
