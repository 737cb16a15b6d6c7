// Ascend C's logical buffer positions (TPosition) and the library's tables over them: the physical
// memory each position lives in, which positions queues and pools may take, the two ends of a
// TQue, and the HardEvents a queue between two memories synchronises with (ascendc-semantics.md
// 8.1). The decoder validates framework declarations with these; the values are the IR's.
#pragma once

#include <cstdint>
#include <span>

#include "sim/isa/program.h"

namespace aicore::sim {

// TPosition values (aicore.ir.v1.Position; the bridge asserts they agree).
inline constexpr int kPosGm = 0;
inline constexpr int kPosA1 = 1;
inline constexpr int kPosA2 = 2;
inline constexpr int kPosB1 = 3;
inline constexpr int kPosB2 = 4;
inline constexpr int kPosC1 = 5;
inline constexpr int kPosC2 = 6;
inline constexpr int kPosCo1 = 7;
inline constexpr int kPosCo2 = 8;
inline constexpr int kPosVecIn = 9;
inline constexpr int kPosVecOut = 10;
inline constexpr int kPosVecCalc = 11;
inline constexpr int kPosMax = 12;

// One position of the library's table: its physical memory (kInvalid for CO2 and MAX, whose
// memory depends on the fixpipe's target or does not exist), whether TQue/TBuf and TBufPool may
// take it, and the two ends of TQue<pos> (VECIN is GM -> UB, VECOUT UB -> GM, VECCALC UB -> UB,
// A1/B1/C1 GM -> L1, A2/B2/C2 L1 -> L0A/L0B/BT, CO1 L0C -> GM). The frontend's copy is generated
// from these rows (aicore-isa python, asc/_isa.py POSITIONS).
struct PositionRow {
  int pos;
  const char* name;  // the TPosition member
  MemSpace memory;
  bool queue;
  bool pool;
  MemSpace from, to;
};

// Every position, by value (the row of position p is at index p).
std::span<const PositionRow> Positions();
const PositionRow* PositionOf(int pos);  // nullptr when `pos` is no position

MemSpace MemoryOf(int pos);

// Positions a TQue or TBuf may take.
bool IsQueuePosition(int pos);

// Positions a TBufPool may take.
bool IsPoolPosition(int pos);

// The ends of TQue<pos> (kInvalid for positions no queue takes).
void TQueEnds(int pos, MemSpace* from, MemSpace* to);

// The (EnQue/DeQue, FreeTensor/AllocTensor) HardEvents of a queue between two physical
// endpoints. False when the library has no such pair.
bool QueueEvents(MemSpace from, MemSpace to, uint8_t* enque, uint8_t* free);

}  // namespace aicore::sim
