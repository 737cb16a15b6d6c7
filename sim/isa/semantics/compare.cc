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

// Select (ascendc-semantics.md 5.7): mode 1 against the scalar, mode 2 against src1.
void VecSelect(const VecOperands& o) {
  constexpr uint8_t kTensorScalar = 1;
  if (o.dtype != DType::kFloat16 && o.dtype != DType::kFloat32) UnsupportedDType("select", o.dtype);
  uint32_t size = DTypeSize(o.dtype);
  bool scalar = o.round_mode == kTensorScalar;
  for (uint64_t i = 0; i < o.count; ++i) {
    bool pick = o.select != nullptr && o.select[i] != 0;
    const uint8_t* from = pick     ? o.src0 + i * size
                          : scalar ? reinterpret_cast<const uint8_t*>(&o.scalar_bits)
                                   : o.src1 + i * size;
    std::memcpy(o.dst + i * size, from, size);
  }
}

// set_cmp_mask / get_cmp_mask: the register's bytes, whatever the tensor's element type.
void VecCmpMaskMove(const VecOperands& o) {
  if ((kRegisterMoveTypes & DTypeBit(o.dtype)) == 0) UnsupportedDType("cmp_mask", o.dtype);
  std::memcpy(o.dst, o.src0, o.count);
}

}  // namespace aicore::sim
