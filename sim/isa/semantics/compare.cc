// Comparisons (asc-api.md 4.9, ascendc-semantics.md 5.6): one byte per lane, 1 where
// src0 <mode> src1 (or the scalar) holds; the pipe packs the bytes into dst's bit mask. IEEE
// comparisons, except that NE with a NaN operand is 0 on A2 ([BOUND]).
#include <type_traits>

#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

enum class CmpMode : uint8_t { kLt = 0, kGt = 1, kEq = 2, kLe = 3, kGe = 4, kNe = 5 };

template <typename V>
bool IsNan(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

template <typename V>
bool Holds(CmpMode m, V a, V b) {
  switch (m) {
    case CmpMode::kLt:
      return a < b;
    case CmpMode::kGt:
      return a > b;
    case CmpMode::kEq:
      return a == b;
    case CmpMode::kLe:
      return a <= b;
    case CmpMode::kGe:
      return a >= b;
    case CmpMode::kNe:
      return a != b && !IsNan(a) && !IsNan(b);  // NaN: 0 on the chip
  }
  return false;
}

template <typename T, typename ToValue>
void CompareLoop(const VecOperands& o, bool scalar, ToValue value) {
  auto mode = static_cast<CmpMode>(o.round_mode);
  T s{};
  std::memcpy(&s, &o.scalar_bits, sizeof(T));
  for (uint64_t i = 0; i < o.count; ++i) {
    T a, b;
    std::memcpy(&a, o.src0 + i * sizeof(T), sizeof(T));
    if (scalar) {
      b = s;
    } else {
      std::memcpy(&b, o.src1 + i * sizeof(T), sizeof(T));
    }
    o.dst[i] = Holds(mode, value(a), value(b)) ? 1 : 0;
  }
}

}  // namespace

namespace {

void Compare(const VecOperands& o, bool scalar) {
  switch (o.dtype) {
    case DType::kFloat16:
      return CompareLoop<uint16_t>(o, scalar, [](uint16_t h) { return H(h); });
    case DType::kFloat32:
      return CompareLoop<float>(o, scalar, [](float f) { return f; });
    case DType::kInt32:
      return CompareLoop<int32_t>(o, scalar, [](int32_t i) { return i; });
    default:
      UnsupportedDType("compare", o.dtype);
  }
}

}  // namespace

void VecCompare(const VecOperands& o) { Compare(o, false); }

void VecCompareScalar(const VecOperands& o) { Compare(o, true); }

}  // namespace aicore::sim
