// Scalar arithmetic, conversions and comparisons (see scalar_ops.h for the rules).
#include "sim/isa/scalar_ops.h"

#include <bit>
#include <cmath>
#include <limits>

#include "sim/isa/fp16.h"
#include "sim/isa/semantics/cast.h"

namespace aicore::sim {
namespace {

int64_t SaturatingTrunc(double d, DType to) {
  if (std::isnan(d)) return 0;
  double t = std::trunc(d);
  uint32_t bits = DTypeBits(to);
  if (IsSigned(to)) {
    double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1);
    double hi = std::ldexp(1.0, static_cast<int>(bits) - 1);  // exclusive
    if (t <= lo) return bits == 64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo);
    if (t >= hi)
      return bits == 64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi) - 1;
    return static_cast<int64_t>(t);
  }
  if (t <= 0) return 0;
  double hi = std::ldexp(1.0, static_cast<int>(bits));  // exclusive
  if (t >= hi) {
    return bits == 64 ? static_cast<int64_t>(std::numeric_limits<uint64_t>::max())
                      : static_cast<int64_t>(hi) - 1;
  }
  return static_cast<int64_t>(static_cast<uint64_t>(t));
}

double IntegerToDouble(ScalarValue v, DType from) {
  if (from == DType::kUInt64) return static_cast<double>(v.u);
  return static_cast<double>(v.i);
}

