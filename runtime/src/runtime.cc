// Transport selection for Runtime::Create: remote when AICORE_SIM_ADDRESS names a daemon,
// embedded otherwise. Kept apart from both transports so neither depends on the other.
#include "aicore/runtime.h"

#include <cstdlib>
#include <string>

#include "aicore/version.h"
#include "runtime/src/check_level.h"
#include "sim/core/launch_result.h"

namespace aicore::runtime {

std::string Version() { return AICORE_SIM_VERSION; }

bool ParseCheckLevel(const std::string& text, CheckLevel* out) {
  sim::CheckLevel level;
  if (!sim::ParseCheckLevel(text, &level)) return false;
  *out = static_cast<CheckLevel>(static_cast<int>(level) + 1);  // kDefault comes first
  return true;
}

StatusOr<CheckLevel> ResolveCheckLevel(CheckLevel requested) {
  if (requested != CheckLevel::kDefault) return requested;
  const char* env = std::getenv("AICORE_SIM_CHECK");
  if (env == nullptr || *env == '\0') return CheckLevel::kDefault;
  CheckLevel level;
  if (!ParseCheckLevel(env, &level)) {
    return Status(StatusCode::kInvalidArgument,
                  std::string("AICORE_SIM_CHECK=") + env +
                      " is not a check level: use off, warn, strict or strict-all");
  }
  return level;
}

StatusOr<std::unique_ptr<Runtime>> Runtime::Create(const std::string& platform,
                                                   const std::string& config_overrides) {
  const char* address = std::getenv("AICORE_SIM_ADDRESS");
  if (address != nullptr && *address != '\0') {
    return CreateRemote(platform, address, config_overrides);
  }
  return CreateEmbedded(platform, config_overrides);
}

}  // namespace aicore::runtime
