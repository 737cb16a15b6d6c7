// Simulator invariants: SIM_CHECK and StatusOr misuse raise InvariantViolation, whose text says
// it is a simulator bug, where the check stands, and (once annotated) which unit was running.
#include "sim/core/invariant.h"

#include <gtest/gtest.h>

#include "sim/core/status.h"

namespace aicore::sim {
namespace {

TEST(Invariant, CheckThrowsWithConditionPlaceAndMessage) {
  int queued = 3;
  try {
    SIM_CHECK(queued == 0, "queue holds " + std::to_string(queued) + " instructions");
    FAIL() << "SIM_CHECK did not throw";
  } catch (const InvariantViolation& bug) {
    std::string what = bug.what();
    EXPECT_NE(what.find("simulator bug (not a fault of your kernel)"), std::string::npos) << what;
    EXPECT_NE(what.find("`queued == 0`"), std::string::npos) << what;
    EXPECT_NE(what.find("tests/sim/invariant_test.cc:"), std::string::npos) << what;
    EXPECT_NE(what.find("queue holds 3 instructions"), std::string::npos) << what;
    EXPECT_EQ(bug.where().find('/'), 5u) << "path relative to the repository: " << bug.where();
  }
}

TEST(Invariant, PassingCheckDoesNotBuildItsMessage) {
  int built = 0;
  auto message = [&] {
    ++built;
    return std::string("never");
  };
  SIM_CHECK(1 + 1 == 2, message());
  EXPECT_EQ(built, 0);
}

TEST(Invariant, UnitIsAddedOnce) {
  InvariantViolation bug("x", "sim/a.cc:1", "m");
  bug.set_unit("core 3 (block 3) PIPE_V starting add at add.py:12");
  bug.set_unit("core 0 outer");
  std::string what = bug.what();
  EXPECT_NE(what.find("while core 3 (block 3) PIPE_V starting add at add.py:12"), std::string::npos)
      << what;
  EXPECT_EQ(what.find("outer"), std::string::npos) << what;
}

TEST(Invariant, StatusOrValueOfAnErrorIsABugNotUndefinedBehaviour) {
  StatusOr<int> failed = InvalidArgument("bad field");
  EXPECT_THROW(failed.value(), InvariantViolation);
  EXPECT_THROW(*failed, InvariantViolation);
  try {
    (void)failed.value();
  } catch (const InvariantViolation& bug) {
    EXPECT_NE(std::string(bug.what()).find("bad field"), std::string::npos) << bug.what();
    EXPECT_NE(bug.where().find("invariant_test.cc"), std::string::npos) << bug.where();
  }
  StatusOr<int> fine = 7;
  EXPECT_EQ(fine.value(), 7);
}

}  // namespace
}  // namespace aicore::sim
