// Decoding of printf, dump_tensor, trap and the profiling marks (asc-api.md 4.15, 3.10). A printf
// format is parsed and checked against its arguments here, once, so a bad format is an
// INVALID_ARGUMENT naming the op and never reaches a run.
#include "sim/bridge/decode_context.h"
#include "sim/isa/printf_format.h"

namespace aicore::sim {
namespace {

// Bounds of one op, so a hostile IR cannot make the decoder or a run allocate without limit.
constexpr size_t kMaxFormatBytes = 4096;
constexpr int kMaxPrintfArgs = 64;
constexpr int kMaxDumpDims = 8;

}  // namespace

Status DecodeContext::DecodePrintf(const ir::PrintfOp& op, Instr* in) {
  in->opcode = Opcode::kPrintf;
  if (op.format().size() > kMaxFormatBytes) {
    return OpError("format", std::to_string(op.format().size()) + " bytes exceed the limit of " +
                                 std::to_string(kMaxFormatBytes));
  }
  if (op.args_size() > kMaxPrintfArgs) {
    return OpError("args", std::to_string(op.args_size()) + " arguments exceed the limit of " +
                               std::to_string(kMaxPrintfArgs));
  }
  DebugInfo d;
  std::string bad = ParsePrintfFormat(op.format(), &d.pieces);
  if (!bad.empty()) return OpError("format", bad);
  uint32_t wanted = CountConversions(d.pieces);
  if (wanted != static_cast<uint32_t>(op.args_size())) {
    return OpError("args", "the format has " + std::to_string(wanted) + " conversion(s) but " +
                               std::to_string(op.args_size()) + " argument(s) are given");
  }
  for (int i = 0; i < op.args_size(); ++i) {
    DType t;
    if (Status s = Use(op.args(i), "args[" + std::to_string(i) + "]", &t); !s.ok()) return s;
  }
  d.args = AddSlots(op.args());
  in->aux = static_cast<uint32_t>(p_->debug_ops.size());
  p_->debug_ops.push_back(std::move(d));
  return Status::Ok();
}

Status DecodeContext::DecodeDumpTensor(const ir::DumpTensorOp& op, Instr* in) {
  in->opcode = Opcode::kDumpTensor;
  DebugInfo d;
  if (Status s = DecodeTensor(op.tensor(), "tensor", false, &d.tensor); !s.ok()) return s;
  if (Status s = UseInteger(op.desc(), "desc"); !s.ok()) return s;
  if (Status s = UseInteger(op.dump_size(), "dump_size"); !s.ok()) return s;
  if (op.shape_size() > kMaxDumpDims) {
    return OpError("shape", std::to_string(op.shape_size()) + " dims exceed the limit of " +
                                std::to_string(kMaxDumpDims));
  }
  for (int i = 0; i < op.shape_size(); ++i) {
    if (Status s = UseInteger(op.shape(i), "shape[" + std::to_string(i) + "]"); !s.ok()) return s;
  }
  d.desc = op.desc();
  d.dump_size = op.dump_size();
  d.shape = AddSlots(op.shape());
  in->dtype = d.tensor.dtype;
  in->aux = static_cast<uint32_t>(p_->debug_ops.size());
  p_->debug_ops.push_back(std::move(d));
  return Status::Ok();
}

Status DecodeContext::DecodeTrap(const ir::TrapOp& /*op*/, Instr* in) {
  in->opcode = Opcode::kTrap;
  return Status::Ok();
}

Status DecodeContext::DecodeProfMark(const ir::ProfMarkOp& op, Instr* in) {
  in->opcode = Opcode::kProfMark;
  if (!ir::ProfMarkOp::Kind_IsValid(op.kind()) || op.kind() == ir::ProfMarkOp::KIND_INVALID) {
    return OpError("kind", std::to_string(op.kind()) + " is not a ProfMarkOp.Kind value");
  }
  DebugInfo d;
  if (op.kind() == ir::ProfMarkOp::PRINT_TIME_STAMP) {
    if (Status s = UseInteger(op.desc_id(), "desc_id"); !s.ok()) return s;
    d.desc = op.desc_id();
  } else if (op.desc_id() != 0) {
    return OpError("desc_id", "is only used by PRINT_TIME_STAMP");
  }
  in->kind = static_cast<uint8_t>(op.kind());
  in->aux = static_cast<uint32_t>(p_->debug_ops.size());
  p_->debug_ops.push_back(std::move(d));
  return Status::Ok();
}

}  // namespace aicore::sim
