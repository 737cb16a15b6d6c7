// InvariantViolation's text (see invariant.h).
#include "sim/core/invariant.h"

#include <string_view>

namespace aicore::sim {

void InvariantViolation::Compose() {
  what_ = "simulator bug (not a fault of your kernel): invariant `" + condition_ + "` failed at " +
          where_;
  if (!message_.empty()) what_ += ": " + message_;
  if (!unit_.empty()) what_ += "; while " + unit_;
  what_ += ". Please report it with the kernel that triggers it.";
}

void InvariantFailed(const char* condition, std::string message, std::source_location loc) {
  // The build maps the source root away (-fmacro-prefix-map), so the file is "sim/pipe/pipe.cc".
  throw InvariantViolation(condition,
                           std::string(loc.file_name()) + ":" + std::to_string(loc.line()),
                           std::move(message));
}

}  // namespace aicore::sim
