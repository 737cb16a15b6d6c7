// Element type conversion (vconv, ascendc-semantics.md 5.2): which (source, destination) pairs
// the chip converts and with which round modes, and the conversion of one element, bit exact:
// every round mode, Ascend C's saturation of float -> integer and integer -> integer, NaN and
// infinities as the [BOUND] tables give them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/isa/dtype.h"

namespace aicore::sim {

// pyasc's RoundMode values.
enum class RoundMode : uint8_t {
  kNone = 0,   // exact when representable, else nearest-even
  kRint = 1,   // nearest, ties to even
  kFloor = 2,  // toward -inf
  kCeil = 3,   // toward +inf
  kRound = 4,  // nearest, ties away from zero
  kTrunc = 5,  // toward zero
  kOdd = 6,    // von Neumann: any dropped bit set forces the last bit to 1
};
inline constexpr int kNumRoundModes = 7;

using RoundModeSet = uint8_t;  // bit m: RoundMode m is legal
inline constexpr RoundModeSet RoundModeBit(RoundMode m) {
  return static_cast<RoundModeSet>(1u << static_cast<unsigned>(m));
}

// The round modes the chip accepts for src -> dst; 0 when it has no such cast.
RoundModeSet CastModes(DType src, DType dst);
// `v` rounded once to the float type `dst` in `mode` (overflow as IEEE's roundings give it).
uint64_t RoundToFloatBits(long double v, DType dst, RoundMode mode);
std::string_view RoundModeName(RoundMode m);  // "CAST_RINT"
// "CAST_RINT, CAST_FLOOR, ..." for messages.
std::string RoundModeList(RoundModeSet set);

// One element: `bits` of type src (in the low bits) converted to dst's bits. Only for pairs
// CastModes admits, with a mode it admits.
uint64_t CastBits(uint64_t bits, DType src, DType dst, RoundMode mode);

}  // namespace aicore::sim
