// Element type conversion (see cast.h). Values are carried exactly in long double (64-bit
// significand: every int64, float and half is exact), rounded once to the destination.
#include "sim/isa/semantics/cast.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "sim/isa/fp16.h"
#include "sim/isa/semantics/deq.h"
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

constexpr RoundModeSet kN = RoundModeBit(RoundMode::kNone);
constexpr RoundModeSet kDirected =
    RoundModeBit(RoundMode::kRint) | RoundModeBit(RoundMode::kFloor) |
    RoundModeBit(RoundMode::kCeil) | RoundModeBit(RoundMode::kRound) |
    RoundModeBit(RoundMode::kTrunc);
constexpr RoundModeSet kOddMode = RoundModeBit(RoundMode::kOdd);

struct CastRule {
  DType src, dst;
  RoundModeSet modes;
};

// ascendc-semantics.md 5.2, the A2 table (int4 has no element type here; int32 -> half goes
// through SetDeqScale, cast_deq).
constexpr CastRule kCastRules[] = {
    {DType::kInt8, DType::kFloat16, kN},
    {DType::kUInt8, DType::kFloat16, kN},
    {DType::kInt16, DType::kFloat16, kDirected | kN},
    {DType::kInt16, DType::kFloat32, kN},
    {DType::kFloat16, DType::kInt8, kDirected | kN},
    {DType::kFloat16, DType::kUInt8, kDirected | kN},
    {DType::kFloat16, DType::kInt16, kDirected},
    {DType::kFloat16, DType::kInt32, kDirected},
    {DType::kFloat16, DType::kFloat32, kN},
    {DType::kBFloat16, DType::kInt32, kDirected},
    {DType::kBFloat16, DType::kFloat32, kN},
    {DType::kInt32, DType::kInt16, kN},
    {DType::kInt32, DType::kFloat32, kDirected | kN},
    {DType::kInt32, DType::kFloat16, kDirected | kOddMode | kN},  // the mode is ignored (DEQSCALE)
    {DType::kInt32, DType::kInt64, kN},
    {DType::kFloat32, DType::kInt16, kDirected},
    {DType::kFloat32, DType::kInt32, kDirected},
    {DType::kFloat32, DType::kInt64, kDirected},
    {DType::kFloat32, DType::kBFloat16, kDirected},
    {DType::kFloat32, DType::kFloat16, kDirected | kOddMode | kN},
    {DType::kFloat32, DType::kFloat32, kDirected},
    {DType::kInt64, DType::kInt32, kN},
    {DType::kInt64, DType::kFloat32, kDirected},
};

constexpr std::string_view kModeNames[kNumRoundModes] = {
    "CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};

// A floating-point format: significand bits (with the hidden one), exponent range of normals.
struct FloatFormat {
  int precision;
  int min_exponent;  // of the smallest normal: 2^min_exponent
  int max_exponent;  // of the largest finite: < 2^(max_exponent + 1)
};
constexpr FloatFormat kHalf{11, -14, 15};
constexpr FloatFormat kBf16{8, -126, 127};
constexpr FloatFormat kSingle{24, -126, 127};

long double ToValue(uint64_t bits, DType t) {
  switch (t) {
    case DType::kFloat16:
      return HalfToFloat(static_cast<uint16_t>(bits));
    case DType::kBFloat16:
      return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
    case DType::kFloat32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case DType::kInt8:
      return static_cast<int8_t>(bits);
    case DType::kUInt8:
      return static_cast<uint8_t>(bits);
    case DType::kInt16:
      return static_cast<int16_t>(bits);
    case DType::kInt32:
      return static_cast<int32_t>(bits);
    case DType::kInt64:
      return static_cast<int64_t>(bits);
    default:
      InvariantFailed("cast source", "no value for " + std::string(DTypeName(t)));
  }
}

// `v` rounded to an integer value in `mode` (kOdd only reaches float formats).
long double RoundToInteger(long double v, RoundMode mode) {
  switch (mode) {
    case RoundMode::kNone:
    case RoundMode::kRint:
      return std::nearbyint(v);  // the default environment: nearest, ties to even
    case RoundMode::kFloor:
      return std::floor(v);
    case RoundMode::kCeil:
      return std::ceil(v);
    case RoundMode::kRound:
      return std::round(v);
    case RoundMode::kTrunc:
      return std::trunc(v);
    case RoundMode::kOdd: {
      long double t = std::trunc(v);
      if (t != v && std::fmod(t, 2.0L) == 0.0L) t += std::signbit(v) ? -1.0L : 1.0L;
      return t;
    }
  }
  return v;
}

// The largest finite value of `f`.
long double MaxFinite(const FloatFormat& f) {
  return std::ldexp(2.0L - std::ldexp(1.0L, 1 - f.precision), f.max_exponent);
}

// A finite `v` rounded once to format `f` in `mode`; overflow as IEEE's directed roundings give
// it (nearest: inf; toward zero and odd: the largest finite).
long double RoundToFormat(long double v, const FloatFormat& f, RoundMode mode) {
  if (v == 0) return v;
  int e = std::ilogb(v);
  if (e < f.min_exponent) e = f.min_exponent;  // subnormal: the quantum of the smallest normal
  long double quantum = std::ldexp(1.0L, e - f.precision + 1);
  long double r = RoundToInteger(v / quantum, mode) * quantum;
  long double max = MaxFinite(f);
  if (std::fabs(r) > max) {
    bool negative = v < 0;
    bool to_inf = mode == RoundMode::kNone || mode == RoundMode::kRint ||
                  mode == RoundMode::kRound || (mode == RoundMode::kFloor && negative) ||
                  (mode == RoundMode::kCeil && !negative);
    long double big = to_inf ? std::numeric_limits<long double>::infinity() : max;
    return negative ? -big : big;
  }
  return r;
}

uint64_t EncodeFloat(long double v, DType t) {
  switch (t) {
    case DType::kFloat16:  // exact: v is representable
      return FloatToHalf(static_cast<float>(v));
    case DType::kBFloat16:
      return std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16;
    default:
      return std::bit_cast<uint32_t>(static_cast<float>(v));
  }
}

uint64_t QuietNan(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 0x7e00u;
    case DType::kBFloat16:
      return 0x7fc0u;
    default:
      return 0x7fc00000u;
  }
}

