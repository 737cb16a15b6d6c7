// Element semantics of the vector unit over whole instructions: each call dispatches once on
// (opcode, dtype) and then runs a tight loop over raw little-endian element bytes. Half math is
// done in float and rounded once; integers wrap; max/min propagate NaN.
#pragma once

#include <cstdint>

#include "sim/isa/dtype.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {

// dst[i] = op(src0[i], src1[i]) for i < n. dst must not overlap the sources.
void VecBinary(Opcode op, DType t, const uint8_t* src0, const uint8_t* src1, uint8_t* dst,
               uint64_t n);
// dst[i] = op(src[i]).
void VecUnary(Opcode op, DType t, const uint8_t* src, uint8_t* dst, uint64_t n);
// dst[i] = op(src[i], scalar); `scalar_bits` is the scalar already converted to `t`.
void VecScalar(Opcode op, DType t, const uint8_t* src, uint64_t scalar_bits, uint8_t* dst,
               uint64_t n);
// True if the model implements `op` for element type `t` (the decoder and config check use it).
bool VectorOpSupports(Opcode op, DType t);

}  // namespace aicore::sim
