// Lookups over the instruction table (see opcode.h).
#include "sim/isa/opcode.h"

namespace aicore::sim {

const OpcodeInfo* FindOpcode(std::string_view ir_op, int ir_kind) {
  for (const OpcodeInfo& row : kOpcodeTable) {
    if (row.ir_op == ir_op && row.ir_kind == ir_kind) return &row;
  }
  return nullptr;
}

int ListDTypes(DTypeSet set, DType* out) {
  // Floats first, as pyasc's docs list them; then integers by width.
  static constexpr DType kOrder[] = {
      DType::kFloat16, DType::kFloat32, DType::kBFloat16, DType::kFloat64, DType::kInt8,
      DType::kUInt8,   DType::kInt16,   DType::kUInt16,   DType::kInt32,   DType::kUInt32,
      DType::kInt64,   DType::kUInt64,  DType::kBool,
  };
  int n = 0;
  for (DType t : kOrder) {
    if ((set & DTypeBit(t)) == 0) continue;
    if (out != nullptr) out[n] = t;
    ++n;
  }
  return n;
}

}  // namespace aicore::sim
