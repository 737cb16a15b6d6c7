// Diagnostic construction and collection (see diagnostics.h).
#include "sim/check/diagnostics.h"

#include "sim/isa/opcode.h"

namespace aicore::sim {

Diagnostic DiagnosticSink::Make(Diagnostic::Kind kind, Diagnostic::Severity severity,
                                const Site& site, std::string message) const {
  Diagnostic d;
  d.kind = kind;
  d.severity = severity;
  d.message = std::move(message);
  d.core = static_cast<int32_t>(site.core);
  d.pipe = std::string(PipeName(site.pipe));
  d.cycle = site.cycle.value();
  if (site.instr != nullptr) {
    d.op = std::string(Info(site.instr->opcode).mnemonic);
    d.location.file = program_.FileName(*site.instr);
    d.location.line = site.instr->line;
    d.location.column = site.instr->column;
  }
  return d;
}

std::string DiagnosticSink::Prefix(const Site& site) const {
  std::string s = "core " + std::to_string(site.core) + " (block " + std::to_string(site.block) +
                  ") PIPE_" + std::string(PipeName(site.pipe));
  if (site.instr != nullptr) {
    s +=
        " " + std::string(Info(site.instr->opcode).mnemonic) + " at " + program_.Where(*site.instr);
  }
  s += ", cycle " + std::to_string(site.cycle.value());
  return s;
}

void DiagnosticSink::Error(Diagnostic d) {
  has_error_ = true;
  diagnostics_.push_back(std::move(d));
}

void DiagnosticSink::Warn(Diagnostic d, const Instr* instr) {
  if (instr != nullptr && !warned_.insert({static_cast<int>(d.kind), instr}).second) return;
  diagnostics_.push_back(std::move(d));
}

}  // namespace aicore::sim
