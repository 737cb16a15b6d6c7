// Atomic accumulation of stores into GM (ascendc-semantics.md 5.12): while an atomic mode is
// set, each element a store writes becomes op(old GM value, stored value) in the atomic type.
#pragma once

#include <cstdint>

#include "sim/isa/dtype.h"

namespace aicore::sim {

// CTRL bits 4..3 (set_store_atomic_config's atomic_op; 3 is not an op).
enum class AtomicOp : uint8_t { kSum = 0, kMax = 1, kMin = 2 };
inline constexpr uint32_t kNumAtomicOps = 3;

// pyasc AtomicDtype values (CTRL bits 2..0) -> element types; NONE (0) and values past BF16 (6)
// give DType::kInvalid.
DType AtomicDtypeToDType(int64_t atomic_type);
// The inverse for the types an atomic mode accepts; 0 (ATOMIC_NONE) for any other.
int AtomicDtypeOf(DType t);

// gm[i] = op(gm[i], data[i]) for each whole element of `t` in `bytes`; fp16 and bf16 sums are
// rounded once per element (nearest even), float sums are IEEE float additions, integers wrap.
// Max/min: exact; a NaN on either side gives NaN (model's choice). Bytes past the last whole
// element are stored as they are.
void AtomicCombine(AtomicOp op, DType t, uint8_t* gm, const uint8_t* data, uint64_t bytes);

}  // namespace aicore::sim
