// DecodeKernel: validates every field of a kernel IR message and lowers it to the Program the
// model executes. Errors name the op (pre-order index and kind), its source line, the field and
// the reason, e.g.
//   op 12 (vec_binary) at add.py:34: field src1.space: MEM_GM is not allowed for a vector
//   operand; vector operands live in UB
// This file holds the kernel header, regions and the dispatch to each op family's file.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/unknown_field_set.h>

#include <functional>
#include <vector>

#include "kernel.pb.h"
#include "sim/bridge/bridge.h"
#include "sim/bridge/decode_context.h"

namespace aicore::sim {
namespace {

// Finds a field the sender set but this build does not know (a newer IR).
std::string FindUnknownField(const google::protobuf::Message& m, const std::string& path) {
  const google::protobuf::Reflection* r = m.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown = r->GetUnknownFields(m);
  if (!unknown.empty()) {
    return path + (path.empty() ? "" : ".") + "<field " +
           std::to_string(unknown.field(0).number()) + ">";
  }
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const auto* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    std::string sub = path + (path.empty() ? "" : ".") + f->name();
    if (f->is_repeated()) {
      int n = r->FieldSize(m, f);
      for (int i = 0; i < n; ++i) {
        std::string found =
            FindUnknownField(r->GetRepeatedMessage(m, f, i), sub + "[" + std::to_string(i) + "]");
        if (!found.empty()) return found;
      }
    } else {
      std::string found = FindUnknownField(r->GetMessage(m, f), sub);
      if (!found.empty()) return found;
    }
  }
  return "";
}

std::string KindName(const ir::Op& op) {
  const auto* desc = ir::Op::descriptor();
  const auto* field = desc->FindFieldByNumber(static_cast<int>(op.kind_case()));
  return field != nullptr ? field->name() : "empty op";
}

}  // namespace

StatusOr<std::shared_ptr<const Program>> DecodeContext::Run() {
  Status s = DecodeKernel();
  if (!s.ok()) return s;
  return std::shared_ptr<const Program>(std::move(p_));
}

Status DecodeContext::DecodeKernel() {
  std::string unknown = FindUnknownField(k_, "");
  if (!unknown.empty()) {
    return KernelError(unknown,
                       "unknown field (is the IR from a newer frontend? this "
                       "simulator implements IR_VERSION_1)");
  }
  if (k_.version() != ir::IR_VERSION_1) {
    return KernelError("version", "got " + std::to_string(k_.version()) +
                                      "; this simulator accepts IR_VERSION_1 (1)");
  }
  if (k_.name().empty()) return KernelError("name", "must not be empty");
  if (!ir::KernelType_IsValid(k_.kernel_type())) {
    return KernelError("kernel_type",
                       std::to_string(k_.kernel_type()) + " is not a KernelType value");
  }
  if (k_.num_values() > kMaxValues) {
    return KernelError("num_values", std::to_string(k_.num_values()) + " exceeds the limit of " +
                                         std::to_string(kMaxValues));
  }
  p_->name = k_.name();
  p_->kernel_type = static_cast<KernelType>(k_.kernel_type());
  p_->num_values = k_.num_values();
  p_->value_dtypes.assign(p_->num_values + 1, DType::kInvalid);
  p_->files.assign(k_.files().begin(), k_.files().end());
  def_scope_.assign(p_->num_values + 1, -1);
  def_op_.assign(p_->num_values + 1, -1);
  EnterScope();

  for (int i = 0; i < k_.params_size(); ++i) {
    const ir::Param& param = k_.params(i);
    std::string f = "params[" + std::to_string(i) + "]";
    if (param.name().empty()) return KernelError(f + ".name", "must not be empty");
    if (param.kind() != ir::Param::KIND_SCALAR && param.kind() != ir::Param::KIND_POINTER) {
      return KernelError(f + ".kind",
                         std::to_string(param.kind()) + " is not KIND_SCALAR or KIND_POINTER");
    }
    if (!ir::DType_IsValid(param.dtype()) || param.dtype() == ir::DT_INVALID) {
      return KernelError(f + ".dtype", IrDTypeName(param.dtype()) + " is not a valid dtype");
    }
    ParamInfo info;
    info.name = param.name();
    info.kind = param.kind() == ir::Param::KIND_POINTER ? ParamInfo::Kind::kPointer
                                                        : ParamInfo::Kind::kScalar;
    info.dtype = ToDType(param.dtype());
    info.slot = param.value();
    // A pointer parameter's value is its GM byte address.
    DType value_type = info.kind == ParamInfo::Kind::kPointer ? DType::kUInt64 : info.dtype;
    Status s = Define(param.value(), value_type, f + ".value");
    if (!s.ok()) return s;
    p_->params.push_back(std::move(info));
  }
  if (Status d = DecodeFrameworkDecls(); !d.ok()) return d;
  p_->regions.emplace_back();
  Status s = DecodeRegion(k_.body(), 0, 0);
  if (!s.ok()) return s;
  p_->num_ops = op_counter_;
  return Status::Ok();
}

