// The client runtime's public headers stand alone: this target sees only runtime/include and the
// generated messages (no repository root, so an include of sim/ or src/ would not compile), and a
// launch through the public API returns a report with the resolved config and its hash.
#include <gtest/gtest.h>

#include "aicore/runtime.h"
#include "kernel.pb.h"
#include "report.pb.h"

namespace {

namespace rt = aicore::runtime;

TEST(RuntimeApi, PublicHeadersAloneLaunchAKernel) {
  std::vector<std::string> platforms = rt::Runtime::ListPlatforms();
  ASSERT_EQ(platforms.size(), 12u);
  auto runtime = rt::Runtime::CreateEmbedded("Ascend910B2");
  ASSERT_TRUE(runtime.ok()) << runtime.status().message();
  aicore::ir::v1::Kernel kernel;  // an empty AIV kernel: launch overhead only
  kernel.set_version(aicore::ir::v1::IR_VERSION_1);
  kernel.set_name("empty");
  auto bytes = (*runtime)->Launch(kernel.SerializeAsString(), 1, {}, 0, rt::LaunchSettings());
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  aicore::report::v1::LaunchReport report;
  ASSERT_TRUE(report.ParseFromString(*bytes));
  EXPECT_EQ(report.status(), aicore::report::v1::LaunchReport::OK);
  EXPECT_EQ(report.config().name(), "Ascend910B2");
  EXPECT_EQ(report.config_hash().size(), 16u);
  // 384 ns + 116 ns for one core at 1800 MHz.
  EXPECT_EQ(report.cycles(), 691u + 209u);
}

TEST(RuntimeApi, ErrorsCarryCodesAndReadingAnErrorValueThrows) {
  auto runtime = rt::Runtime::CreateEmbedded("Ascend310P");
  ASSERT_FALSE(runtime.ok());
  EXPECT_EQ(runtime.status().code(), rt::StatusCode::kInvalidArgument);
  EXPECT_STREQ(rt::StatusCodeName(runtime.status().code()), "INVALID_ARGUMENT");
  EXPECT_THROW(runtime.value(), std::logic_error);
}

}  // namespace
