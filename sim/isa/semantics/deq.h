// Dequantisation with the DEQSCALE register (ascendc-semantics.md 5.2, 5.3; set_deq_scale):
// int32 -> half by a half scale (cast, add_deq_relu) and int16 -> int8 / uint8 by quant words
// (cast_deq). The word layout is the fixpipe quant word's (4.4): scale bits 31..13 as a float,
// a 9-bit offset in bits 45..37, the sign bit 46 (1: int8 results, 0: uint8).
#pragma once

#include <cstdint>

#include "sim/isa/opcode.h"

namespace aicore::sim {

inline constexpr int kDeqVectorWords = 16;  // VdeqInfo: one word per element of a 32-byte block

// x times the half scale in the word's low 16 bits, rounded once to half (nearest-even),
// overflow saturating to +-65504 as DEQF16 does (4.4).
uint64_t DeqInt32ToHalf(int32_t x, uint64_t word);
// x requantised by one quant word: x * scale rounded to an integer (nearest-even), clamped to
// [-256, 255], plus the offset, clamped to int8 or uint8 by the sign bit.
uint8_t DeqInt16ToInt8(int16_t x, uint64_t word);

// cast_deq: dst lanes int8/uint8 from int16 lanes; `deq` holds 16 words (vector mode, the word
// of lane e is e % 16) or is null (scalar_bits is the word).
void VecCastDeq(const VecOperands& o);
// add_deq_relu: int32 src0 + src1 (wrapping), dequantised to half, then max(., 0).
void VecAddDeqRelu(const VecOperands& o);

}  // namespace aicore::sim
