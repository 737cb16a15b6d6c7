// The launch result's derived texts (see launch_result.h).
#include "sim/core/launch_result.h"

namespace aicore::sim {
namespace {

constexpr std::string_view kLevelNames[] = {"off", "warn", "strict", "strict-all"};

}  // namespace

std::string_view CheckLevelName(CheckLevel level) { return kLevelNames[static_cast<int>(level)]; }

bool ParseCheckLevel(std::string_view text, CheckLevel* out) {
  for (int i = 0; i < 4; ++i) {
    if (text == kLevelNames[i]) {
      *out = static_cast<CheckLevel>(i);
      return true;
    }
  }
  return false;
}

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
