// Unit tests of the decode-once program cache shared by the daemon and the embedded runtime.
#include "sim/host/program_cache.h"

#include <gtest/gtest.h>

#include "sim/bridge/bridge.h"

namespace aicore::sim {
namespace {

TEST(ProgramCacheTest, DecodesOncePerDistinctKernel) {
  ProgramCache cache(2);
  aicore::ir::v1::Kernel kernel;
  kernel.set_version(aicore::ir::v1::IR_VERSION_1);
  kernel.set_name("empty");
  const std::string bytes = kernel.SerializeAsString();
  auto first = cache.Get(bytes, nullptr);
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto second = cache.Get(bytes, &kernel);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(first->get(), second->get());  // the same decoded program
  EXPECT_EQ(cache.misses(), 1u);
  EXPECT_EQ(cache.hits(), 1u);
}

TEST(ProgramCacheTest, EvictsLeastRecentlyUsed) {
  ProgramCache cache(2);
  std::vector<std::string> kernels;
  for (const char* name : {"a", "b", "c"}) {
    aicore::ir::v1::Kernel kernel;
    kernel.set_version(aicore::ir::v1::IR_VERSION_1);
    kernel.set_name(name);
    kernels.push_back(kernel.SerializeAsString());
    ASSERT_TRUE(cache.Get(kernels.back(), nullptr).ok());
  }
  EXPECT_EQ(cache.misses(), 3u);
  ASSERT_TRUE(cache.Get(kernels[2], nullptr).ok());  // still cached
  EXPECT_EQ(cache.hits(), 1u);
  ASSERT_TRUE(cache.Get(kernels[0], nullptr).ok());  // evicted: decoded again
  EXPECT_EQ(cache.misses(), 4u);
}

TEST(ProgramCacheTest, ErrorsAreReturnedAndNotCached) {
  ProgramCache cache;
  auto garbage = cache.Get("\xff\xff\xff", nullptr);
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidArgument);
  aicore::ir::v1::Kernel bad;  // version unset
  auto invalid = cache.Get(bad.SerializeAsString(), nullptr);
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(cache.hits(), 0u);
}

}  // namespace
}  // namespace aicore::sim
