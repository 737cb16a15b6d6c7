// The position tables of Ascend C's library (see positions.h).
#include "sim/isa/positions.h"

#include <iterator>
#include <string>

#include "sim/core/invariant.h"

namespace aicore::sim {

namespace {

using M = MemSpace;
// TQue<pos> is TQueBind<pos, pos>: its ends (from, to) are the library's logical positions.
constexpr PositionRow kPositions[] = {
    // pos          name       memory  queue  pool   from    to
    {kPosGm, "GM", M::kGm, false, false, M::kInvalid, M::kInvalid},
    {kPosA1, "A1", M::kL1, true, true, M::kGm, M::kL1},
    {kPosA2, "A2", M::kL0a, true, false, M::kL1, M::kL0a},
    {kPosB1, "B1", M::kL1, true, true, M::kGm, M::kL1},
    {kPosB2, "B2", M::kL0b, true, false, M::kL1, M::kL0b},
    {kPosC1, "C1", M::kL1, true, true, M::kGm, M::kL1},
    {kPosC2, "C2", M::kBt, true, false, M::kL1, M::kBt},
    {kPosCo1, "CO1", M::kL0c, true, false, M::kL0c, M::kGm},
    {kPosCo2, "CO2", M::kInvalid, false, false, M::kInvalid, M::kInvalid},
    {kPosVecIn, "VECIN", M::kUb, true, true, M::kGm, M::kUb},
    {kPosVecOut, "VECOUT", M::kUb, true, true, M::kUb, M::kGm},
    {kPosVecCalc, "VECCALC", M::kUb, true, true, M::kUb, M::kUb},
    {kPosMax, "MAX", M::kInvalid, false, false, M::kInvalid, M::kInvalid},
};
static_assert(std::size(kPositions) == kPosMax + 1);

}  // namespace

std::span<const PositionRow> Positions() { return kPositions; }

const PositionRow* PositionOf(int pos) {
  if (pos < 0 || pos > kPosMax) return nullptr;
  const PositionRow* row = &kPositions[pos];
  SIM_CHECK(row->pos == pos, "the position table is out of order at " + std::to_string(pos));
  return row;
}

MemSpace MemoryOf(int pos) {
  const PositionRow* row = PositionOf(pos);
  return row == nullptr ? MemSpace::kInvalid : row->memory;
}

bool IsQueuePosition(int pos) {
  const PositionRow* row = PositionOf(pos);
  return row != nullptr && row->queue;
}

bool IsPoolPosition(int pos) {
  const PositionRow* row = PositionOf(pos);
  return row != nullptr && row->pool;
}

void TQueEnds(int pos, MemSpace* from, MemSpace* to) {
  const PositionRow* row = PositionOf(pos);
  *from = row == nullptr ? MemSpace::kInvalid : row->from;
  *to = row == nullptr ? MemSpace::kInvalid : row->to;
}

bool QueueEvents(MemSpace from, MemSpace to, uint8_t* enque, uint8_t* free) {
  struct Row {
    MemSpace from, to;
    uint8_t enque, free;
  };
  using M = MemSpace;
  static constexpr Row kRows[] = {
      {M::kGm, M::kUb, 4, 5},    {M::kUb, M::kGm, 7, 6},    {M::kUb, M::kUb, 20, 19},
      {M::kGm, M::kL1, 0, 1},    {M::kGm, M::kL0a, 14, 15}, {M::kGm, M::kL0b, 14, 15},
      {M::kL1, M::kL0a, 2, 3},   {M::kL1, M::kL0b, 2, 3},   {M::kL1, M::kBt, 2, 3},
      {M::kL1, M::kFb, 32, 33},  {M::kL1, M::kUb, 13, 16},  {M::kUb, M::kL1, 11, 12},
      {M::kL0c, M::kGm, 17, 18},
  };
  for (const Row& r : kRows) {
    if (r.from == from && r.to == to) {
      *enque = r.enque;
      *free = r.free;
      return true;
    }
  }
  return false;
}

}  // namespace aicore::sim
