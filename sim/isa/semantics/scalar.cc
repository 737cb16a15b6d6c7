// Vector-scalar instructions, dst = src op scalar (asc-api.md 4.7): the scalar arrives already
// converted to the element type (VecOperands::scalar_bits), so the op itself rounds once.
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
      UnaryLoop<uint16_t>(o.src0, o.dst, o.count, [&](uint16_t x) { return R(fop(H(x), fs)); });
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

}  // namespace aicore::sim
