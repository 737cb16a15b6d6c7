// Small helpers of the decoded program (names and source locations for messages).
#include "sim/isa/program.h"

#include <iterator>

namespace aicore::sim {

std::string_view MemSpaceName(MemSpace s) {
  constexpr std::string_view kNames[] = {"INVALID", "GM", "UB", "L1",  "L0A",    "L0B",
                                         "L0C",     "BT", "FB", "SPR", "CMPMASK"};
  auto i = static_cast<uint32_t>(s);
  return i < std::size(kNames) ? kNames[i] : "INVALID";
}

std::string_view FwkKindName(FwkKind k) {
  switch (k) {
    case FwkKind::kPipeInit:
      return "init";
    case FwkKind::kPipeReset:
    case FwkKind::kPoolReset:
      return "reset";
    case FwkKind::kPipeDestroy:
      return "destroy";
    case FwkKind::kInitBuffer:
    case FwkKind::kPoolInitBuffer:
      return "init_buffer";
    case FwkKind::kInitBufPool:
    case FwkKind::kPoolInitBufPool:
      return "init_buf_pool";
    case FwkKind::kAllocTensor:
      return "alloc_tensor";
    case FwkKind::kEnque:
      return "enque";
    case FwkKind::kDeque:
      return "deque";
    case FwkKind::kFreeTensor:
      return "free_tensor";
    case FwkKind::kTbufGet:
      return "get";
    case FwkKind::kVacantInQue:
      return "vacant_in_que";
    case FwkKind::kHasTensorInQue:
      return "has_tensor_in_que";
    case FwkKind::kTensorCountInQue:
      return "get_tensor_count_in_que";
    case FwkKind::kHasIdleBuffer:
      return "has_idle_buffer";
    case FwkKind::kFreeAllEvent:
      return "free_all_event";
    case FwkKind::kAllocEventId:
      return "alloc_event_id";
    case FwkKind::kFetchEventId:
      return "fetch_event_id";
    case FwkKind::kReleaseEventId:
      return "release_event_id";
    case FwkKind::kGetBaseAddr:
      return "get_base_addr";
    case FwkKind::kStackBuffer:
      return "stack_buffer";
  }
  return "?";
}

const std::string& Program::FileName(const Instr& instr) const {
  static const std::string kUnknown = "<unknown>";
  return instr.file < files.size() ? files[instr.file] : kUnknown;
}

std::string Program::Where(const Instr& instr) const {
  return FileName(instr) + ":" + std::to_string(instr.line);
}

}  // namespace aicore::sim
