// Sort and region-proposal instructions (asc-api.md 4.12). The references give no layouts; the
// model uses Ascend C's public ones:
//   a sort structure (Sort32, MrgSort): 8 bytes, the score at byte 0 (a half score leaves bytes
//   2-3, written 0 by Sort32), the uint32 index at byte 4;
//   a region proposal (RpSort16, MrgSort4, ProposalConcat/Extract): 8 elements of the dtype,
//   x1 y1 x2 y2 score label and two reserved, the score at element 4.
// Order: descending by score; NaN sorts above +inf; equal scores (-0 == +0, NaN == NaN) keep
// their input order, and a merge takes equal scores from the lower-numbered list first (the
// model's choice: the chip's tie rule is not public).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/isa/fp16.h"
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {
namespace {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

constexpr uint64_t kStructBytes = 8;     // one sort structure
constexpr uint64_t kScoreElem = 4;       // the score's element in a proposal
constexpr uint64_t kSort32Group = 32;    // structures sorted per Sort32 iteration
constexpr uint64_t kRpSort16Group = 16;  // proposals sorted per RpSort16 iteration

float ScoreAt(const uint8_t* p, DType t) {
  if (t == DType::kFloat16) {
    uint16_t h;
    std::memcpy(&h, p, sizeof(h));
    return HalfToFloat(h);
  }
  float f;
  std::memcpy(&f, p, sizeof(f));
  return f;
}

// True when score a is placed strictly before score b.
bool Before(float a, float b) {
  if (std::isnan(a)) return !std::isnan(b);
  if (std::isnan(b)) return false;
  return a > b;
}

void CheckFloat(const char* op, DType t) {
  if (t != DType::kFloat16 && t != DType::kFloat32) UnsupportedDType(op, t);
}

// Sorts consecutive groups of `group` elements of `elem_bytes` bytes by the score at
// `score_offset`, stably, writing each element through `emit(dst_index, src_index)`.
template <typename Emit>
void SortGroups(const uint8_t* src, uint64_t count, uint64_t group, uint64_t elem_bytes,
                uint64_t score_offset, DType t, Emit emit) {
  uint64_t order[kSort32Group];
  float score[kSort32Group];
  for (uint64_t start = 0; start < count; start += group) {
    uint64_t n = std::min(group, count - start);
    for (uint64_t k = 0; k < n; ++k) {
      order[k] = k;
      score[k] = ScoreAt(src + (start + k) * elem_bytes + score_offset, t);
    }
    std::stable_sort(order, order + n,
                     [&](uint64_t a, uint64_t b) { return Before(score[a], score[b]); });
    for (uint64_t k = 0; k < n; ++k) emit(start + k, start + order[k]);
  }
}

// Merges the lists of `s` into o.dst, elements of `elem_bytes` bytes with the score at
// `score_offset`.
void Merge(const VecOperands& o, uint64_t elem_bytes, uint64_t score_offset) {
  SIM_CHECK(o.sort != nullptr, "a merge without its lists");
  const SortOperands& s = *o.sort;
  uint64_t pos[4] = {0, 0, 0, 0};
  uint64_t out = 0;
  for (;;) {
    int best = -1;
    float best_score = 0;
    bool exhausted = false;
    for (int i = 0; i < s.lists; ++i) {
      if (pos[i] >= s.length[i]) {
        exhausted = true;
        continue;
      }
      float v = ScoreAt(s.list[i] + pos[i] * elem_bytes + score_offset, o.dtype);
      if (best < 0 || Before(v, best_score)) best = i, best_score = v;
    }
    if (best < 0 || (exhausted && s.exhausted_suspension)) break;
    std::memcpy(o.dst + out * elem_bytes, s.list[best] + pos[best] * elem_bytes, elem_bytes);
    ++pos[best];
    ++out;
  }
  if (s.taken != nullptr) std::copy(pos, pos + 4, s.taken);
}

}  // namespace

void VecSort32(const VecOperands& o) {
  CheckFloat("sort32", o.dtype);
  uint64_t size = DTypeSize(o.dtype);
  SortGroups(o.src0, o.count, kSort32Group, size, 0, o.dtype, [&](uint64_t d, uint64_t s) {
    uint8_t* out = o.dst + d * kStructBytes;
    std::memset(out, 0, kStructBytes);
    std::memcpy(out, o.src0 + s * size, size);
    std::memcpy(out + 4, o.src1 + s * sizeof(uint32_t), sizeof(uint32_t));
  });
}

void VecMrgSort(const VecOperands& o) {
  CheckFloat("mrg_sort", o.dtype);
  Merge(o, kStructBytes, 0);
}

void VecMrgSort4(const VecOperands& o) {
  CheckFloat("mrg_sort4", o.dtype);
  uint64_t size = DTypeSize(o.dtype);
  Merge(o, kProposalElements * size, kScoreElem * size);
}

// count: proposals.
void VecRpSort16(const VecOperands& o) {
  CheckFloat("rp_sort16", o.dtype);
  uint64_t bytes = kProposalElements * DTypeSize(o.dtype);
  SortGroups(
      o.src0, o.count, kRpSort16Group, bytes, kScoreElem * DTypeSize(o.dtype), o.dtype,
      [&](uint64_t d, uint64_t s) { std::memcpy(o.dst + d * bytes, o.src0 + s * bytes, bytes); });
}

// count: proposals; round_mode: the field (mode_number). dst holds whole proposals; only the
// field is written (the pipe writes back just those bytes).
void VecProposalConcat(const VecOperands& o) {
  CheckFloat("proposal_concat", o.dtype);
  uint64_t size = DTypeSize(o.dtype);
  for (uint64_t i = 0; i < o.count; ++i) {
    std::memcpy(o.dst + (i * kProposalElements + o.round_mode) * size, o.src0 + i * size, size);
  }
}

// count: proposals; round_mode: the field (mode_number).
void VecProposalExtract(const VecOperands& o) {
  CheckFloat("proposal_extract", o.dtype);
  uint64_t size = DTypeSize(o.dtype);
  for (uint64_t i = 0; i < o.count; ++i) {
    std::memcpy(o.dst + i * size, o.src0 + (i * kProposalElements + o.round_mode) * size, size);
  }
}

}  // namespace aicore::sim
