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
  // The build maps the source root away (-fmacro-prefix-map), so the file is "sim/pipe/pipe.cc";
  // ccache with base_dir compiles from relative paths ("../../sim/..."): drop those steps too.
  std::string_view file = loc.file_name();
  while (file.starts_with("../") || file.starts_with("./")) file.remove_prefix(file.find('/') + 1);
  throw InvariantViolation(condition, std::string(file) + ":" + std::to_string(loc.line()),
                           std::move(message));
}

}  // namespace aicore::sim
