// The simulator's logging facade over spdlog: loggers are named by hierarchy ("sim.core3.mte2")
// and the level comes from $AICORE_SIM_LOG (trace/debug/info/warn/error/off, default warn), so
// debug logging in hot paths costs one level check when off.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace aicore::sim {

// Returns the logger `name`, creating it (stderr sink, level from $AICORE_SIM_LOG) on first use.
std::shared_ptr<spdlog::logger> GetLogger(const std::string& name);

}  // namespace aicore::sim
