// The position tables of Ascend C's library (see positions.h).
#include "sim/fwk/positions.h"

namespace aicore::sim {

MemSpace MemoryOf(int pos) {
  switch (pos) {
    case kPosGm:
      return MemSpace::kGm;
    case kPosVecIn:
    case kPosVecOut:
    case kPosVecCalc:
      return MemSpace::kUb;
    case kPosA1:
    case kPosB1:
    case kPosC1:
      return MemSpace::kL1;
    case kPosA2:
      return MemSpace::kL0a;
    case kPosB2:
      return MemSpace::kL0b;
    case kPosCo1:
      return MemSpace::kL0c;
    case kPosC2:
      return MemSpace::kBt;
    default:
      return MemSpace::kInvalid;
  }
}

bool IsQueuePosition(int pos) {
  switch (pos) {
    case kPosVecIn:
    case kPosVecOut:
    case kPosVecCalc:
    case kPosA1:
    case kPosB1:
    case kPosC1:
    case kPosA2:
    case kPosB2:
    case kPosCo1:
    case kPosC2:
      return true;
    default:
      return false;
  }
}

bool IsPoolPosition(int pos) {
  return pos == kPosVecIn || pos == kPosVecOut || pos == kPosVecCalc || pos == kPosA1 ||
         pos == kPosB1 || pos == kPosC1;
}

void TQueEnds(int pos, MemSpace* from, MemSpace* to) {
  MemSpace m = MemoryOf(pos);
  switch (pos) {
    case kPosVecIn:
    case kPosA1:
    case kPosB1:
    case kPosC1:
      *from = MemSpace::kGm;
      *to = m;
      return;
    case kPosVecOut:
    case kPosCo1:
      *from = m;
      *to = MemSpace::kGm;
      return;
    case kPosA2:
    case kPosB2:
    case kPosC2:
      *from = MemSpace::kL1;
      *to = m;
      return;
    default:  // VECCALC
      *from = m;
      *to = m;
      return;
  }
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
