// The one place where the simulator meets protobuf: decode and validate kernel IR, load SoC
// configs, and turn launch results into report messages. Everything behind this header works on
// plain C++ structs (CONVENTIONS: the model never includes generated headers). The messages are
// only declared here: callers that build or read them include the generated headers themselves.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/launch_result.h"
#include "sim/core/status.h"

namespace aicore::ir::v1 {
class Kernel;
}
namespace aicore::report::v1 {
class LaunchReport;
}
namespace aicore::config::v1 {
class SocConfig;
}

namespace aicore::sim {

class Program;

// Validates every field of `kernel` (version, SSA ids defined before use, dtypes, enums, event
// ids ...) and decodes it into the compact form the model executes. Errors are InvalidArgument
// naming the op index, the field, the source line and the reason.
StatusOr<std::shared_ptr<const Program>> DecodeKernel(const aicore::ir::v1::Kernel& kernel);

// Platform names with a built-in config ("Ascend910B1", ...), in a stable order.
std::vector<std::string> ListPlatforms();

// The resolved config of `platform` (empty = "Ascend910B1"): configs/<platform>.textproto over its
// preset (both compiled into the library), or $AICORE_SIM_CONFIG_DIR/<platform>.textproto over
// $AICORE_SIM_CONFIG_DIR/presets/<preset>.textproto (or the built-in preset) when that variable is
// set. Unknown platform or preset: NotFound listing the known ones; malformed file, unknown field,
// a figure set nowhere, or a bad value: InvalidArgument naming the file and the field.
// `overrides`, when not empty, is a third layer over the platform file in the same text format
// (figures only: no name or preset, at most 64 KiB): a session's trial of other figures
// (docs/timing-model.md "Config overrides"); errors name "config overrides" and the field.
StatusOr<SocConfig> LoadSocConfig(const std::string& platform, const std::string& overrides = "");
// The same for the text of one platform file (aicore.config.v1.SocDescription); `origin` names it
// in messages. A file without `preset` must give every figure itself.
StatusOr<SocConfig> ParseSocConfig(const std::string& textproto, const std::string& origin,
                                   const std::string& overrides = "");
void ToProto(const SocConfig& config, aicore::config::v1::SocConfig* out);
SocConfig FromProto(const aicore::config::v1::SocConfig& config);
// 16 hex digits identifying the resolved figures of `config` (FNV-1a 64 of its deterministic
// serialization): equal configs, equal hashes, whichever host resolved them.
std::string ConfigHash(const SocConfig& config);

void ToProto(const LaunchResult& result, aicore::report::v1::LaunchReport* out);
// The inverse of ToProto, for hosts that hold only a report (the remote runtime's trace writer).
LaunchResult FromProto(const aicore::report::v1::LaunchReport& report);

}  // namespace aicore::sim
