// The instruction table (sim/isa/instructions.def) against the IR contract (proto/kernel.proto):
// every op kind of the IR has a row, every row names an IR op and Kind value that exist, and the
// Kind's name is the row's mnemonic. Adding an instruction to one side only fails here.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kernel.pb.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {
namespace {

namespace ir = aicore::ir::v1;
namespace pb = google::protobuf;

// The Kind enum of the message carried by Op field `ir_op`, or nullptr if it has none.
const pb::EnumDescriptor* KindEnumOf(const std::string& ir_op) {
  const pb::FieldDescriptor* field = ir::Op::descriptor()->FindFieldByName(ir_op);
  if (field == nullptr || field->message_type() == nullptr) return nullptr;
  return field->message_type()->FindEnumTypeByName("Kind");
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

TEST(IsaTable, EveryRowNamesAnIrOpAndKindThatExist) {
  for (const OpcodeInfo& row : kOpcodeTable) {
    std::string ir_op(row.ir_op);
    const pb::FieldDescriptor* field = ir::Op::descriptor()->FindFieldByName(ir_op);
    ASSERT_NE(field, nullptr) << row.mnemonic << ": Op has no field " << ir_op;
    EXPECT_NE(field->containing_oneof(), nullptr) << ir_op << " is not an op kind";
    if (row.ir_kind == 0) continue;
    const pb::EnumDescriptor* kinds = KindEnumOf(ir_op);
    ASSERT_NE(kinds, nullptr) << row.mnemonic << ": " << ir_op << " has no Kind enum";
    const pb::EnumValueDescriptor* value = kinds->FindValueByNumber(row.ir_kind);
    ASSERT_NE(value, nullptr) << row.mnemonic << ": " << kinds->full_name() << " has no value "
                              << row.ir_kind;
    EXPECT_EQ(value->name(), Upper(row.mnemonic))
        << kinds->full_name() << " " << row.ir_kind << " is " << value->name()
        << " but the table row says " << row.mnemonic;
  }
}

TEST(IsaTable, EveryIrOpKindHasARow) {
  const pb::OneofDescriptor* kinds = ir::Op::descriptor()->FindOneofByName("kind");
  ASSERT_NE(kinds, nullptr);
  for (int i = 0; i < kinds->field_count(); ++i) {
    std::string ir_op = kinds->field(i)->name();
    const pb::EnumDescriptor* kind_enum = KindEnumOf(ir_op);
    bool rows_by_kind = false;
    for (const OpcodeInfo& row : kOpcodeTable) rows_by_kind |= row.ir_op == ir_op && row.ir_kind;
    if (!rows_by_kind) {
      // Ops whose Kind is an operand of one opcode (scalar_binary, framework ...).
      bool any = false;
      for (const OpcodeInfo& row : kOpcodeTable) any |= row.ir_op == ir_op;
      EXPECT_TRUE(any) << "Op field " << ir_op << " has no row in sim/isa/instructions.def";
      continue;
    }
    ASSERT_NE(kind_enum, nullptr);
    for (int v = 0; v < kind_enum->value_count(); ++v) {
      int number = kind_enum->value(v)->number();
      if (number == 0) continue;  // KIND_INVALID
      EXPECT_NE(FindOpcode(ir_op, number), nullptr)
          << kind_enum->full_name() << "." << kind_enum->value(v)->name()
          << " has no row in sim/isa/instructions.def";
    }
  }
}

TEST(IsaTable, MnemonicsAreUnique) {
  std::set<std::string_view> seen;
  for (const OpcodeInfo& row : kOpcodeTable) {
    EXPECT_TRUE(seen.insert(row.mnemonic).second) << row.mnemonic << " appears twice";
  }
}

}  // namespace
}  // namespace aicore::sim
