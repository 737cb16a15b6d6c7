// The pipes of an AI Core (values are this model's array indices, not Ascend's PipeID numbers;
// the decoder maps PipeID -> PipeId). AIV cores use S, V, MTE2, MTE3; AIC cores S, M, MTE1,
// MTE2, MTE3, FIX.
#pragma once

#include <cstdint>
#include <string_view>

namespace aicore::sim {

enum class PipeId : uint8_t {
  kS = 0,  // the scalar unit itself: S-side flags and barriers execute in program order
  kV = 1,
  kM = 2,
  kMte1 = 3,
  kMte2 = 4,
  kMte3 = 5,
  kFix = 6,
  kAll = 7,  // only as a pipe_barrier operand
};
inline constexpr int kNumPipes = 7;  // S..FIX; kAll is not a pipe

inline constexpr std::string_view PipeName(PipeId p) {
  constexpr std::string_view kNames[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX", "ALL"};
  auto i = static_cast<uint32_t>(p);
  return i < 8 ? kNames[i] : "?";
}

inline constexpr int PipeIndex(PipeId p) { return static_cast<int>(p); }

}  // namespace aicore::sim
