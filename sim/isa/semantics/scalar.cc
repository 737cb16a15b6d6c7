// Vector-scalar instructions, dst = src op scalar (asc-api.md 4.7): the scalar arrives already
// converted to the element type (VecOperands::scalar_bits), so the op itself rounds once.
#include <type_traits>

#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

template <typename FloatOp, typename IntOp>
void WithScalar(const char* op, const VecOperands& o, FloatOp fop, IntOp iop) {
  uint64_t s = o.scalar_bits;
  switch (o.dtype) {
    case DType::kFloat16: {
      float fs = H(static_cast<uint16_t>(s));
      HalfUnaryLoop(o.src0, o.dst, o.count, [&](float x) { return fop(x, fs); });
      return;
    }
    case DType::kFloat32: {
      float fs = std::bit_cast<float>(static_cast<uint32_t>(s));
      UnaryLoop<float>(o.src0, o.dst, o.count, [&](float x) { return fop(x, fs); });
      return;
    }
    case DType::kInt16: {
      int32_t is = static_cast<int16_t>(static_cast<uint16_t>(s));
      UnaryLoop<int16_t>(o.src0, o.dst, o.count,
                         [&](int16_t x) { return static_cast<int16_t>(iop(x, is)); });
      return;
    }
    case DType::kInt32: {
      int64_t is = static_cast<int32_t>(static_cast<uint32_t>(s));
      UnaryLoop<int32_t>(o.src0, o.dst, o.count,
                         [&](int32_t x) { return static_cast<int32_t>(iop(x, is)); });
      return;
    }
    default:
      UnsupportedDType(op, o.dtype);
  }
}

}  // namespace

void VecAdds(const VecOperands& o) {
  WithScalar(
      "adds", o, [](float x, float y) { return x + y; }, IAdd());
}

void VecMuls(const VecOperands& o) {
  WithScalar(
      "muls", o, [](float x, float y) { return x * y; }, IMul());
}

void VecMaxs(const VecOperands& o) { WithScalar("maxs", o, FMax, IMax()); }

void VecMins(const VecOperands& o) { WithScalar("mins", o, FMin, IMin()); }

void VecLeakyRelu(const VecOperands& o) {
  if (IsInteger(o.dtype)) UnsupportedDType("leaky_relu", o.dtype);  // a float-only row
  WithScalar(
      "leaky_relu", o, [](float x, float s) { return x >= 0.0f ? x : x * s; },
      [](int64_t x, int64_t) { return x; });
}

namespace {

// Shifts of `bits`-wide integers by a scalar amount; amounts of the width or more saturate to
// what shifting one bit at a time would give.
template <typename T>
void ShiftLoop(const VecOperands& o, bool left) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  auto amount = static_cast<int64_t>(static_cast<T>(o.scalar_bits));
  UnaryLoop<T>(o.src0, o.dst, o.count, [&](T x) -> T {
    if (amount <= 0) return x;
    if (left) return amount >= kBits ? T{0} : static_cast<T>(static_cast<U>(x) << amount);
    if (amount >= kBits) return std::is_signed_v<T> && x < 0 ? T(-1) : T{0};
    return static_cast<T>(x >> amount);  // arithmetic for signed T (C++20)
  });
}

void Shift(const char* op, const VecOperands& o, bool left) {
  switch (o.dtype) {
    case DType::kInt16:
      return ShiftLoop<int16_t>(o, left);
    case DType::kUInt16:
      return ShiftLoop<uint16_t>(o, left);
    case DType::kInt32:
      return ShiftLoop<int32_t>(o, left);
    case DType::kUInt32:
      return ShiftLoop<uint32_t>(o, left);
    default:
      UnsupportedDType(op, o.dtype);
  }
}

}  // namespace

void VecShiftLeft(const VecOperands& o) { Shift("shift_left", o, true); }

void VecShiftRight(const VecOperands& o) { Shift("shift_right", o, false); }

void VecAxpy(const VecOperands& o) {
  // dst = src * scalar + dst, the product rounded to the element type before the add.
  uint64_t s = o.scalar_bits;
  switch (o.dtype) {
    case DType::kFloat16: {
      float fs = H(static_cast<uint16_t>(s));
      BinaryLoop<uint16_t>(o.src0, o.dst_in, o.dst, o.count,
                           [&](uint16_t x, uint16_t d) { return R(H(R(H(x) * fs)) + H(d)); });
      return;
    }
    case DType::kFloat32: {
      float fs = std::bit_cast<float>(static_cast<uint32_t>(s));
      if (o.src_dtype == DType::kFloat16) {  // the mixed form: half src widened exactly
        for (uint64_t i = 0; i < o.count; ++i) {
          uint16_t x = 0;
          float d = 0;
          std::memcpy(&x, o.src0 + i * 2, 2);
          std::memcpy(&d, o.dst_in + i * 4, 4);
          float p = H(x) * fs;
          float r = p + d;
          std::memcpy(o.dst + i * 4, &r, 4);
        }
        return;
      }
      BinaryLoop<float>(o.src0, o.dst_in, o.dst, o.count, [&](float x, float d) {
        float p = x * fs;
        return p + d;
      });
      return;
    }
    default:
      UnsupportedDType("axpy", o.dtype);
  }
}

void VecDuplicate(const VecOperands& o) {
  // The scalar's bits, already in the element type, into every element.
  if ((kFillTypes & DTypeBit(o.dtype)) == 0) UnsupportedDType("duplicate", o.dtype);
  uint32_t size = DTypeSize(o.dtype);
  for (uint64_t i = 0; i < o.count; ++i) std::memcpy(o.dst + i * size, &o.scalar_bits, size);
}

}  // namespace aicore::sim