const FloatFormat& FormatOf(DType t) {
  return t == DType::kFloat16 ? kHalf : t == DType::kBFloat16 ? kBf16 : kSingle;
}

// Integer range of `t` as long double bounds.
void IntRange(DType t, long double* lo, long double* hi) {
  switch (t) {
    case DType::kInt8:
      *lo = INT8_MIN, *hi = INT8_MAX;
      return;
    case DType::kUInt8:
      *lo = 0, *hi = UINT8_MAX;
      return;
    case DType::kInt16:
      *lo = INT16_MIN, *hi = INT16_MAX;
      return;
    case DType::kInt32:
      *lo = INT32_MIN, *hi = INT32_MAX;
      return;
    default:
      *lo = static_cast<long double>(INT64_MIN), *hi = static_cast<long double>(INT64_MAX);
      return;
  }
}

uint64_t EncodeInt(long double v, DType t) {
  auto i = static_cast<int64_t>(v);
  uint64_t mask = DTypeSize(t) >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * DTypeSize(t))) - 1;
  return static_cast<uint64_t>(i) & mask;
}

}  // namespace

RoundModeSet CastModes(DType src, DType dst) {
  for (const CastRule& r : kCastRules) {
    if (r.src == src && r.dst == dst) return r.modes;
  }
  return 0;
}

std::string_view RoundModeName(RoundMode m) { return kModeNames[static_cast<int>(m)]; }

std::string RoundModeList(RoundModeSet set) {
  std::string out;
  for (int m = 0; m < kNumRoundModes; ++m) {
    if ((set & (1u << m)) == 0) continue;
    if (!out.empty()) out += ", ";
    out += kModeNames[m];
  }
  return out;
}

uint64_t RoundToFloatBits(long double v, DType dst, RoundMode mode) {
  if (std::isnan(v)) return QuietNan(dst);
  return EncodeFloat(std::isinf(v) ? v : RoundToFormat(v, FormatOf(dst), mode), dst);
}

uint64_t CastBits(uint64_t bits, DType src, DType dst, RoundMode mode) {
  long double v = ToValue(bits, src);
  if (IsFloat(dst)) {
    if (std::isnan(v)) return QuietNan(dst);
    long double r = std::isinf(v) ? v : RoundToFormat(v, FormatOf(dst), mode);
    // float -> float rounds to an integral value, and a zero result is +0 ([BOUND]).
    if (src == DType::kFloat32 && dst == DType::kFloat32) {
      r = std::isinf(v) ? v : RoundToInteger(v, mode);
      if (r == 0) r = 0.0L;
    }
    return EncodeFloat(r, dst);
  }
  // To an integer: NaN -> 0, infinities and out-of-range values saturate ([BOUND]).
  long double lo = 0, hi = 0;
  IntRange(dst, &lo, &hi);
  if (std::isnan(v)) return 0;
  long double r = std::isinf(v) ? v : RoundToInteger(v, mode);
  if (r < lo) r = lo;
  if (r > hi) r = hi;
  return EncodeInt(r, dst);
}

void VecCast(const VecOperands& o) {
  if (CastModes(o.src_dtype, o.dtype) == 0) {
    semantics::UnsupportedDType("cast", o.dtype);
  }
  uint32_t in = DTypeSize(o.src_dtype), out = DTypeSize(o.dtype);
  auto mode = static_cast<RoundMode>(o.round_mode);
  // int32 -> half ignores the mode: it is a dequantisation by DEQSCALE's half scale (5.2).
  bool deq = o.src_dtype == DType::kInt32 && o.dtype == DType::kFloat16;
  for (uint64_t i = 0; i < o.count; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, o.src0 + i * in, in);
    uint64_t r = deq ? DeqInt32ToHalf(static_cast<int32_t>(bits), o.scalar_bits)
                     : CastBits(bits, o.src_dtype, o.dtype, mode);
    std::memcpy(o.dst + i * out, &r, out);
  }
}

}  // namespace aicore::sim
