// Binary ops that convert their result into a narrower type (asc-api.md 4.5: mul_cast,
// add_relu_cast, sub_relu_cast): the op is computed and rounded once in the source type as the
// plain binary op is, then converted as cast (ascendc-semantics.md 5.2) converts it: to an
// integer nearest-even with saturation (NaN -> 0), float -> half nearest-even (overflow -> inf).
#include "sim/isa/semantics/binary_cast.h"

#include "sim/isa/semantics/cast.h"
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

enum class Op : uint8_t { kMul, kAddRelu, kSubRelu };

// The pairs the chip has: vmulconv f16 -> s8/u8; vaddreluconv / vsubreluconv f16 -> s8,
// f32 -> f16, s16 -> s8.
bool Legal(Op op, DType src, DType dst) {
  if (op == Op::kMul) {
    return src == DType::kFloat16 && (dst == DType::kInt8 || dst == DType::kUInt8);
  }
  return (src == DType::kFloat16 && dst == DType::kInt8) ||
         (src == DType::kFloat32 && dst == DType::kFloat16) ||
         (src == DType::kInt16 && dst == DType::kInt8);
}

// The binary op in the source type, rounded once (half via float) or wrapped (int16).
uint64_t Compute(Op op, uint64_t a, uint64_t b, DType src) {
  auto relu = [](float v) { return v < 0 ? 0.0f : v; };  // NaN stays NaN (the cast makes it 0)
  switch (src) {
    case DType::kFloat16: {
      float x = H(static_cast<uint16_t>(a)), y = H(static_cast<uint16_t>(b));
      if (op == Op::kMul) return R(x * y);
      float r = H(R(op == Op::kAddRelu ? x + y : x - y));
      return R(relu(r));
    }
    case DType::kFloat32: {
      float x = 0, y = 0;
      auto xa = static_cast<uint32_t>(a), yb = static_cast<uint32_t>(b);
      std::memcpy(&x, &xa, 4);
      std::memcpy(&y, &yb, 4);
      float r = relu(op == Op::kAddRelu ? x + y : x - y);
      uint32_t out = 0;
      std::memcpy(&out, &r, 4);
      return out;
    }
    default: {  // int16: wraps, then the relu
      auto x = static_cast<int16_t>(a), y = static_cast<int16_t>(b);
      auto r = static_cast<int16_t>(op == Op::kAddRelu ? x + y : x - y);
      return static_cast<uint16_t>(r < 0 ? 0 : r);
    }
  }
}

void BinaryCast(const char* name, Op op, const VecOperands& o) {
  if (!Legal(op, o.src_dtype, o.dtype)) UnsupportedDType(name, o.dtype);
  uint32_t in = DTypeSize(o.src_dtype), out = DTypeSize(o.dtype);
  for (uint64_t i = 0; i < o.count; ++i) {
    uint64_t a = 0, b = 0;
    std::memcpy(&a, o.src0 + i * in, in);
    std::memcpy(&b, o.src1 + i * in, in);
    uint64_t r = CastBits(Compute(op, a, b, o.src_dtype), o.src_dtype, o.dtype, RoundMode::kRint);
    std::memcpy(o.dst + i * out, &r, out);
  }
}

}  // namespace

bool BinaryCastLegal(Opcode op, DType src, DType dst) {
  if (op == Opcode::kVecAddDeqRelu) return src == DType::kInt32 && dst == DType::kFloat16;
  return Legal(op == Opcode::kVecMulCast ? Op::kMul : Op::kAddRelu, src, dst);
}

void VecMulCast(const VecOperands& o) { BinaryCast("mul_cast", Op::kMul, o); }
void VecAddReluCast(const VecOperands& o) { BinaryCast("add_relu_cast", Op::kAddRelu, o); }
void VecSubReluCast(const VecOperands& o) { BinaryCast("sub_relu_cast", Op::kSubRelu, o); }

}  // namespace aicore::sim
