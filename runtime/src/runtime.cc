// Transport selection for Runtime::Create: remote when AICORE_SIM_ADDRESS names a daemon,
// embedded otherwise. Kept apart from both transports so neither depends on the other.
#include "aicore/runtime.h"

#include <cstdlib>
#include <string>

namespace aicore::runtime {

StatusOr<std::unique_ptr<Runtime>> Runtime::Create(const std::string& platform) {
  const char* address = std::getenv("AICORE_SIM_ADDRESS");
  if (address != nullptr && *address != '\0') return CreateRemote(platform, address);
  return CreateEmbedded(platform);
}

}  // namespace aicore::runtime
