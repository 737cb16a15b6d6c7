// Collects the diagnostics of one launch. Errors stop the simulation (the chip would not survive
// them); warnings and notes are recorded, deduplicated per (kind, op), and execution continues.
// At the end, the findings of several cores at one place merge into one.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/core/cycle.h"
#include "sim/core/launch_result.h"
#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"

namespace aicore::sim {

// Where a diagnostic happened: enough to name core, block, pipe, op and source line.
struct Site {
  uint32_t core = 0;
  uint32_t block = 0;
  PipeId pipe = PipeId::kS;
  const Instr* instr = nullptr;
  Cycle cycle;
};

// "0x100200f00": how messages write GM addresses.
std::string HexAddress(uint64_t v);
// "UB[0, 1024)" or "GM[0x1000, 0x1400)": local memories by offset, GM by device address. A
// message names its range with this text, so a merged finding can put the hull in its place.
std::string RangeText(std::string_view memory, uint64_t lo, uint64_t hi);
// "core 1's": how a message names the other core of a pair ("core 1's PIPE_MTE3 data_copy at
// ..."), so a merged finding whose pairs name several can say "other cores'" instead.
std::string OtherCoreText(int32_t core);

class DiagnosticSink {
 public:
  explicit DiagnosticSink(const Program& program) : program_(program) {}

  // Builds a diagnostic for `site`; `message` should already say cause and fix.
  Diagnostic Make(Diagnostic::Kind kind, Diagnostic::Severity severity, const Site& site,
                  std::string message) const;
  // "core 3 (block 3) PIPE_MTE2 data_copy at add.py:34" prefix for messages.
  std::string Prefix(const Site& site) const;

  void Error(Diagnostic d);
  // A warning or note, dropped if one of the same kind for the same op (when `instr` is set) was
  // already recorded, so a loop does not repeat one finding thousands of times.
  void Warn(Diagnostic d, const Instr* instr);
  // A finding about a pair of instructions (a race), recorded once per core, other core and pair.
  // It does not stop the launch: the chip computes on, with whatever the timing gave.
  void Pair(Diagnostic d, const Instr* first, const Instr* second);

  // At the end of a launch: merges the findings of several cores at one place (same kind,
  // severity, pipes, ops, lines, race kind and memory; their byte ranges and cores may differ)
  // into one whose message names every core ("cores 0-7 ..."), the hull of their ranges and
  // "other cores'" for several other sides; counts races, errors, warnings and notes into
  // `summary`.
  void Finish(CheckSummary* summary);

  // GM tensors by allocation base, named by the kernel arguments that point into them, so a GM
  // finding can say which tensor it concerns. Several arguments into one allocation: "x, y".
  void NameGmTensor(uint64_t base, const std::string& name);
  const std::string* GmTensorName(uint64_t base) const;

  bool has_error() const { return has_error_; }
  const Program& program() const { return program_; }
  std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  // Finds the parts of `d`'s message that name its range and other core (see MessageSpan) and
  // keeps it.
  void Record(Diagnostic d);

  const Program& program_;
  std::vector<Diagnostic> diagnostics_;
  std::map<uint64_t, std::string> gm_tensors_;
  std::set<std::pair<int, const Instr*>> warned_;
  std::set<std::tuple<uint32_t, int32_t, int, const Instr*, const Instr*>> paired_;
  bool has_error_ = false;
};

}  // namespace aicore::sim
