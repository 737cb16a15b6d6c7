// Semantics of the scalar unit's arithmetic (kernel.proto ScalarBinaryOp/ScalarUnaryOp): integers
// wrap at their width, integer DIV/MOD truncate toward zero, comparisons give BOOL, float32 math
// is done in float, half/bfloat16 math in float rounded once, float->int casts truncate.
#pragma once

#include <cstdint>

#include "sim/isa/dtype.h"
#include "sim/isa/program.h"

namespace aicore::sim {

// One scalar value. Integers are stored sign- or zero-extended to 64 bits according to their
// dtype (BOOL is 0/1); floating types store their exact value as a double.
union ScalarValue {
  int64_t i;
  uint64_t u;
  double f;
};

inline ScalarValue IntValue(int64_t v) {
  ScalarValue s;
  s.i = v;
  return s;
}
inline ScalarValue FloatValue(double v) {
  ScalarValue s;
  s.f = v;
  return s;
}

enum class ScalarFault : uint8_t { kNone, kDivisionByZero };

// Truncates a 64-bit pattern to `t`'s width (two's complement wrap) and re-extends it. Inline:
// every integer op of the scalar unit ends here.
inline ScalarValue WrapInteger(uint64_t bits, DType t) {
  const DTypeRow& row = DTypeRowOf(t);
  ScalarValue v;
  if (t == DType::kBool) {
    v.u = bits != 0 ? 1 : 0;
    return v;
  }
  if (row.bits >= 64 || row.bits == 0) {
    v.u = bits;
    return v;
  }
  uint64_t mask = (1ull << row.bits) - 1;
  uint64_t low = bits & mask;
  if (row.is_signed && (low >> (row.bits - 1)) != 0) low |= ~mask;
  v.u = low;
  return v;
}
// Rounds `v` to the precision of floating type `t` (round-to-nearest-even).
ScalarValue RoundFloat(double v, DType t);
// Numeric conversion; float -> integer truncates toward zero and saturates (NaN -> 0).
ScalarValue CastScalar(ScalarValue v, DType from, DType to);
// Operands have `operand_type`; the result has `operand_type`, or BOOL for comparisons/logicals.
ScalarFault EvalScalarBinary(ScalarBinaryKind kind, DType operand_type, ScalarValue lhs,
                             ScalarValue rhs, ScalarValue* out);
// EvalScalarBinary with the integer add, sub, mul and comparisons a kernel's index arithmetic
// is made of computed inline (the scalar unit's hot path); every other case goes to it.
inline ScalarFault EvalScalarBinaryInline(ScalarBinaryKind kind, DType t, ScalarValue a,
                                          ScalarValue b, ScalarValue* out) {
  using K = ScalarBinaryKind;
  const DTypeRow& row = DTypeRowOf(t);
  if (!row.integer) return EvalScalarBinary(kind, t, a, b, out);
  // -1, 0, 1 as a is below, equal to or above b in t's order.
  int order = row.is_signed ? (a.i > b.i) - (a.i < b.i) : (a.u > b.u) - (a.u < b.u);
  switch (kind) {
    case K::kAdd:
      *out = WrapInteger(a.u + b.u, t);
      break;
    case K::kSub:
      *out = WrapInteger(a.u - b.u, t);
      break;
    case K::kMul:
      *out = WrapInteger(a.u * b.u, t);
      break;
    case K::kEq:
      *out = IntValue(order == 0);
      break;
    case K::kNe:
      *out = IntValue(order != 0);
      break;
    case K::kLt:
      *out = IntValue(order < 0);
      break;
    case K::kLe:
      *out = IntValue(order <= 0);
      break;
    case K::kGt:
      *out = IntValue(order > 0);
      break;
    case K::kGe:
      *out = IntValue(order >= 0);
      break;
    default:
      return EvalScalarBinary(kind, t, a, b, out);
  }
  return ScalarFault::kNone;
}
// NEG / BIT_NOT keep the type; LOGICAL_NOT gives BOOL; CAST is CastScalar; the bit helpers give
// int64; ROUND_CAST converts in `round_mode` (a RoundMode the cast table admits).
ScalarValue EvalScalarUnary(ScalarUnaryKind kind, DType type, DType src_type, ScalarValue v,
                            uint8_t round_mode = 0);
// EvalScalarUnary with the cast between integer types (or from BOOL) of a kernel's index
// arithmetic computed inline; every other case goes to it.
inline ScalarValue EvalScalarUnaryInline(ScalarUnaryKind kind, DType type, DType src_type,
                                         ScalarValue v, uint8_t round_mode = 0) {
  if (kind == ScalarUnaryKind::kCast && DTypeRowOf(type).integer &&
      !DTypeRowOf(src_type).is_float && src_type != DType::kInvalid) {
    return WrapInteger(v.u, type);
  }
  return EvalScalarUnary(kind, type, src_type, v, round_mode);
}
// A signed view of an integer/bool value (uint64 values above INT64_MAX saturate), used for
// counts and addresses.
int64_t AsInt64(ScalarValue v, DType t);
bool IsTrue(ScalarValue v, DType t);

// The raw little-endian bit pattern of `v` (of type `from`) converted to element type `elem`,
// as it would be stored in memory (half as binary16 bits ...).
uint64_t ToElementBits(ScalarValue v, DType from, DType elem);

}  // namespace aicore::sim
