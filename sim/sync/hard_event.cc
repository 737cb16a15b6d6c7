// HardEvent values 0..34 with their pipes, from pyasc enums.py / asc-devkit kernel_event.h as
// summarised in hardware-910b.md 3.3.
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

using P = PipeId;
constexpr HardEventInfo kEvents[kNumHardEvents] = {
    {"MTE2_MTE1", P::kMte2, P::kMte1, false, true},  // 0
    {"MTE1_MTE2", P::kMte1, P::kMte2, false, true},  // 1
    {"MTE1_M", P::kMte1, P::kM, false, true},        // 2
    {"M_MTE1", P::kM, P::kMte1, false, true},        // 3
    {"MTE2_V", P::kMte2, P::kV, true, false},        // 4
    {"V_MTE2", P::kV, P::kMte2, true, false},        // 5
    {"MTE3_V", P::kMte3, P::kV, true, false},        // 6
    {"V_MTE3", P::kV, P::kMte3, true, false},        // 7
    {"M_V", P::kM, P::kV, false, false},             // 8: not valid on C220 (no L0C->UB path)
    {"V_M", P::kV, P::kM, false, false},             // 9
    {"V_V", P::kV, P::kV, true, false},              // 10
    {"MTE3_MTE1", P::kMte3, P::kMte1, false, true},  // 11
    {"MTE1_MTE3", P::kMte1, P::kMte3, false, true},  // 12
    {"MTE1_V", P::kMte1, P::kV, false, false},       // 13
    {"MTE2_M", P::kMte2, P::kM, false, true},        // 14
    {"M_MTE2", P::kM, P::kMte2, false, true},        // 15
    {"V_MTE1", P::kV, P::kMte1, false, false},       // 16
    {"M_FIX", P::kM, P::kFix, false, true},          // 17
    {"FIX_M", P::kFix, P::kM, false, true},          // 18
    {"MTE3_MTE2", P::kMte3, P::kMte2, true, true},   // 19
    {"MTE2_MTE3", P::kMte2, P::kMte3, true, true},   // 20
    {"S_V", P::kS, P::kV, true, false},              // 21
    {"V_S", P::kV, P::kS, true, false},              // 22
    {"S_MTE2", P::kS, P::kMte2, true, true},         // 23
    {"MTE2_S", P::kMte2, P::kS, true, true},         // 24
    {"S_MTE3", P::kS, P::kMte3, true, true},         // 25
    {"MTE3_S", P::kMte3, P::kS, true, true},         // 26
    {"MTE2_FIX", P::kMte2, P::kFix, false, true},    // 27
    {"FIX_MTE2", P::kFix, P::kMte2, false, true},    // 28
    {"FIX_S", P::kFix, P::kS, false, true},          // 29
    {"M_S", P::kM, P::kS, false, true},              // 30
    {"FIX_MTE3", P::kFix, P::kMte3, false, true},    // 31
    {"MTE1_FIX", P::kMte1, P::kFix, false, true},    // 32
    {"FIX_MTE1", P::kFix, P::kMte1, false, true},    // 33
    {"FIX_FIX", P::kFix, P::kFix, false, true},      // 34
};

}  // namespace

const HardEventInfo& HardEvent(uint32_t event) {
  return kEvents[event < kNumHardEvents ? event : 0];
}

int HardEventBetween(PipeId src, PipeId dst, CoreType type) {
  for (uint32_t e = 0; e < kNumHardEvents; ++e) {
    if (kEvents[e].src == src && kEvents[e].dst == dst && ValidOn(kEvents[e], type)) {
      return static_cast<int>(e);
    }
  }
  return -1;
}

}  // namespace aicore::sim
