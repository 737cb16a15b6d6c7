// Reductions (asc-api.md 4.10, ascendc-semantics.md 5.5): one result per iteration of the
// lanes the pipe hands over (inactive lanes arrive as +0). The sum is the hardware's binary
// tree: level 1 adds lanes (0,1), (2,3), ...; each level adds the previous level's results
// pairwise; every addition rounds to the element type.
#include <vector>

#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

constexpr uint64_t kMaxLanes = 128;

template <typename T, typename Add>
T TreeSum(const uint8_t* src, uint64_t n, Add add) {
  T v[kMaxLanes];
  uint64_t m = std::min(n, kMaxLanes);
  std::memcpy(v, src, m * sizeof(T));
  for (uint64_t width = m; width > 1; width = (width + 1) / 2) {
    for (uint64_t i = 0; i < width / 2; ++i) v[i] = add(v[2 * i], v[2 * i + 1]);
    if (width % 2 != 0) v[width / 2] = v[width - 1];  // an odd lane passes to the next level
  }
  return m == 0 ? T{} : v[0];
}

}  // namespace

void VecWholeReduceSum(const VecOperands& o) {
  switch (o.dtype) {
    case DType::kFloat16: {
      uint16_t s =
          TreeSum<uint16_t>(o.src0, o.count, [](uint16_t a, uint16_t b) { return R(H(a) + H(b)); });
      std::memcpy(o.dst, &s, sizeof(s));
      return;
    }
    case DType::kFloat32: {
      float s = TreeSum<float>(o.src0, o.count, [](float a, float b) { return a + b; });
      std::memcpy(o.dst, &s, sizeof(s));
      return;
    }
    default:
      UnsupportedDType("whole_reduce_sum", o.dtype);
  }
}

}  // namespace aicore::sim
