// The global event heap orders by (cycle, phase, core, unit, insertion) so ties are resolved the
// same way on every run: writes (end events) before flag visibility before starts.
#include "sim/core/event_queue.h"

#include <gtest/gtest.h>

#include "sim/core/cycle.h"

namespace aicore::sim {
namespace {

TEST(EventQueue, OrdersByCycleThenPhaseThenCoreThenUnitThenInsertion) {
  EventQueue q;
  q.Push(Cycle(5), EventKind::kStart, 0, 1, 1);
  q.Push(Cycle(3), EventKind::kScalar, 2, 0, 2);
  q.Push(Cycle(5), EventKind::kEnd, 1, 4, 3);
  q.Push(Cycle(5), EventKind::kStart, 0, 1, 4);
  q.Push(Cycle(5), EventKind::kFlagVisible, 0, 0, 5);
  q.Push(Cycle(5), EventKind::kEnd, 0, 5, 6);
  q.Push(Cycle(5), EventKind::kEnd, 0, 4, 7);
  std::vector<uint64_t> order;
  while (!q.empty()) order.push_back(q.Pop().payload);
  EXPECT_EQ(order, (std::vector<uint64_t>{2, 7, 6, 3, 5, 1, 4}));
}

TEST(EventQueue, ManyEventsComeOutSorted) {
  EventQueue q;
  uint64_t x = 12345;
  for (int i = 0; i < 10000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    q.Push(Cycle(x >> 50), static_cast<EventKind>((x >> 20) % 4), (x >> 30) % 8, (x >> 40) % 7, i);
  }
  Event prev = q.Pop();
  while (!q.empty()) {
    Event e = q.Pop();
    ASSERT_TRUE(EventQueue::Before(prev, e));
    prev = e;
  }
}

TEST(Cycle, ArithmeticAndRounding) {
  EXPECT_EQ((Cycle(5) + Cycle(3)).value(), 8u);
  EXPECT_EQ((Cycle(3) - Cycle(5)).value(), 0u);    // saturates
  EXPECT_EQ(CeilCycles(100 * 0.91).value(), 91u);  // binary noise does not cost a cycle
  EXPECT_EQ(CeilCycles(91.2).value(), 92u);
  EXPECT_EQ(CeilCycles(0).value(), 0u);
  EXPECT_EQ(CeilCycles(-3).value(), 0u);
}

}  // namespace
}  // namespace aicore::sim
