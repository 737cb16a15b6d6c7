// Small helpers of the decoded program (names and source locations for messages).
#include "sim/isa/program.h"

#include <iterator>

namespace aicore::sim {
namespace {

template <typename T>
size_t VectorBytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

size_t StringBytes(const std::string& s) { return s.capacity() + 1; }

}  // namespace

size_t Program::ApproxBytes() const {
  size_t bytes = sizeof(Program) + StringBytes(name);
  bytes += VectorBytes(params) + VectorBytes(files) + VectorBytes(value_dtypes);
  for (const ParamInfo& p : params) bytes += StringBytes(p.name);
  for (const std::string& f : files) bytes += StringBytes(f);
  bytes += VectorBytes(regions);
  for (const Region& r : regions) bytes += VectorBytes(r.ops);
  bytes += VectorBytes(mem_ops) + VectorBytes(move_ops) + VectorBytes(cube_ops);
  bytes += VectorBytes(fors) + VectorBytes(ifs) + VectorBytes(whiles) + VectorBytes(slot_lists);
  bytes += VectorBytes(queues) + VectorBytes(pools) + VectorBytes(fwk_ops);
  bytes += VectorBytes(debug_ops) + VectorBytes(static_tensors);
  for (const StaticTensorInfo& t : static_tensors) bytes += StringBytes(t.name);
  for (const DebugInfo& d : debug_ops) {
    bytes += VectorBytes(d.pieces);
    for (const FormatPiece& piece : d.pieces)
      bytes += StringBytes(piece.literal) + StringBytes(piece.spec);
  }
  return bytes;
}

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
