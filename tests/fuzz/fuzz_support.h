// What both libFuzzer targets share (docs/fuzzing.md): quiet simulator logs, the rule that names
// a finding, and the bound on what a client may be sent back.
#pragma once

#include <google/protobuf/stubs/logging.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/core/status.h"

namespace aicore::fuzz {

// An error message longer than this would not fit the client's gRPC metadata (8 KiB by
// default), so the client would see RESOURCE_EXHAUSTED instead of the daemon's reason.
inline constexpr size_t kMaxErrorMessageBytes = 4096;

// Logs stay off: a fuzzer makes thousands of rejections a second (protobuf logs each string that
// is not UTF-8), and nothing in them is a finding. Called before the first simulator logger
// exists (they read AICORE_SIM_LOG once).
inline void QuietLogs() {
  setenv("AICORE_SIM_LOG", "off", /*overwrite=*/1);
  google::protobuf::SetLogHandler(nullptr);
}

// A finding: prints why and aborts, so libFuzzer saves the input as crash-<sha1>.
[[noreturn]] inline void Finding(const std::string& what) {
  std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

inline const char* CodeName(sim::StatusCode code) {
  switch (code) {
    case sim::StatusCode::kOk:
      return "OK";
    case sim::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case sim::StatusCode::kNotFound:
      return "NOT_FOUND";
    case sim::StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case sim::StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case sim::StatusCode::kInternal:
      return "INTERNAL";
  }
  return "UNKNOWN";
}

}  // namespace aicore::fuzz
