// Binary vector instructions, dst = src0 op src1 (asc-api.md 4.5; ascendc-semantics.md 5.4):
// IEEE results in the element type, integers wrap, max/min propagate NaN.
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

void VecAdd(const VecOperands& o) {
  ElementwiseBinary(
      "add", o, [](float x, float y) { return x + y; }, IAdd());
}

void VecSub(const VecOperands& o) {
  ElementwiseBinary(
      "sub", o, [](float x, float y) { return x - y; }, ISub());
}

void VecMul(const VecOperands& o) {
  ElementwiseBinary(
      "mul", o, [](float x, float y) { return x * y; }, IMul());
}

void VecDiv(const VecOperands& o) {
  ElementwiseBinaryFloat("div", o, [](float x, float y) { return x / y; });
}

void VecMax(const VecOperands& o) { ElementwiseBinary("max", o, FMax, IMax()); }

void VecMin(const VecOperands& o) { ElementwiseBinary("min", o, FMin, IMin()); }

namespace {

// max(x, 0) of a float result: NaN stays NaN, -0 stays -0 (as relu).
float ReluF(float x) { return x < 0.0f ? 0.0f : x; }

template <typename T>
void Bitwise(const char* op, const VecOperands& o, T (*f)(T, T)) {
  switch (o.dtype) {
    case DType::kInt16:
    case DType::kUInt16:
      BinaryLoop<uint16_t>(o.src0, o.src1, o.dst, o.count, f);
      return;
    default:
      UnsupportedDType(op, o.dtype);
  }
}

// (a * b) + c with each step rounded to the element type: half products round to half before
// the add, float products to float (no fused rounding; the chip's behaviour is unconfirmed).
template <typename Post>
void MulThenAdd(const char* op, const uint8_t* a, const uint8_t* b, const uint8_t* c,
                const VecOperands& o, Post post) {
  switch (o.dtype) {
    case DType::kFloat16:
      TernaryLoop<uint16_t>(a, b, c, o.dst, o.count, [&](uint16_t x, uint16_t y, uint16_t w) {
        uint16_t p = R(H(x) * H(y));
        return R(post(H(p) + H(w)));
      });
      return;
    case DType::kFloat32:
      TernaryLoop<float>(a, b, c, o.dst, o.count, [&](float x, float y, float w) {
        float p = x * y;
        return post(p + w);
      });
      return;
    default:
      UnsupportedDType(op, o.dtype);
  }
}

float Identity(float x) { return x; }

// max(x op y, 0) for floats and int16 (which wraps before the relu).
template <typename FloatOp, typename IntOp>
void OpThenRelu(const char* op, const VecOperands& o, FloatOp fop, IntOp iop) {
  if (FloatBinary(o, [&](float x, float y) { return ReluF(fop(x, y)); })) return;
  if (o.dtype != DType::kInt16) UnsupportedDType(op, o.dtype);
  BinaryLoop<int16_t>(o.src0, o.src1, o.dst, o.count, [&](int16_t x, int16_t y) {
    auto wrapped = static_cast<int16_t>(iop(int32_t{x}, int32_t{y}));
    return wrapped < 0 ? int16_t{0} : wrapped;
  });
}

}  // namespace

void VecAddRelu(const VecOperands& o) {
  OpThenRelu(
      "add_relu", o, [](float x, float y) { return x + y; }, IAdd());
}

void VecSubRelu(const VecOperands& o) {
  OpThenRelu(
      "sub_relu", o, [](float x, float y) { return x - y; }, ISub());
}

void VecAnd(const VecOperands& o) {
  Bitwise<uint16_t>("bitwise_and", o,
                    [](uint16_t x, uint16_t y) { return static_cast<uint16_t>(x & y); });
}

void VecOr(const VecOperands& o) {
  Bitwise<uint16_t>("bitwise_or", o,
                    [](uint16_t x, uint16_t y) { return static_cast<uint16_t>(x | y); });
}

void VecMulAddDst(const VecOperands& o) {
  MulThenAdd("mul_add_dst", o.src0, o.src1, o.dst_in, o, Identity);
}

void VecFusedMulAdd(const VecOperands& o) {
  MulThenAdd("fused_mul_add", o.src0, o.dst_in, o.src1, o, Identity);
}

void VecFusedMulAddRelu(const VecOperands& o) {
  MulThenAdd("fused_mul_add_relu", o.src0, o.dst_in, o.src1, o, ReluF);
}

// One horizontal step of bilinear_interpolation: the gathered vector (src0) times the step's
// scalars (src1, one per lane), added to the running sum (dst_in) after the first step.
void VecBilinearInterpolation(const VecOperands& o) {
  if (o.dtype != DType::kFloat16) UnsupportedDType("bilinear_interpolation", o.dtype);
  if (o.dst_in == nullptr) {
    VecMul(o);
    return;
  }
  MulThenAdd("bilinear_interpolation", o.src0, o.src1, o.dst_in, o, Identity);
}

}  // namespace aicore::sim
