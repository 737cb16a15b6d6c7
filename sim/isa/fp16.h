// IEEE binary16 (half) and bfloat16 conversions, written out bit by bit so results are the same
// on every host and compiler (no _Float16): round-to-nearest-even, subnormals kept, overflow to
// infinity, NaNs stay quiet NaNs. Vector half arithmetic computes in float and rounds once here.
#pragma once

#include <bit>
#include <cstdint>

namespace aicore::sim {

// Exact: every half is a float. Table-driven (the hot path of every half vector op).
float HalfToFloat(uint16_t h);
// Round-to-nearest-even from float.
uint16_t FloatToHalf(float f);
// Round-to-nearest-even directly from double (one rounding; going through float would round
// twice).
uint16_t DoubleToHalf(double d);

inline float Bf16ToFloat(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}
uint16_t FloatToBf16(float f);
uint16_t DoubleToBf16(double d);

}  // namespace aicore::sim