Status DecodeContext::DecodeRegion(const ir::Region& region, uint32_t index, uint32_t depth) {
  if (depth > kMaxRegionDepth) {
    return OpError("body", "regions nest deeper than " + std::to_string(kMaxRegionDepth) +
                               " levels, the IR validator's limit; split the kernel's control "
                               "flow into fewer nested ifs and loops");
  }
  std::vector<Instr> ops;
  ops.reserve(region.ops_size());
  for (const ir::Op& op : region.ops()) {
    Instr instr;
    Status s = DecodeOp(op, &instr, depth);
    if (!s.ok()) return s;
    ops.push_back(instr);
  }
  p_->regions[index].ops = std::move(ops);
  return Status::Ok();
}

Status DecodeContext::DecodeOp(const ir::Op& op, Instr* in, uint32_t depth) {
  OpContext saved = op_;
  bool saved_in_op = in_op_;
  op_.index = op_counter_++;
  op_.kind = KindName(op);
  op_.where.clear();
  in_op_ = true;
  in->op_index = op_.index;
  Status s = DecodeLoc(op.loc(), in);
  uint32_t saved_depth = region_depth_;
  region_depth_ = depth;
  if (s.ok()) s = DecodeOpBody(op, in);
  region_depth_ = saved_depth;
  op_ = saved;
  in_op_ = saved_in_op;
  return s;
}

Status DecodeContext::DecodeLoc(const ir::SourceLoc& loc, Instr* in) {
  if (k_.files_size() == 0 && loc.file() == 0) {
    in->file = Program::kNoFile;
  } else if (loc.file() >= static_cast<uint32_t>(k_.files_size())) {
    return OpError("loc.file", std::to_string(loc.file()) + " is out of range (the kernel has " +
                                   std::to_string(k_.files_size()) + " files)");
  } else {
    in->file = loc.file();
  }
  in->line = loc.line();
  in->column = loc.column();
  op_.where = " at " + p_->Where(*in);
  return Status::Ok();
}

namespace {

// Calls a message's decoder with the message: `Get` is the Op's accessor, `Fn` the DecodeContext
// member its row names.
template <auto Get, auto Fn>
Status DecodeMessage(DecodeContext& d, const ir::Op& op, Instr* in) {
  return std::invoke(Fn, d, (op.*Get)(), in);
}

using MessageDecoder = Status (*)(DecodeContext&, const ir::Op&, Instr*);

}  // namespace

Status DecodeContext::DecodeOpBody(const ir::Op& op, Instr* in) {
  // The layout table's IR messages (sim/isa/layouts.def), indexed by the Op's kind case.
  static const std::vector<MessageDecoder> kDecoders = [] {
    std::vector<MessageDecoder> table;
    auto add = [&table](int kind_case, MessageDecoder decode) {
      if (table.size() <= static_cast<size_t>(kind_case)) table.resize(kind_case + 1, nullptr);
      table[kind_case] = decode;
    };
#define AICORE_IR_MESSAGE(ir_case, field, message, decode) \
  add(ir::Op::ir_case, &DecodeMessage<&ir::Op::field, &DecodeContext::decode>);
#include "sim/isa/layouts.def"
    return table;
  }();
  auto kind_case = static_cast<size_t>(op.kind_case());
  if (kind_case < kDecoders.size() && kDecoders[kind_case] != nullptr) {
    return kDecoders[kind_case](*this, op, in);
  }
  return OpError("kind", "no op kind is set (an empty op, or an op from a newer IR version)");
}

StatusOr<std::shared_ptr<const Program>> DecodeKernel(const aicore::ir::v1::Kernel& kernel) {
  DecodeContext decoder(kernel);
  return decoder.Run();
}

}  // namespace aicore::sim
