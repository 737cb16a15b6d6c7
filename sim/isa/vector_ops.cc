// Vector element loops (see vector_ops.h). Data is staged through small typed stack arrays with
// memcpy, so there is no type punning of the byte-addressed UB and the inner loops vectorise.
#include "sim/isa/vector_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "sim/isa/fp16.h"

namespace aicore::sim {
namespace {

constexpr uint64_t kChunk = 128;  // elements staged per step

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

// Applies a float-domain binary functor to each element type the vector unit supports.
template <typename FloatOp, typename IntOp>
bool DispatchBinary(DType t, const uint8_t* a, const uint8_t* b, uint8_t* d, uint64_t n,
                    FloatOp fop, IntOp iop) {
  switch (t) {
    case DType::kFloat16:
      BinaryLoop<uint16_t>(a, b, d, n, [&](uint16_t x, uint16_t y) { return R(fop(H(x), H(y))); });
      return true;
    case DType::kFloat32:
      BinaryLoop<float>(a, b, d, n, fop);
      return true;
    case DType::kInt16:
      BinaryLoop<int16_t>(a, b, d, n, [&](int16_t x, int16_t y) {
        return static_cast<int16_t>(iop(static_cast<int32_t>(x), static_cast<int32_t>(y)));
      });
      return true;
    case DType::kInt32:
      BinaryLoop<int32_t>(a, b, d, n, [&](int32_t x, int32_t y) {
        return static_cast<int32_t>(iop(static_cast<int64_t>(x), static_cast<int64_t>(y)));
      });
      return true;
    default:
      return false;
  }
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
struct INone {
  int64_t operator()(int64_t, int64_t) const { return 0; }
};

}  // namespace

bool VectorOpSupports(Opcode op, DType t) {
  bool f16_f32 = t == DType::kFloat16 || t == DType::kFloat32;
  bool arith = f16_f32 || t == DType::kInt16 || t == DType::kInt32;
  switch (op) {
    case Opcode::kVecAdd:
    case Opcode::kVecSub:
    case Opcode::kVecMul:
    case Opcode::kVecMax:
    case Opcode::kVecMin:
    case Opcode::kVecAdds:
    case Opcode::kVecMuls:
    case Opcode::kVecMaxs:
    case Opcode::kVecMins:
      return arith;
    case Opcode::kVecDiv:
    case Opcode::kVecAbs:
    case Opcode::kVecExp:
    case Opcode::kVecLn:
    case Opcode::kVecSqrt:
      return f16_f32;
    case Opcode::kVecRelu:
      return f16_f32 || t == DType::kInt32;
    default:
      return false;
  }
}

void VecBinary(Opcode op, DType t, const uint8_t* a, const uint8_t* b, uint8_t* d, uint64_t n) {
  switch (op) {
    case Opcode::kVecAdd:
      DispatchBinary(
          t, a, b, d, n, [](float x, float y) { return x + y; }, IAdd());
      break;
    case Opcode::kVecSub:
      DispatchBinary(
          t, a, b, d, n, [](float x, float y) { return x - y; }, ISub());
      break;
    case Opcode::kVecMul:
      DispatchBinary(
          t, a, b, d, n, [](float x, float y) { return x * y; }, IMul());
      break;
    case Opcode::kVecDiv:
      DispatchBinary(
          t, a, b, d, n, [](float x, float y) { return x / y; }, INone());
      break;
    case Opcode::kVecMax:
      DispatchBinary(t, a, b, d, n, FMax, IMax());
      break;
    case Opcode::kVecMin:
      DispatchBinary(t, a, b, d, n, FMin, IMin());
      break;
    default:
      break;
  }
}

void VecUnary(Opcode op, DType t, const uint8_t* a, uint8_t* d, uint64_t n) {
  bool half = t == DType::kFloat16;
  switch (op) {
    case Opcode::kVecAbs:
      // Clearing the sign bit is exact for every value including NaN and inf.
      if (half) {
        UnaryLoop<uint16_t>(a, d, n, [](uint16_t x) { return static_cast<uint16_t>(x & 0x7fffu); });
      } else {
        UnaryLoop<uint32_t>(a, d, n, [](uint32_t x) { return x & 0x7fffffffu; });
      }
      break;
    case Opcode::kVecExp:
      if (half) {
        UnaryLoop<uint16_t>(a, d, n, [](uint16_t x) { return R(std::exp(H(x))); });
      } else {
        UnaryLoop<float>(a, d, n, [](float x) { return std::exp(x); });
      }
      break;
    case Opcode::kVecLn:
      if (half) {
        UnaryLoop<uint16_t>(a, d, n, [](uint16_t x) { return R(std::log(H(x))); });
      } else {
        UnaryLoop<float>(a, d, n, [](float x) { return std::log(x); });
      }
      break;
    case Opcode::kVecSqrt:
      if (half) {
        UnaryLoop<uint16_t>(a, d, n, [](uint16_t x) { return R(std::sqrt(H(x))); });
      } else {
        UnaryLoop<float>(a, d, n, [](float x) { return std::sqrt(x); });
      }
      break;
    case Opcode::kVecRelu:
      // max(x, 0): negative values (not NaN, not -0) become +0.
      if (half) {
        UnaryLoop<uint16_t>(a, d, n, [](uint16_t x) {
          bool negative = (x & 0x8000u) != 0 && (x & 0x7fffu) != 0 && !HalfIsNan(x);
          return negative ? static_cast<uint16_t>(0) : x;
        });
      } else if (t == DType::kFloat32) {
        UnaryLoop<float>(a, d, n, [](float x) { return x < 0.0f ? 0.0f : x; });
      } else {
        UnaryLoop<int32_t>(a, d, n, [](int32_t x) { return x < 0 ? 0 : x; });
      }
      break;
    default:
      break;
  }
}

void VecScalar(Opcode op, DType t, const uint8_t* a, uint64_t s, uint8_t* d, uint64_t n) {
  auto run = [&](auto fop, auto iop) {
    switch (t) {
      case DType::kFloat16: {
        float fs = H(static_cast<uint16_t>(s));
        UnaryLoop<uint16_t>(a, d, n, [&](uint16_t x) { return R(fop(H(x), fs)); });
        break;
      }
      case DType::kFloat32: {
        float fs = std::bit_cast<float>(static_cast<uint32_t>(s));
        UnaryLoop<float>(a, d, n, [&](float x) { return fop(x, fs); });
        break;
      }
      case DType::kInt16: {
        int32_t is = static_cast<int16_t>(static_cast<uint16_t>(s));
        UnaryLoop<int16_t>(a, d, n, [&](int16_t x) { return static_cast<int16_t>(iop(x, is)); });
        break;
      }
      case DType::kInt32: {
        int64_t is = static_cast<int32_t>(static_cast<uint32_t>(s));
        UnaryLoop<int32_t>(a, d, n, [&](int32_t x) { return static_cast<int32_t>(iop(x, is)); });
        break;
      }
      default:
        break;
    }
  };
  switch (op) {
    case Opcode::kVecAdds:
      run([](float x, float y) { return x + y; }, IAdd());
      break;
    case Opcode::kVecMuls:
      run([](float x, float y) { return x * y; }, IMul());
      break;
    case Opcode::kVecMaxs:
      run(FMax, IMax());
      break;
    case Opcode::kVecMins:
      run(FMin, IMin());
      break;
    default:
      break;
  }
}

}  // namespace aicore::sim
