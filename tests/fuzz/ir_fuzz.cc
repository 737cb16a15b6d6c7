// libFuzzer target on the IR decoder and validator (docs/fuzzing.md): bytes -> aicore.ir.v1.Kernel
// -> validation and decoding, through the program cache the embedded runtime and the daemon
// launch from (sim/host/program_cache.h). Every input must come back as a program or as an
// INVALID_ARGUMENT with a bounded message; a crash, a sanitizer report, a leak or any other
// status is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/host/program_cache.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using aicore::fuzz::CodeName;
using aicore::fuzz::Finding;
using aicore::fuzz::kMaxErrorMessageBytes;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  aicore::fuzz::QuietLogs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // A fresh cache per input: each input is decoded, never served from an earlier one's entry.
  aicore::sim::ProgramCache programs(/*capacity=*/1);
  // The embedded runtime's path: the cache parses the bytes itself.
  auto program = programs.Get(bytes, /*parsed=*/nullptr);
  if (!program.ok()) {
    const aicore::sim::Status& status = program.status();
    if (status.code() != aicore::sim::StatusCode::kInvalidArgument) {
      Finding(std::string("a kernel was refused with ") + CodeName(status.code()) +
              " instead of INVALID_ARGUMENT: " + status.message().substr(0, 512));
    }
    if (status.message().empty() || status.message().size() > kMaxErrorMessageBytes) {
      Finding("a rejection message is " + std::to_string(status.message().size()) +
              " bytes, outside 1.." + std::to_string(kMaxErrorMessageBytes) + ": " +
              status.message().substr(0, 512));
    }
    return 0;
  }
  if (*program == nullptr) Finding("the program cache returned ok with a null program");
  // The same bytes again are a hit on the very same program.
  auto again = programs.Get(bytes, nullptr);
  if (!again.ok() || *again != *program || programs.hits() != 1) {
    Finding("a second lookup of an accepted kernel did not return its cached program");
  }
  return 0;
}
