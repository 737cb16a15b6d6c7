// Small helpers of the decoded program (names and source locations for messages).
#include "sim/isa/program.h"

namespace aicore::sim {

std::string_view MemSpaceName(MemSpace s) {
  constexpr std::string_view kNames[] = {"INVALID", "GM",  "UB", "L1", "L0A",
                                         "L0B",     "L0C", "BT", "FB"};
  auto i = static_cast<uint32_t>(s);
  return i < 9 ? kNames[i] : "INVALID";
}

const std::string& Program::FileName(const Instr& instr) const {
  static const std::string kUnknown = "<unknown>";
  return instr.file < files.size() ? files[instr.file] : kUnknown;
}

std::string Program::Where(const Instr& instr) const {
  return FileName(instr) + ":" + std::to_string(instr.line);
}

}  // namespace aicore::sim
