// The checkers' shadow map (sim/core/interval_map.h) against a byte-per-byte model: after any
// sequence of visits every byte holds what the model says, each visit sees its bytes exactly once
// in address order, and neighbours left equal are merged (a segment per maximal run of equal
// touched bytes, within the merged span of each visit).
#include "sim/core/interval_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace aicore::sim {
namespace {

constexpr uint64_t kBytes = 96;

TEST(IntervalMap, MatchesAByteModelUnderRandomVisits) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    IntervalMap<int> map;
    std::vector<std::optional<int>> model(kBytes);
    for (int step = 0; step < 40; ++step) {
      uint64_t lo = rng() % kBytes;
      uint64_t hi = lo + rng() % (kBytes - lo + 1);
      // Values from a small set, so that neighbours often become equal and must merge.
      int add = static_cast<int>(rng() % 3);
      bool overwrite = rng() % 2 == 0;
      uint64_t next = lo;
      map.Visit(lo, hi, [&](uint64_t a, uint64_t b, int& v) {
        ASSERT_EQ(a, next) << "pieces come in address order, each byte once";
        ASSERT_LT(a, b);
        ASSERT_LE(b, hi);
        next = b;
        for (uint64_t i = a; i < b; ++i) ASSERT_EQ(model[i].value_or(0), v) << "byte " << i;
        v = overwrite ? add : v + add;
      });
      if (lo < hi) ASSERT_EQ(next, hi);
      for (uint64_t i = lo; i < hi; ++i) {
        model[i] = overwrite ? add : model[i].value_or(0) + add;
      }
      std::vector<std::optional<int>> seen(kBytes);
      uint64_t last_hi = UINT64_MAX;
      int last_value = 0;
      map.ForEach(0, kBytes, [&](uint64_t a, uint64_t b, const int& v) {
        for (uint64_t i = a; i < b; ++i) seen[i] = v;
        // Merged after every visit: touching neighbours never hold equal values.
        EXPECT_FALSE(a == last_hi && v == last_value) << "unmerged at " << a;
        last_hi = b;
        last_value = v;
      });
      ASSERT_EQ(seen, model) << "trial " << trial << " step " << step;
    }
    // Merged everywhere once UpdateAll has run: one segment per run of equal touched bytes.
    map.UpdateAll([](int&) {});
    size_t runs = 0;
    for (uint64_t i = 0; i < kBytes; ++i) {
      if (model[i] && (i == 0 || model[i - 1] != model[i])) ++runs;
    }
    EXPECT_EQ(map.size(), runs) << "trial " << trial;
  }
}

TEST(IntervalMap, AVisitOfExistingBoundsSplitsNothing) {
  IntervalMap<int> map;
  map.Visit(0, 64, [](uint64_t, uint64_t, int& v) { v = 1; });
  map.Visit(64, 128, [](uint64_t, uint64_t, int& v) { v = 2; });
  ASSERT_EQ(map.size(), 2u);
  map.Visit(0, 64, [](uint64_t, uint64_t, int& v) { v = 3; });
  EXPECT_EQ(map.size(), 2u);
  map.Visit(16, 32, [](uint64_t, uint64_t, int& v) { v = 2; });  // splits the first in three
  EXPECT_EQ(map.size(), 4u);
  map.Visit(32, 64, [](uint64_t, uint64_t, int& v) { v = 2; });  // merges with [16, 32), [64, 128)
  EXPECT_EQ(map.size(), 2u);
}

// A strided visit (VisitStrided, UpdateStrided) is one Visit per piece: the same calls in the
// same order, the same map after (values and segments), whatever the map held before, including
// visits that change nothing.
TEST(IntervalMap, AStridedVisitIsOneVisitPerPiece) {
  std::mt19937_64 rng(5);
  struct Call {
    uint64_t a, b;
    int v;
    bool operator==(const Call&) const = default;
  };
  auto contents = [](const IntervalMap<int>& m) {
    std::vector<Call> out;
    m.ForEach(0, UINT64_MAX, [&](uint64_t a, uint64_t b, const int& v) {
      out.push_back({a, b, v});
    });
    return out;
  };
  for (int trial = 0; trial < 300; ++trial) {
    IntervalMap<int> strided, single;
    for (int step = 0; step < 30; ++step) {
      uint64_t lo = rng() % kBytes;
      uint64_t chunk = 1 + rng() % 12;
      uint64_t pitch = chunk + rng() % 12;
      uint64_t count = rng() % 8;
      uint64_t limit = lo + rng() % (kBytes + 1);
      int set = static_cast<int>(rng() % 3);
      bool keep = rng() % 3 == 0;  // leave values as they are: no split may stay behind
      std::vector<Call> got, want;
      auto fn = [&](uint64_t a, uint64_t b, int& v) {
        got.push_back({a, b, v});
        if (!keep) v = set;
      };
      if (step % 2 == 0) {
        strided.VisitStrided(lo, chunk, pitch, count, limit, fn);
      } else {
        strided.UpdateStrided(lo, chunk, pitch, count, limit, fn);
      }
      for (uint64_t c = 0; c < count; ++c) {
        uint64_t a = lo + c * pitch;
        single.Visit(a, std::min(limit, a + chunk), [&](uint64_t x, uint64_t y, int& v) {
          want.push_back({x, y, v});
          if (!keep) v = set;
        });
      }
      ASSERT_EQ(got, want) << "trial " << trial << " step " << step;
      ASSERT_EQ(contents(strided), contents(single)) << "trial " << trial << " step " << step;
      ASSERT_EQ(strided.size(), single.size());
    }
  }
}

TEST(IntervalMap, AVisitThatChangesNothingSplitsNothing) {
  IntervalMap<int> map;
  map.Visit(0, 128, [](uint64_t, uint64_t, int& v) { v = 1; });
  map.Visit(32, 48, [](uint64_t, uint64_t, int& v) { v = 1; });
  map.VisitStrided(8, 4, 16, 6, 128, [](uint64_t, uint64_t, int& v) { v = 1; });
  EXPECT_EQ(map.size(), 1u);
}

}  // namespace
}  // namespace aicore::sim
