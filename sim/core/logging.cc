// Logger registry for the simulator (see logging.h).
#include "sim/core/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>

namespace aicore::sim {
namespace {

spdlog::level::level_enum LevelFromEnv() {
  const char* env = std::getenv("AICORE_SIM_LOG");
  if (env == nullptr || *env == '\0') return spdlog::level::warn;
  spdlog::level::level_enum level = spdlog::level::from_str(env);
  // from_str maps unknown names to "off"; an unknown name should not silence warnings.
  if (level == spdlog::level::off && std::string(env) != "off") return spdlog::level::warn;
  return level;
}

}  // namespace

std::shared_ptr<spdlog::logger> GetLogger(const std::string& name) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (auto existing = spdlog::get(name)) return existing;
  auto logger = spdlog::stderr_color_mt(name);
  logger->set_level(LevelFromEnv());
  return logger;
}

}  // namespace aicore::sim
