// The launch result's derived texts (see launch_result.h).
#include "sim/core/launch_result.h"

namespace aicore::sim {

std::string CheckSummary::Text() const {
  auto count = [](uint32_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  return count(races, "race", "races") + ", " + count(errors, "error", "errors") + ", " +
         count(warnings, "warning", "warnings");
}

bool CheckSummary::Fails() const {
  switch (level) {
    case CheckLevel::kStrict:
      return races + errors > 0;
    case CheckLevel::kStrictAll:
      return races + errors + warnings > 0;
    default:
      return false;
  }
}

}  // namespace aicore::sim
