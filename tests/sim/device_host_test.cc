// The launch path the hosts share: DeviceHost runs a kernel through the program cache and returns
// a report that carries the resolved config and its hash, the same as the bridge computes.
#include "sim/host/device_host.h"

#include <gtest/gtest.h>

#include "report.pb.h"
#include "sim/bridge/bridge.h"
#include "soc_config.pb.h"
#include "tests/sim/test_util.h"

namespace aicore::sim::testing {
namespace {

TEST(DeviceHost, ReportCarriesTheResolvedConfigAndItsHash) {
  SocConfig config = Config("Ascend910B3");
  DeviceHost host(config);
  ProgramCache programs;
  AddKernelOptions o;
  o.block_len = 512;
  o.tile_len = 256;
  std::string ir = AddKernel(o).SerializeAsString();
  std::vector<uint16_t> ones(512, 0x3C00);
  HostLaunch launch;
  launch.block_dim = 1;
  for (int i = 0; i < 3; ++i) launch.args.push_back(ArgValue::Address(Upload(host.device(), ones)));
  aicore::report::v1::LaunchReport report;
  ASSERT_TRUE(host.Launch(programs, ir, nullptr, launch, &report).ok());
  EXPECT_EQ(report.status(), aicore::report::v1::LaunchReport::OK);
  EXPECT_EQ(report.config().name(), "Ascend910B3");
  EXPECT_EQ(report.config().clock_mhz(), 1800);
  EXPECT_EQ(report.config().gm().hbm_read_bytes_per_cycle(), 915.0);
  EXPECT_EQ(report.config_hash(), ConfigHash(config));
  aicore::config::v1::SocConfig expected;
  ToProto(config, &expected);
  EXPECT_EQ(report.config().SerializeAsString(), expected.SerializeAsString());
  EXPECT_EQ(report.timeline_size(), 0);
  // A second launch of the same bytes is served by the cache.
  ASSERT_TRUE(host.Launch(programs, ir, nullptr, launch, &report).ok());
  EXPECT_EQ(programs.hits(), 1u);
}

TEST(DeviceHost, BadIrIsAnErrorNotAReport) {
  DeviceHost host(Config());
  ProgramCache programs;
  aicore::report::v1::LaunchReport report;
  HostLaunch launch;
  launch.block_dim = 1;
  Status s = host.Launch(programs, "not a kernel", nullptr, launch, &report);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(report.has_config());
}

}  // namespace
}  // namespace aicore::sim::testing
