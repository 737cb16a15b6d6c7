// Unit tests of where a daemon may write a client's trace: below --trace-root, with ".." and
// symlinks resolved before the check (issue 21: a link inside the root once let traces out).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "src/launch_execution.h"

namespace aicore::daemon::detail {
namespace {

namespace fs = std::filesystem;

class TraceDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("trace_dir_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_ / "root" / "runs");
    fs::create_directories(base_ / "outside");
    root_ = (base_ / "root").string();
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path base_;
  std::string root_;
};

TEST_F(TraceDirTest, RelativePathsLandBelowTheRoot) {
  std::string out;
  ASSERT_TRUE(ResolveTraceDir(root_, "runs/new/deeper", &out).ok());
  EXPECT_EQ(fs::path(out), fs::weakly_canonical(base_ / "root" / "runs" / "new" / "deeper"));
}

TEST_F(TraceDirTest, DotDotAndAbsolutePathsOutsideAreRefused) {
  std::string out;
  EXPECT_EQ(ResolveTraceDir(root_, "../outside", &out).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ResolveTraceDir(root_, (base_ / "outside").string(), &out).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(ResolveTraceDir("", "runs", &out).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(TraceDirTest, ASymlinkInTheRootIsNotFollowedOut) {
  fs::create_directory_symlink(base_ / "outside", base_ / "root" / "escape");
  std::string out;
  grpc::Status status = ResolveTraceDir(root_, "escape/trace", &out);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << out;
  EXPECT_NE(status.error_message().find("symlinks resolved"), std::string::npos)
      << status.error_message();
  // A link that stays inside is fine.
  fs::create_directory_symlink(base_ / "root" / "runs", base_ / "root" / "alias");
  EXPECT_TRUE(ResolveTraceDir(root_, "alias/trace", &out).ok());
}

}  // namespace
}  // namespace aicore::daemon::detail
