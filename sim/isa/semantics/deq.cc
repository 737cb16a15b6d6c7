// Dequantisation arithmetic (see deq.h). ascendc-semantics.md 5.3 publishes no exact arithmetic
// for CastDeq / AddDeqRelu: the model applies the fixpipe quant golden of 4.4 (product in wide
// precision, one rounding) to the vector unit's int16 and int32 inputs, which is its choice.
#include "sim/isa/semantics/deq.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "sim/isa/fp16.h"
#include "sim/isa/semantics/cast.h"
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

constexpr uint16_t kHalfMax = 0x7bff;  // 65504

// The word's scale: a float with its 13 low mantissa bits cleared (4.4).
long double WordScale(uint64_t word) {
  return std::bit_cast<float>(static_cast<uint32_t>(word) & 0xffffe000u);
}

// Bits 45..37 as a signed 9-bit offset (the golden's sign handling is unconfirmed; a signed
// offset is the model's choice, matching set_deq_scale's int offset).
int WordOffset(uint64_t word) {
  auto raw = static_cast<int>((word >> 37) & 0x1ffu);
  return raw >= 256 ? raw - 512 : raw;
}

bool WordSigned(uint64_t word) { return ((word >> 46) & 1u) != 0; }

long double Clamp(long double v, long double lo, long double hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace

uint64_t DeqInt32ToHalf(int32_t x, uint64_t word) {
  long double scale = HalfToFloat(static_cast<uint16_t>(word));
  // Exact: a 32-bit integer times an 11-bit significand fits a long double's 64 bits.
  long double v = static_cast<long double>(x) * scale;
  auto bits = static_cast<uint16_t>(RoundToFloatBits(v, DType::kFloat16, RoundMode::kRint));
  if ((bits & 0x7fffu) == 0x7c00u) bits = static_cast<uint16_t>((bits & 0x8000u) | kHalfMax);
  return bits;
}

uint8_t DeqInt16ToInt8(int16_t x, uint64_t word) {
  long double v = static_cast<long double>(x) * WordScale(word);
  if (std::isnan(v)) v = 0;  // a NaN scale: 0, as casts to integers make NaN
  long double r = Clamp(std::nearbyint(Clamp(v, -1e6L, 1e6L)), -256, 255) + WordOffset(word);
  r = WordSigned(word) ? Clamp(r, -128, 127) : Clamp(r, 0, 255);
  return static_cast<uint8_t>(static_cast<int>(r) & 0xff);
}

void VecCastDeq(const VecOperands& o) {
  if (o.src_dtype != DType::kInt16 || (o.dtype != DType::kInt8 && o.dtype != DType::kUInt8)) {
    semantics::UnsupportedDType("cast_deq", o.dtype);
  }
  for (uint64_t i = 0; i < o.count; ++i) {
    int16_t x = 0;
    std::memcpy(&x, o.src0 + i * sizeof(x), sizeof(x));
    uint64_t word = o.deq != nullptr ? o.deq[i % kDeqVectorWords] : o.scalar_bits;
    o.dst[i] = DeqInt16ToInt8(x, word);
  }
}

void VecAddDeqRelu(const VecOperands& o) {
  if (o.src_dtype != DType::kInt32 || o.dtype != DType::kFloat16) {
    semantics::UnsupportedDType("add_deq_relu", o.dtype);
  }
  for (uint64_t i = 0; i < o.count; ++i) {
    uint32_t a = 0, b = 0;
    std::memcpy(&a, o.src0 + i * 4, 4);
    std::memcpy(&b, o.src1 + i * 4, 4);
    auto sum = static_cast<int32_t>(a + b);  // wraps
    auto h = static_cast<uint16_t>(DeqInt32ToHalf(sum, o.scalar_bits));
    // max(., 0): negatives and -0 give +0; NaN stays NaN.
    bool nan = (h & 0x7fffu) > 0x7c00u;
    if (!nan && (h & 0x8000u) != 0) h = 0;
    std::memcpy(o.dst + i * 2, &h, 2);
  }
}

}  // namespace aicore::sim
