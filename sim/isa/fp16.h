// IEEE binary16 (half) and bfloat16 conversions, written out bit by bit so results are the same
// on every host and compiler (no _Float16): round-to-nearest-even, subnormals kept, overflow to
// infinity, NaNs stay quiet NaNs. Vector half arithmetic computes in float and rounds once here.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

namespace aicore::sim {

namespace fp16_detail {
// Every half's float bits, computed at compile time (fp16.cc): no initialisation guard per
// lookup, and ready before any static initialiser runs.
extern const std::array<uint32_t, 65536> kHalfToFloatBits;
}  // namespace fp16_detail

// Exact: every half is a float. An inline table lookup: the hot path of every half vector op.
inline float HalfToFloat(uint16_t h) {
  return std::bit_cast<float>(fp16_detail::kHalfToFloatBits[h]);
}

// Round-to-nearest-even from float. Inline, so element loops can keep it in registers.
inline uint16_t FloatToHalf(float f) {
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
// Bulk forms of the two conversions above for element loops, bit-identical to them on every
// input (tests/sim/fp16_test.cc checks every half and a dense sample of floats): the host's F16C
// instructions when it has them, the scalar forms otherwise. src and dst must not overlap.
void HalvesToFloats(const uint16_t* src, float* dst, uint64_t n);
void FloatsToHalves(const float* src, uint16_t* dst, uint64_t n);

// Round-to-nearest-even directly from double (one rounding; going through float would round
// twice).
uint16_t DoubleToHalf(double d);

inline float Bf16ToFloat(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}
uint16_t FloatToBf16(float f);
uint16_t DoubleToBf16(double d);

}  // namespace aicore::sim
