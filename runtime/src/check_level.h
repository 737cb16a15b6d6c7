// The check level a launch runs with, for both transports: the setting, else AICORE_SIM_CHECK,
// else kDefault (the transport decides: embedded warn, remote the daemon's --check).
#pragma once

#include "aicore/runtime.h"

namespace aicore::runtime {

// InvalidArgument when AICORE_SIM_CHECK holds something other than a level.
StatusOr<CheckLevel> ResolveCheckLevel(CheckLevel requested);

}  // namespace aicore::runtime
