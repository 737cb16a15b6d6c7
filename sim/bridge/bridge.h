// The one place where the simulator meets protobuf: decode and validate kernel IR, load SoC
// configs, and turn launch results into report messages. Everything behind this header works on
// plain C++ structs (CONVENTIONS: the model never includes generated headers).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernel.pb.h"
#include "report.pb.h"
#include "sim/core/config.h"
#include "sim/core/status.h"
#include "sim/soc/device.h"
#include "soc_config.pb.h"

namespace aicore::sim {

// Validates every field of `kernel` (version, SSA ids defined before use, dtypes, enums, event
// ids ...) and decodes it into the compact form the model executes. Errors are InvalidArgument
// naming the op index, the field, the source line and the reason.
StatusOr<std::shared_ptr<const Program>> DecodeKernel(const aicore::ir::v1::Kernel& kernel);

// Platform names with a built-in config ("Ascend910B1", ...), in a stable order.
std::vector<std::string> ListPlatforms();

// The config of `platform` (empty = "Ascend910B1"): the textproto compiled into the library, or
// $AICORE_SIM_CONFIG_DIR/<platform>.textproto when that variable is set. Unknown platform:
// NotFound listing the known ones; malformed or incomplete file: InvalidArgument naming the field.
StatusOr<SocConfig> LoadSocConfig(const std::string& platform);
StatusOr<SocConfig> ParseSocConfig(const std::string& textproto, const std::string& origin);
void ToProto(const SocConfig& config, aicore::config::v1::SocConfig* out);

void ToProto(const LaunchResult& result, aicore::report::v1::LaunchReport* out);
// The inverse of ToProto, for hosts that hold only a report (the remote runtime's trace writer).
LaunchResult FromProto(const aicore::report::v1::LaunchReport& report);

}  // namespace aicore::sim
