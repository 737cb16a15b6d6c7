// Atomic store combining (see atomic.h).
#include "sim/isa/semantics/atomic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"

namespace aicore::sim {
namespace {

// AtomicDtype values 1..6, in order.
constexpr DType kAtomicTypes[] = {DType::kFloat32, DType::kFloat16, DType::kInt16,
                                  DType::kInt32,   DType::kInt8,    DType::kBFloat16};

template <typename T>
T Load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Integers: the sum wraps in the element type.
template <typename T>
T IntCombine(AtomicOp op, T a, T b) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case AtomicOp::kSum:
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    case AtomicOp::kMax:
      return std::max(a, b);
    case AtomicOp::kMin:
      return std::min(a, b);
  }
  return b;
}

// Floats through double: a sum of two halves (or two floats) is exact in double, so rounding it
// to the element type is the one rounding of the chip's adder; max/min are exact.
double FloatCombine(AtomicOp op, double a, double b) {
  if (op == AtomicOp::kSum) return a + b;
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  return op == AtomicOp::kMax ? std::max(a, b) : std::min(a, b);
}

}  // namespace

DType AtomicDtypeToDType(int64_t atomic_type) {
  if (atomic_type < 1 || atomic_type > 6) return DType::kInvalid;
  return kAtomicTypes[atomic_type - 1];
}

int AtomicDtypeOf(DType t) {
  for (int i = 0; i < 6; ++i) {
    if (kAtomicTypes[i] == t) return i + 1;
  }
  return 0;
}

void AtomicCombine(AtomicOp op, DType t, uint8_t* gm, const uint8_t* data, uint64_t bytes) {
  uint64_t esize = DTypeSize(t);
  uint64_t whole = bytes / esize * esize;
  for (uint64_t i = 0; i < whole; i += esize) {
    uint8_t* g = gm + i;
    const uint8_t* d = data + i;
    switch (t) {
      case DType::kFloat32: {
        float a = Load<float>(g), b = Load<float>(d);
        // A float sum in float: one IEEE rounding (double would round twice).
        Store<float>(g, op == AtomicOp::kSum ? a + b : static_cast<float>(FloatCombine(op, a, b)));
        break;
      }
      case DType::kFloat16:
        Store<uint16_t>(g, DoubleToHalf(FloatCombine(op, HalfToFloat(Load<uint16_t>(g)),
                                                     HalfToFloat(Load<uint16_t>(d)))));
        break;
      case DType::kBFloat16:
        Store<uint16_t>(g, DoubleToBf16(FloatCombine(op, Bf16ToFloat(Load<uint16_t>(g)),
                                                     Bf16ToFloat(Load<uint16_t>(d)))));
        break;
      case DType::kInt8:
        Store<int8_t>(g, IntCombine(op, Load<int8_t>(g), Load<int8_t>(d)));
        break;
      case DType::kInt16:
        Store<int16_t>(g, IntCombine(op, Load<int16_t>(g), Load<int16_t>(d)));
        break;
      case DType::kInt32:
        Store<int32_t>(g, IntCombine(op, Load<int32_t>(g), Load<int32_t>(d)));
        break;
      default:
        SIM_CHECK(false, "an atomic store of " + std::string(DTypeName(t)) + " reached GM");
    }
  }
  std::memcpy(gm + whole, data + whole, bytes - whole);
}

}  // namespace aicore::sim
