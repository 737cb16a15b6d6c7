// The launch result's derived texts (see launch_result.h).
#include "sim/core/launch_result.h"

namespace aicore::sim {
namespace {

constexpr std::string_view kLevelNames[] = {"off", "warn", "strict", "strict-all"};

// By Diagnostic::Kind value: aicore.report.v1.Diagnostic.Kind's names.
constexpr std::string_view kKindNames[] = {"KIND_INVALID",       "DEADLOCK",
                                           "OUT_OF_BOUNDS",      "GM_OUT_OF_BOUNDS",
                                           "GM_OVERRUN",         "INVALID_OPERAND",
                                           "CYCLE_LIMIT",        "FLAG_OVERFLOW",
                                           "UNMATCHED_FLAG",     "RACE",
                                           "GM_SHARED_WRITE",    "UNINITIALIZED_READ",
                                           "UNALLOCATED_BUFFER", "TRAP",
                                           "MEMORY_WATCH",       "TIMING_ONLY_READ"};

}  // namespace

std::string_view DiagnosticKindName(Diagnostic::Kind kind) {
  size_t i = static_cast<size_t>(kind);
  return i < std::size(kKindNames) ? kKindNames[i] : kKindNames[0];
}

std::string_view SeverityName(Diagnostic::Severity severity) {
  switch (severity) {
    case Diagnostic::Severity::kWarning:
      return "WARNING";
    case Diagnostic::Severity::kError:
      return "ERROR";
    case Diagnostic::Severity::kNote:
      return "NOTE";
  }
  return "SEVERITY_INVALID";
}

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
  std::string text = count(races, "race", "races") + ", " + count(errors, "error", "errors") +
                     ", " + count(warnings, "warning", "warnings");
  if (notes > 0) text += ", " + count(notes, "note", "notes");
  return text;
}

bool CheckSummary::Fails() const {
  switch (level) {
    case CheckLevel::kStrict:
      return races + errors > 0;
    case CheckLevel::kStrictAll:
      return races + errors + warnings + notes > 0;
    default:
      return false;
  }
}

std::string BoundPipe(const std::vector<PipeStats>& pipes) {
  const PipeStats* bound = nullptr;
  for (const PipeStats& p : pipes) {
    if (p.busy_cycles > 0 && (bound == nullptr || p.busy_cycles > bound->busy_cycles)) bound = &p;
  }
  return bound == nullptr ? std::string() : bound->pipe;
}

}  // namespace aicore::sim
