// Reductions (asc-api.md 4.10, ascendc-semantics.md 5.5): per iteration of the lanes the pipe
// hands over (inactive lanes arrive as +0, and flagged in `active`), one result per group of
// lanes (ReduceLayoutOf). A sum is the hardware's binary tree: level 1 adds lanes (0,1), (2,3),
// ...; each level adds the previous level's results pairwise; every addition rounds to the
// element type. Max/min pick among the active lanes only.
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

bool Active(const VecOperands& o, uint64_t e) { return o.active == nullptr || o.active[e] != 0; }

// The lane of [first, first + n) holding the extreme value: a NaN lane wins (the first one, as
// max/min propagate NaN), otherwise the first lane of the extreme value, with -0 < +0; -1 when
// no lane is active. `better(a, b)`: a strictly beyond b.
template <typename Better>
int64_t ExtremeLane(const VecOperands& o, uint64_t first, uint64_t n, Better better) {
  int64_t best = -1;
  float bv = 0;
  for (uint64_t e = first; e < first + n; ++e) {
    if (!Active(o, e)) continue;
    float v = 0;
    if (o.dtype == DType::kFloat16) {
      uint16_t h;
      std::memcpy(&h, o.src0 + e * 2, 2);
      v = H(h);
    } else {
      std::memcpy(&v, o.src0 + e * 4, 4);
    }
    if (best < 0 || (!std::isnan(bv) && (std::isnan(v) || better(v, bv)))) {
      best = static_cast<int64_t>(e);
      bv = v;
    }
  }
  return best;
}

bool Above(float a, float b) { return a > b || (a == b && std::signbit(b) && !std::signbit(a)); }
bool Below(float a, float b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); }

// Value and/or index in the order asked (pyasc ReduceOrder); the index is an unsigned integer of
// the element's width.
template <typename Better>
void WholeExtreme(const VecOperands& o, const char* op, Better better) {
  if (o.dtype != DType::kFloat16 && o.dtype != DType::kFloat32) UnsupportedDType(op, o.dtype);
  size_t es = DTypeSize(o.dtype);
  int64_t lane = ExtremeLane(o, 0, o.count, better);
  uint64_t at = lane < 0 ? 0 : static_cast<uint64_t>(lane);
  uint32_t index = static_cast<uint32_t>(at);
  uint8_t value[4], idx[4];
  std::memcpy(value, o.src0 + at * es, es);
  if (es == 2) {
    auto i16 = static_cast<uint16_t>(index);
    std::memcpy(idx, &i16, 2);
  } else {
    std::memcpy(idx, &index, 4);
  }
  const uint8_t* parts[kNumReduceOrders][2] = {
      {value, idx}, {idx, value}, {value, nullptr}, {idx, nullptr}};
  SIM_CHECK(o.round_mode < kNumReduceOrders, "a ReduceOrder past the decoder's check");
  for (int k = 0; k < 2; ++k) {
    if (parts[o.round_mode][k] != nullptr) std::memcpy(o.dst + k * es, parts[o.round_mode][k], es);
  }
}

}  // namespace

namespace {

// Where each reduction writes (opcode.h ReduceLayout): the lanes one result covers, and whether
// the ordered forms VALUE_INDEX and INDEX_VALUE (orders 0, 1) write a (value, index) pair.
enum class ReduceGroup : uint8_t { kIteration, kBlock, kPair };
struct ReduceRow {
  Opcode op;
  ReduceGroup group;
  bool ordered_pair;
};
constexpr ReduceRow kReduceRows[] = {
    {Opcode::kVecWholeReduceSum, ReduceGroup::kIteration, false},
    {Opcode::kVecWholeReduceMax, ReduceGroup::kIteration, true},
    {Opcode::kVecWholeReduceMin, ReduceGroup::kIteration, true},
    {Opcode::kVecBlockReduceSum, ReduceGroup::kBlock, false},
    {Opcode::kVecBlockReduceMax, ReduceGroup::kBlock, false},
    {Opcode::kVecBlockReduceMin, ReduceGroup::kBlock, false},
    {Opcode::kVecPairReduceSum, ReduceGroup::kPair, false},
};

}  // namespace

ReduceLayout ReduceLayoutOf(Opcode op, uint8_t order, uint32_t lanes, uint32_t esize) {
  for (const ReduceRow& row : kReduceRows) {
    if (row.op != op) continue;
    uint32_t width = row.ordered_pair && order < 2 ? 2u : 1u;
    uint32_t group = row.group == ReduceGroup::kIteration ? lanes
                     : row.group == ReduceGroup::kBlock   ? static_cast<uint32_t>(32 / esize)
                                                          : 2u;
    return {group, width};
  }
  return {0, 1};
}

void VecWholeReduceMax(const VecOperands& o) { WholeExtreme(o, "whole_reduce_max", Above); }
void VecWholeReduceMin(const VecOperands& o) { WholeExtreme(o, "whole_reduce_min", Below); }

namespace {

// One result per `group` lanes: f(first lane, lanes) -> the result's bits.
template <typename T, typename F>
void PerGroup(const VecOperands& o, uint64_t group, F f) {
  for (uint64_t first = 0; first + group <= o.count; first += group) {
    T v = f(first, group);
    std::memcpy(o.dst + first / group * sizeof(T), &v, sizeof(T));
  }
}

void GroupSum(const VecOperands& o, const char* op, uint64_t group) {
  switch (o.dtype) {
    case DType::kFloat16:
      PerGroup<uint16_t>(o, group, [&](uint64_t first, uint64_t n) {
        return TreeSum<uint16_t>(o.src0 + first * 2, n,
                                 [](uint16_t a, uint16_t b) { return R(H(a) + H(b)); });
      });
      return;
    case DType::kFloat32:
      PerGroup<float>(o, group, [&](uint64_t first, uint64_t n) {
        return TreeSum<float>(o.src0 + first * 4, n, [](float a, float b) { return a + b; });
      });
      return;
    default:
      UnsupportedDType(op, o.dtype);
  }
}

template <typename Better>
void GroupExtreme(const VecOperands& o, const char* op, Better better) {
  if (o.dtype != DType::kFloat16 && o.dtype != DType::kFloat32) UnsupportedDType(op, o.dtype);
  size_t es = DTypeSize(o.dtype);
  uint64_t group = 32 / es;
  for (uint64_t first = 0; first + group <= o.count; first += group) {
    int64_t lane = ExtremeLane(o, first, group, better);
    uint64_t at = lane < 0 ? first : static_cast<uint64_t>(lane);
    std::memcpy(o.dst + first / group * es, o.src0 + at * es, es);
  }
}

}  // namespace

void VecBlockReduceSum(const VecOperands& o) {
  GroupSum(o, "block_reduce_sum", 32 / std::max<size_t>(DTypeSize(o.dtype), 1));
}
void VecBlockReduceMax(const VecOperands& o) { GroupExtreme(o, "block_reduce_max", Above); }
void VecBlockReduceMin(const VecOperands& o) { GroupExtreme(o, "block_reduce_min", Below); }
void VecPairReduceSum(const VecOperands& o) { GroupSum(o, "pair_reduce_sum", 2); }

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
