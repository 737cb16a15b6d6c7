// Lookups over the instruction table (see opcode.h).
#include "sim/isa/opcode.h"

#include <deque>
#include <mutex>

#include "sim/core/invariant.h"

namespace aicore::sim {

namespace {

// Rows added by RegisterInstruction; a deque keeps references stable as it grows.
struct ExtraRows {
  std::mutex mu;
  std::deque<OpcodeInfo> opcodes;
  std::deque<LayoutInfo> layouts;
};

ExtraRows& Extras() {
  static ExtraRows rows;
  return rows;
}

}  // namespace

const OpcodeInfo& ExtraOpcode(int index) {
  ExtraRows& x = Extras();
  SIM_CHECK(index >= kNumOpcodes && index - kNumOpcodes < static_cast<int>(x.opcodes.size()),
            "opcode " + std::to_string(index) + " is neither in the table nor registered");
  return x.opcodes[index - kNumOpcodes];
}

const LayoutInfo& ExtraLayout(int index) {
  ExtraRows& x = Extras();
  SIM_CHECK(index >= kNumLayouts && index - kNumLayouts < static_cast<int>(x.layouts.size()),
            "operand layout " + std::to_string(index) + " is neither in the table nor registered");
  return x.layouts[index - kNumLayouts];
}

RegisteredInstruction RegisterInstruction(OpcodeInfo row, LayoutInfo layout) {
  ExtraRows& x = Extras();
  std::lock_guard<std::mutex> lock(x.mu);
  int op = kNumOpcodes + static_cast<int>(x.opcodes.size());
  int cls = kNumLayouts + static_cast<int>(x.layouts.size());
  SIM_CHECK(op <= 255 && cls <= 255, "too many registered instructions");
  row.opcode = static_cast<Opcode>(op);
  row.op_class = static_cast<OpClass>(cls);
  layout.id = row.op_class;
  x.opcodes.push_back(row);
  x.layouts.push_back(layout);
  return {row.opcode, row.op_class};
}

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