// IEEE maximum/minimum with NaN propagation and -0 < +0.
double FMax(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
double FMin(double a, double b) {
  if (std::isnan(a)) return a;
  if (std::isnan(b)) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Arithmetic in the precision of `t`: float32/half/bfloat16 compute in float and round.
double FloatArith(ScalarBinaryKind kind, DType t, double a, double b) {
  if (t == DType::kFloat64) {
    switch (kind) {
      case ScalarBinaryKind::kAdd:
        return a + b;
      case ScalarBinaryKind::kSub:
        return a - b;
      case ScalarBinaryKind::kMul:
        return a * b;
      case ScalarBinaryKind::kDiv:
        return a / b;
      default:
        return 0;
    }
  }
  float fa = static_cast<float>(a), fb = static_cast<float>(b), r = 0;
  switch (kind) {
    case ScalarBinaryKind::kAdd:
      r = fa + fb;
      break;
    case ScalarBinaryKind::kSub:
      r = fa - fb;
      break;
    case ScalarBinaryKind::kMul:
      r = fa * fb;
      break;
    case ScalarBinaryKind::kDiv:
      r = fa / fb;
      break;
    default:
      break;
  }
  return RoundFloat(r, t).f;
}

int Compare(ScalarValue a, ScalarValue b, DType t, bool* unordered) {
  *unordered = false;
  if (IsFloat(t)) {
    if (std::isnan(a.f) || std::isnan(b.f)) {
      *unordered = true;
      return 0;
    }
    return a.f < b.f ? -1 : (a.f > b.f ? 1 : 0);
  }
  if (IsInteger(t) && !IsSigned(t)) return a.u < b.u ? -1 : (a.u > b.u ? 1 : 0);
  return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
}

ScalarValue Bool(bool b) { return IntValue(b ? 1 : 0); }

}  // namespace

ScalarValue RoundFloat(double v, DType t) {
  switch (t) {
    case DType::kFloat32:
      return FloatValue(static_cast<float>(v));
    case DType::kFloat16:
      return FloatValue(HalfToFloat(DoubleToHalf(v)));
    case DType::kBFloat16:
      return FloatValue(Bf16ToFloat(DoubleToBf16(v)));
    default:
      return FloatValue(v);
  }
}

ScalarValue CastScalar(ScalarValue v, DType from, DType to) {
  if (to == DType::kBool) {
    return Bool(IsFloat(from) ? v.f != 0.0 : v.u != 0);
  }
  if (IsFloat(to)) {
    double d = IsFloat(from) ? v.f : IntegerToDouble(v, from);
    // int64 -> double may round, but only above 2^53, where every narrower float type has
    // either overflowed or has no finer step, so the second rounding cannot change the result.
    return RoundFloat(d, to);
  }
  if (IsFloat(from)) return WrapInteger(static_cast<uint64_t>(SaturatingTrunc(v.f, to)), to);
  return WrapInteger(v.u, to);
}

ScalarFault EvalScalarBinary(ScalarBinaryKind kind, DType t, ScalarValue a, ScalarValue b,
                             ScalarValue* out) {
  using K = ScalarBinaryKind;
  bool unordered = false;
  switch (kind) {
    case K::kEq:
      *out = Bool(Compare(a, b, t, &unordered) == 0 && !unordered);
      return {};
    case K::kNe:
      *out = Bool(Compare(a, b, t, &unordered) != 0 || unordered);
      return {};
    case K::kLt:
      *out = Bool(Compare(a, b, t, &unordered) < 0 && !unordered);
      return {};
    case K::kLe:
      *out = Bool(Compare(a, b, t, &unordered) <= 0 && !unordered);
      return {};
    case K::kGt:
      *out = Bool(Compare(a, b, t, &unordered) > 0 && !unordered);
      return {};
    case K::kGe:
      *out = Bool(Compare(a, b, t, &unordered) >= 0 && !unordered);
      return {};
    case K::kLogicalAnd:
      *out = Bool(IsTrue(a, t) && IsTrue(b, t));
      return {};
    case K::kLogicalOr:
      *out = Bool(IsTrue(a, t) || IsTrue(b, t));
      return {};
    default:
      break;
  }
  if (IsFloat(t)) {
    switch (kind) {
      case K::kMin:
        *out = FloatValue(FMin(a.f, b.f));
        return {};
      case K::kMax:
        *out = FloatValue(FMax(a.f, b.f));
        return {};
      default:
        *out = FloatValue(FloatArith(kind, t, a.f, b.f));
        return {};
    }
  }
  bool is_signed = IsSigned(t);
  uint32_t width = t == DType::kBool ? 1 : DTypeBits(t);
  switch (kind) {
    case K::kAdd:
      *out = WrapInteger(a.u + b.u, t);
      return {};
    case K::kSub:
      *out = WrapInteger(a.u - b.u, t);
      return {};
    case K::kMul:
      *out = WrapInteger(a.u * b.u, t);
      return {};
    case K::kDiv:
    case K::kMod: {
      if (b.u == 0) return ScalarFault::kDivisionByZero;
      if (is_signed) {
        // INT64_MIN / -1 overflows in C++; the wrapped answer is INT64_MIN (remainder 0).
        if (b.i == -1) {
          *out = kind == K::kDiv ? WrapInteger(0 - a.u, t) : IntValue(0);
          return {};
        }
        *out = WrapInteger(static_cast<uint64_t>(kind == K::kDiv ? a.i / b.i : a.i % b.i), t);
      } else {
        *out = WrapInteger(kind == K::kDiv ? a.u / b.u : a.u % b.u, t);
      }
      return {};
    }
    case K::kMin:
      *out = (is_signed ? a.i <= b.i : a.u <= b.u) ? a : b;
      return {};
    case K::kMax:
      *out = (is_signed ? a.i >= b.i : a.u >= b.u) ? a : b;
      return {};
    case K::kAnd:
      *out = WrapInteger(a.u & b.u, t);
      return {};
    case K::kOr:
      *out = WrapInteger(a.u | b.u, t);
      return {};
    case K::kXor:
      *out = WrapInteger(a.u ^ b.u, t);
      return {};
    case K::kShl: {
      // Shift counts are taken as unsigned; counts >= the width shift everything out.
      *out = b.u >= width ? WrapInteger(0, t) : WrapInteger(a.u << b.u, t);
      return {};
    }
    case K::kShr: {
      if (is_signed) {
        uint64_t s = b.u >= 64 ? 63 : b.u;
        *out = WrapInteger(static_cast<uint64_t>(a.i >> s), t);
      } else {
        *out = b.u >= 64 ? WrapInteger(0, t) : WrapInteger(a.u >> b.u, t);
      }
      return {};
    }
    default:
      *out = IntValue(0);
      return {};
  }
}

ScalarValue EvalScalarUnary(ScalarUnaryKind kind, DType t, DType src, ScalarValue v,
                            uint8_t round_mode) {
  switch (kind) {
    case ScalarUnaryKind::kFirstZero:
      return IntValue(~v.u == 0 ? -1 : std::countr_one(v.u));
    case ScalarUnaryKind::kFirstOne:
      return IntValue(v.u == 0 ? -1 : std::countr_zero(v.u));
    case ScalarUnaryKind::kCountZeros:
      return IntValue(64 - std::popcount(v.u));
    case ScalarUnaryKind::kCountOnes:
      return IntValue(std::popcount(v.u));
    case ScalarUnaryKind::kClz:
      return IntValue(std::countl_zero(v.u));
    case ScalarUnaryKind::kCls:  // the run of sign copies below the sign bit
      return IntValue((v.i < 0 ? std::countl_one(v.u) : std::countl_zero(v.u)) - 1);
    case ScalarUnaryKind::kRoundCast: {
      float x = static_cast<float>(v.f);
      uint32_t bits = std::bit_cast<uint32_t>(x);
      uint64_t out = CastBits(bits, DType::kFloat32, t, static_cast<RoundMode>(round_mode));
      if (t == DType::kInt32) return IntValue(static_cast<int32_t>(static_cast<uint32_t>(out)));
      return FloatValue(HalfToFloat(static_cast<uint16_t>(out)));
    }
    case ScalarUnaryKind::kNeg:
      return IsFloat(t) ? FloatValue(-v.f) : WrapInteger(0 - v.u, t);
    case ScalarUnaryKind::kLogicalNot:
      return Bool(!IsTrue(v, src));
    case ScalarUnaryKind::kBitNot:
      return WrapInteger(~v.u, t);
    case ScalarUnaryKind::kCast:
      return CastScalar(v, src, t);
  }
  return IntValue(0);
}

int64_t AsInt64(ScalarValue v, DType t) {
  if (IsFloat(t)) return SaturatingTrunc(v.f, DType::kInt64);
  if (t == DType::kUInt64 && v.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return std::numeric_limits<int64_t>::max();
  }
  return v.i;
}

bool IsTrue(ScalarValue v, DType t) { return IsFloat(t) ? v.f != 0.0 : v.u != 0; }

uint64_t ToElementBits(ScalarValue v, DType from, DType elem) {
  ScalarValue c = CastScalar(v, from, elem);
  switch (elem) {
    case DType::kFloat16:
      return DoubleToHalf(c.f);
    case DType::kBFloat16:
      return DoubleToBf16(c.f);
    case DType::kFloat32:
      return std::bit_cast<uint32_t>(static_cast<float>(c.f));
    case DType::kFloat64:
      return std::bit_cast<uint64_t>(c.f);
    default: {
      uint32_t width = DTypeBits(elem) == 1 ? 8 : DTypeBits(elem);
      return width >= 64 ? c.u : (c.u & ((1ull << width) - 1));
    }
  }
}

}  // namespace aicore::sim
