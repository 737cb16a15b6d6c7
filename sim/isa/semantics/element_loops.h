// Shared machinery of the vector semantics files: element loops that stage data through small
// typed stack arrays with memcpy (no type punning of the byte-addressed UB; the inner loops
// vectorise), the fp16 helpers, IEEE max/min, and the per-dtype dispatch every family uses.
// Half math is done in float and rounded once; integers wrap.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "sim/core/invariant.h"
#include "sim/isa/dtype.h"
#include "sim/isa/fp16.h"
#include "sim/isa/opcode.h"

namespace aicore::sim::semantics {

inline constexpr uint64_t kChunk = 128;  // elements staged per step

template <typename T, typename F>
void BinaryLoop(const uint8_t* a, const uint8_t* b, uint8_t* d, uint64_t n, F f) {
  T x[kChunk], y[kChunk], z[kChunk];
  for (uint64_t i = 0; i < n; i += kChunk) {
    uint64_t m = std::min(kChunk, n - i);
    std::memcpy(x, a + i * sizeof(T), m * sizeof(T));
    std::memcpy(y, b + i * sizeof(T), m * sizeof(T));
    for (uint64_t j = 0; j < m; ++j) z[j] = f(x[j], y[j]);
    std::memcpy(d + i * sizeof(T), z, m * sizeof(T));
  }
}

template <typename T, typename F>
void UnaryLoop(const uint8_t* a, uint8_t* d, uint64_t n, F f) {
  T x[kChunk], z[kChunk];
  for (uint64_t i = 0; i < n; i += kChunk) {
    uint64_t m = std::min(kChunk, n - i);
    std::memcpy(x, a + i * sizeof(T), m * sizeof(T));
    for (uint64_t j = 0; j < m; ++j) z[j] = f(x[j]);
    std::memcpy(d + i * sizeof(T), z, m * sizeof(T));
  }
}

template <typename T, typename F>
void TernaryLoop(const uint8_t* a, const uint8_t* b, const uint8_t* c, uint8_t* d, uint64_t n,
                 F f) {
  T x[kChunk], y[kChunk], w[kChunk], z[kChunk];
  for (uint64_t i = 0; i < n; i += kChunk) {
    uint64_t m = std::min(kChunk, n - i);
    std::memcpy(x, a + i * sizeof(T), m * sizeof(T));
    std::memcpy(y, b + i * sizeof(T), m * sizeof(T));
    std::memcpy(w, c + i * sizeof(T), m * sizeof(T));
    for (uint64_t j = 0; j < m; ++j) z[j] = f(x[j], y[j], w[j]);
    std::memcpy(d + i * sizeof(T), z, m * sizeof(T));
  }
}

// Half loops computed in float: whole chunks widened and narrowed at once (fp16.h's bulk forms,
// vectorised on hosts with F16C), each result rounded once as the element form would.
template <typename FloatOp>
void HalfBinaryLoop(const uint8_t* a, const uint8_t* b, uint8_t* d, uint64_t n, FloatOp fop) {
  uint16_t x[kChunk], y[kChunk], z[kChunk];
  float fx[kChunk], fy[kChunk], fz[kChunk];
  for (uint64_t i = 0; i < n; i += kChunk) {
    uint64_t m = std::min(kChunk, n - i);
    std::memcpy(x, a + i * 2, m * 2);
    std::memcpy(y, b + i * 2, m * 2);
    HalvesToFloats(x, fx, m);
    HalvesToFloats(y, fy, m);
    for (uint64_t j = 0; j < m; ++j) fz[j] = fop(fx[j], fy[j]);
    FloatsToHalves(fz, z, m);
    std::memcpy(d + i * 2, z, m * 2);
  }
}

template <typename FloatOp>
void HalfUnaryLoop(const uint8_t* a, uint8_t* d, uint64_t n, FloatOp fop) {
  uint16_t x[kChunk], z[kChunk];
  float fx[kChunk], fz[kChunk];
  for (uint64_t i = 0; i < n; i += kChunk) {
    uint64_t m = std::min(kChunk, n - i);
    std::memcpy(x, a + i * 2, m * 2);
    HalvesToFloats(x, fx, m);
    for (uint64_t j = 0; j < m; ++j) fz[j] = fop(fx[j]);
    FloatsToHalves(fz, z, m);
    std::memcpy(d + i * 2, z, m * 2);
  }
}

// IEEE maximum/minimum: NaN wins, -0 < +0.
inline float FMax(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float FMin(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

inline float H(uint16_t h) { return HalfToFloat(h); }
inline uint16_t R(float f) { return FloatToHalf(f); }
inline bool HalfIsNan(uint16_t h) { return (h & 0x7fffu) > 0x7c00u; }

// A dtype the table admits but the family file does not implement: a table/semantics mismatch.
[[noreturn]] inline void UnsupportedDType(const char* op, DType t) {
  InvariantFailed("dtype implemented", std::string(op) + " has no semantics for " +
                                           std::string(DTypeName(t)) +
                                           " although its table row admits it");
}

// Wrapping integer ops computed in a wider type and narrowed by the caller's cast.
struct IAdd {
  int64_t operator()(int64_t x, int64_t y) const { return x + y; }
};
struct ISub {
  int64_t operator()(int64_t x, int64_t y) const { return x - y; }
};
struct IMul {
  // Multiply in uint64 so int32*int32 cannot overflow the signed type; the cast narrows.
  int64_t operator()(int64_t x, int64_t y) const {
    return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  }
};
struct IMax {
  int64_t operator()(int64_t x, int64_t y) const { return x > y ? x : y; }
};
struct IMin {
  int64_t operator()(int64_t x, int64_t y) const { return x < y ? x : y; }
};

// dst = fop(src0, src1) for the float element types (half through float, rounded once); false
// for any other type.
template <typename FloatOp>
bool FloatBinary(const VecOperands& o, FloatOp fop) {
  switch (o.dtype) {
    case DType::kFloat16:
      HalfBinaryLoop(o.src0, o.src1, o.dst, o.count, fop);
      return true;
    case DType::kFloat32:
      BinaryLoop<float>(o.src0, o.src1, o.dst, o.count, fop);
      return true;
    default:
      return false;
  }
}

// dst = fop(src0, src1) for floats, iop (in a wider type, narrowed) for integers.
template <typename FloatOp, typename IntOp>
void ElementwiseBinary(const char* op, const VecOperands& o, FloatOp fop, IntOp iop) {
  if (FloatBinary(o, fop)) return;
  switch (o.dtype) {
    case DType::kInt16:
      BinaryLoop<int16_t>(o.src0, o.src1, o.dst, o.count, [&](int16_t x, int16_t y) {
        return static_cast<int16_t>(iop(static_cast<int32_t>(x), static_cast<int32_t>(y)));
      });
      return;
    case DType::kInt32:
      BinaryLoop<int32_t>(o.src0, o.src1, o.dst, o.count, [&](int32_t x, int32_t y) {
        return static_cast<int32_t>(iop(static_cast<int64_t>(x), static_cast<int64_t>(y)));
      });
      return;
    default:
      UnsupportedDType(op, o.dtype);
  }
}

// Float-only binary ops (div): integer element types are not in their rows.
template <typename FloatOp>
void ElementwiseBinaryFloat(const char* op, const VecOperands& o, FloatOp fop) {
  if (!FloatBinary(o, fop)) UnsupportedDType(op, o.dtype);
}

// Float unary ops computed in float (half through float, rounded once).
template <typename FloatOp>
void ElementwiseUnaryFloat(const char* op, const VecOperands& o, FloatOp fop) {
  switch (o.dtype) {
    case DType::kFloat16:
      HalfUnaryLoop(o.src0, o.dst, o.count, fop);
      return;
    case DType::kFloat32:
      UnaryLoop<float>(o.src0, o.dst, o.count, fop);
      return;
    default:
      UnsupportedDType(op, o.dtype);
  }
}

}  // namespace aicore::sim::semantics
