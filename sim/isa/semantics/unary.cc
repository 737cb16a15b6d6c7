// Unary vector instructions, dst = op(src) (asc-api.md 4.6; ascendc-semantics.md 5.4). Exp, Ln
// and Sqrt use the host's libm in float and round once (the chip's ulp error is not public).
// Rsqrt and Reciprocal are hardware estimates on the chip (within 0.1% for half, 0.01% for float;
// the algorithm is not public): the model returns the correctly rounded value, computed in double
// and rounded once to the element type. How each op rounds, and what the model chose where the
// chip is not public, is in the numerics column of its row (docs/isa.md).
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

void VecAbs(const VecOperands& o) {
  // Clearing the sign bit is exact for every value including NaN and inf.
  switch (o.dtype) {
    case DType::kFloat16:
      UnaryLoop<uint16_t>(o.src0, o.dst, o.count,
                          [](uint16_t x) { return static_cast<uint16_t>(x & 0x7fffu); });
      return;
    case DType::kFloat32:
      UnaryLoop<uint32_t>(o.src0, o.dst, o.count, [](uint32_t x) { return x & 0x7fffffffu; });
      return;
    default:
      UnsupportedDType("abs", o.dtype);
  }
}

void VecExp(const VecOperands& o) {
  ElementwiseUnaryFloat("exp", o, [](float x) { return std::exp(x); });
}

void VecLn(const VecOperands& o) {
  ElementwiseUnaryFloat("ln", o, [](float x) { return std::log(x); });
}

void VecSqrt(const VecOperands& o) {
  ElementwiseUnaryFloat("sqrt", o, [](float x) { return std::sqrt(x); });
}

namespace {

// f(x) in double, rounded once to the element type.
template <typename F>
void InDouble(const char* op, const VecOperands& o, F f) {
  switch (o.dtype) {
    case DType::kFloat16:
      UnaryLoop<uint16_t>(o.src0, o.dst, o.count,
                          [&](uint16_t x) { return DoubleToHalf(f(static_cast<double>(H(x)))); });
      return;
    case DType::kFloat32:
      UnaryLoop<float>(o.src0, o.dst, o.count,
                       [&](float x) { return static_cast<float>(f(static_cast<double>(x))); });
      return;
    default:
      UnsupportedDType(op, o.dtype);
  }
}

}  // namespace

void VecRsqrt(const VecOperands& o) {
  InDouble("rsqrt", o, [](double x) { return 1.0 / std::sqrt(x); });
}

void VecReciprocal(const VecOperands& o) {
  InDouble("reciprocal", o, [](double x) { return 1.0 / x; });
}

void VecRelu(const VecOperands& o) {
  // max(x, 0): negative values (not NaN, not -0) become +0.
  switch (o.dtype) {
    case DType::kFloat16:
      UnaryLoop<uint16_t>(o.src0, o.dst, o.count, [](uint16_t x) {
        bool negative = (x & 0x8000u) != 0 && (x & 0x7fffu) != 0 && !HalfIsNan(x);
        return negative ? static_cast<uint16_t>(0) : x;
      });
      return;
    case DType::kFloat32:
      UnaryLoop<float>(o.src0, o.dst, o.count, [](float x) { return x < 0.0f ? 0.0f : x; });
      return;
    case DType::kInt32:
      UnaryLoop<int32_t>(o.src0, o.dst, o.count, [](int32_t x) { return x < 0 ? 0 : x; });
      return;
    default:
      UnsupportedDType("relu", o.dtype);
  }
}

void VecNot(const VecOperands& o) {
  switch (o.dtype) {
    case DType::kInt16:
    case DType::kUInt16:
      UnaryLoop<uint16_t>(o.src0, o.dst, o.count,
                          [](uint16_t x) { return static_cast<uint16_t>(~x); });
      return;
    default:
      UnsupportedDType("bitwise_not", o.dtype);
  }
}

}  // namespace aicore::sim
