// The run map of byte states (sim/mem/state_runs.h) against a byte-per-byte model: after random
// assignments every query answers as the model does, and equal neighbours are merged.
#include "sim/mem/state_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace aicore::sim {
namespace {

TEST(StateRuns, MatchesAByteModelUnderRandomAssignments) {
  constexpr uint64_t kSize = 80;
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    StateRuns runs;
    runs.Reset(kSize, 2);
    std::vector<uint8_t> model(kSize, 2);
    for (int step = 0; step < 30; ++step) {
      uint64_t lo = rng() % (kSize + 8), hi = lo + rng() % 40;  // may run past the end
      auto state = static_cast<uint8_t>(rng() % 3);
      runs.Assign(lo, hi, state);
      for (uint64_t i = lo; i < std::min(hi, kSize); ++i) model[i] = state;
      size_t expected_runs = 0;
      for (uint64_t i = 0; i < kSize; ++i) expected_runs += i == 0 || model[i] != model[i - 1];
      ASSERT_EQ(runs.runs(), expected_runs) << "trial " << trial << " step " << step;
      for (int q = 0; q < 20; ++q) {
        uint64_t a = rng() % (kSize + 4), b = a + rng() % 30;
        auto s = static_cast<uint8_t>(rng() % 3);
        bool all = true, any = false;
        for (uint64_t i = a; i < std::min(b, kSize); ++i) {
          all = all && model[i] == s;
          any = any || model[i] == s;
        }
        ASSERT_EQ(runs.All(a, b, s), all) << a << " " << b << " " << int(s);
        ASSERT_EQ(runs.Any(a, b, s), any) << a << " " << b << " " << int(s);
      }
    }
  }
}

}  // namespace
}  // namespace aicore::sim
