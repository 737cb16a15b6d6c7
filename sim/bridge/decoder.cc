// DecodeKernel: validates every field of a kernel IR message and lowers it to the Program the
// model executes. Errors name the op (pre-order index and kind), its source line, the field and
// the reason, e.g.
//   op 12 (vec_binary) at add.py:34: field src1.space: MEM_GM is not allowed for a vector
//   operand; vector operands live in UB
// SSA rules follow MLIR: each id is defined once, before use, and a value defined inside a
// region is visible only inside it (and in regions nested in it).
#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/unknown_field_set.h>

#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

#include "sim/bridge/bridge.h"
#include "sim/isa/opcode.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

namespace ir = aicore::ir::v1;

// Bounds that keep a hostile message from making the decoder allocate without limit.
constexpr uint32_t kMaxValues = 1u << 20;
constexpr uint32_t kMaxRegionDepth = 64;

DType ToDType(int v) { return static_cast<DType>(v); }

std::string DTypeName(int v) {
  return ir::DType_IsValid(v) ? ir::DType_Name(static_cast<ir::DType>(v)) : std::to_string(v);
}

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

class Decoder {
 public:
  explicit Decoder(const ir::Kernel& kernel) : k_(kernel), p_(std::make_shared<Program>()) {}

  StatusOr<std::shared_ptr<const Program>> Run() {
    Status s = DecodeKernel();
    if (!s.ok()) return s;
    return std::shared_ptr<const Program>(std::move(p_));
  }

 private:
  struct OpContext {
    uint32_t index = 0;
    std::string kind;
    std::string where;  // " at add.py:34" or ""
  };

  // ---- errors ---------------------------------------------------------------------------------

  Status KernelError(const std::string& field, const std::string& reason) const {
    return InvalidArgument("kernel " + (k_.name().empty() ? std::string("<unnamed>") : k_.name()) +
                           ": field " + field + ": " + reason);
  }
  Status OpError(const std::string& field, const std::string& reason) const {
    return InvalidArgument("op " + std::to_string(op_.index) + " (" + op_.kind + ")" + op_.where +
                           ": field " + field + ": " + reason);
  }

  // ---- SSA scoping ----------------------------------------------------------------------------

  Status CheckId(uint32_t id, const std::string& field) const {
    if (id == 0) return Fail(field, "missing (SSA id 0 means absent)");
    if (id > p_->num_values) {
      return Fail(field, "SSA id %" + std::to_string(id) + " is out of range 1.." +
                             std::to_string(p_->num_values) + " (num_values)");
    }
    return Status::Ok();
  }

  // Errors raised outside any op (params) read as kernel errors.
  Status Fail(const std::string& field, const std::string& reason) const {
    return in_op_ ? OpError(field, reason) : KernelError(field, reason);
  }

  Status Define(uint32_t id, DType t, const std::string& field) {
    Status s = CheckId(id, field);
    if (!s.ok()) return s;
    if (def_scope_[id] >= 0) {
      return Fail(field, "%" + std::to_string(id) + " is already defined" +
                             (def_op_[id] >= 0 ? " by op " + std::to_string(def_op_[id])
                                               : std::string(" by a kernel parameter")));
    }
    def_scope_[id] = current_scope_;
    def_op_[id] = in_op_ ? static_cast<int64_t>(op_.index) : -1;
    p_->value_dtypes[id] = t;
    return Status::Ok();
  }

  Status Use(uint32_t id, const std::string& field, DType* t) const {
    Status s = CheckId(id, field);
    if (!s.ok()) return s;
    if (def_scope_[id] < 0) {
      return Fail(field, "%" + std::to_string(id) + " is used before it is defined");
    }
    if (!scope_active_[def_scope_[id]]) {
      return Fail(field, "%" + std::to_string(id) + " is defined inside a region of op " +
                             std::to_string(def_op_[id]) +
                             " and is not visible here (values do not escape their region; "
                             "yield them as results)");
    }
    *t = p_->value_dtypes[id];
    return Status::Ok();
  }

  Status UseTyped(uint32_t id, const std::string& field, DType want) const {
    DType t;
    Status s = Use(id, field, &t);
    if (!s.ok()) return s;
    if (t != want) {
      return Fail(field, "%" + std::to_string(id) + " has dtype " + std::string(DTypeProtoName(t)) +
                             " but " + std::string(DTypeProtoName(want)) +
                             " is required here (insert a scalar_unary CAST)");
    }
    return Status::Ok();
  }

  Status UseInteger(uint32_t id, const std::string& field) const {
    DType t;
    Status s = Use(id, field, &t);
    if (!s.ok()) return s;
    if (!IsInteger(t)) {
      return Fail(field, "%" + std::to_string(id) + " has dtype " + std::string(DTypeProtoName(t)) +
                             "; an integer is required");
    }
    return Status::Ok();
  }

  Status UseOptionalInteger(uint32_t id, const std::string& field) const {
    return id == 0 ? Status::Ok() : UseInteger(id, field);
  }

  int32_t EnterScope() {
    int32_t s = static_cast<int32_t>(scope_active_.size());
    scope_active_.push_back(1);
    scope_stack_.push_back(current_scope_);
    current_scope_ = s;
    return s;
  }
  void LeaveScope() {
    scope_active_[current_scope_] = 0;
    current_scope_ = scope_stack_.back();
    scope_stack_.pop_back();
  }

  // ---- kernel ---------------------------------------------------------------------------------

  Status DecodeKernel() {
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
        return KernelError(f + ".dtype", DTypeName(param.dtype()) + " is not a valid dtype");
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

  // Decodes `region` into p_->regions[index]; the caller has entered its scope.
  Status DecodeRegion(const ir::Region& region, uint32_t index, uint32_t depth) {
    if (depth > kMaxRegionDepth) {
      return OpError("body", "regions nest deeper than " + std::to_string(kMaxRegionDepth));
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

  uint32_t NewRegion() {
    p_->regions.emplace_back();
    return static_cast<uint32_t>(p_->regions.size() - 1);
  }

  SlotSpan AddSlots(const google::protobuf::RepeatedField<uint32_t>& ids) {
    SlotSpan s{static_cast<uint32_t>(p_->slot_lists.size()), static_cast<uint32_t>(ids.size())};
    p_->slot_lists.insert(p_->slot_lists.end(), ids.begin(), ids.end());
    return s;
  }

  // ---- ops ------------------------------------------------------------------------------------

  static std::string KindName(const ir::Op& op) {
    const auto* desc = ir::Op::descriptor();
    const auto* field = desc->FindFieldByNumber(static_cast<int>(op.kind_case()));
    return field != nullptr ? field->name() : "empty op";
  }

  Status DecodeOp(const ir::Op& op, Instr* in, uint32_t depth) {
    OpContext saved = op_;
    bool saved_in_op = in_op_;
    op_.index = op_counter_++;
    op_.kind = KindName(op);
    op_.where.clear();
    in_op_ = true;
    in->op_index = op_.index;
    Status s = DecodeLoc(op.loc(), in);
    if (s.ok()) s = DecodeOpBody(op, in, depth);
    op_ = saved;
    in_op_ = saved_in_op;
    return s;
  }

  Status DecodeLoc(const ir::SourceLoc& loc, Instr* in) {
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

  Status DecodeOpBody(const ir::Op& op, Instr* in, uint32_t depth) {
    switch (op.kind_case()) {
      case ir::Op::kConstant:
        return DecodeConst(op.constant(), in);
      case ir::Op::kScalarBinary:
        return DecodeScalarBinary(op.scalar_binary(), in);
      case ir::Op::kScalarUnary:
        return DecodeScalarUnary(op.scalar_unary(), in);
      case ir::Op::kSysValue:
        return DecodeSysValue(op.sys_value(), in);
      case ir::Op::kForOp:
        return DecodeFor(op.for_op(), in, depth);
      case ir::Op::kIfOp:
        return DecodeIf(op.if_op(), in, depth);
      case ir::Op::kSelect:
        return DecodeSelect(op.select(), in);
      case ir::Op::kDataCopy:
        return DecodeDataCopy(op.data_copy(), in);
      case ir::Op::kVecBinary:
        return DecodeVecBinary(op.vec_binary(), in);
      case ir::Op::kVecUnary:
        return DecodeVecUnary(op.vec_unary(), in);
      case ir::Op::kVecScalar:
        return DecodeVecScalar(op.vec_scalar(), in);
      case ir::Op::kSetFlag:
        return DecodeFlag(op.set_flag().event(), op.set_flag().event_id(),
                          /*is_set=*/true, in);
      case ir::Op::kWaitFlag:
        return DecodeFlag(op.wait_flag().event(), op.wait_flag().event_id(), /*is_set=*/false, in);
      case ir::Op::kPipeBarrier:
        return DecodePipeBarrier(op.pipe_barrier(), in);
      case ir::Op::kFramework:
        return DecodeFramework(op.framework(), in);
      case ir::Op::KIND_NOT_SET:
        break;
    }
    return OpError("kind", "no op kind is set (an empty op, or an op from a newer IR version)");
  }

  Status CheckDType(int v, const std::string& field) const {
    if (!ir::DType_IsValid(v) || v == ir::DT_INVALID) {
      return OpError(field, DTypeName(v) + " is not a valid dtype");
    }
    return Status::Ok();
  }

  Status DecodeConst(const ir::ConstOp& c, Instr* in) {
    in->opcode = Opcode::kConst;
    Status s = CheckDType(c.dtype(), "dtype");
    if (!s.ok()) return s;
    DType t = ToDType(c.dtype());
    in->dtype = t;
    in->result = c.result();
    switch (c.value_case()) {
      case ir::ConstOp::kIntValue: {
        int64_t v = c.int_value();
        if (IsFloat(t)) {
          in->imm.f = RoundFloat(static_cast<double>(v), t).f;
        } else if (t == DType::kBool) {
          if (v != 0 && v != 1) return OpError("int_value", "a DT_BOOL constant must be 0 or 1");
          in->imm.i = v;
        } else {
          uint32_t bits = DTypeBits(t);
          if (bits < 64) {
            int64_t lo = IsSigned(t) ? -(int64_t{1} << (bits - 1)) : 0;
            int64_t hi = IsSigned(t) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
            if (v < lo || v > hi) {
              return OpError("int_value", std::to_string(v) + " does not fit " +
                                              std::string(DTypeProtoName(t)) + " [" +
                                              std::to_string(lo) + ", " + std::to_string(hi) + "]");
            }
          } else if (t == DType::kInt64 || v >= 0) {
            // int64 holds any value; uint64 takes non-negative values as is.
          } else {
            // A negative int_value for DT_UINT64 is the two's complement bit pattern (the proto
            // field is signed), so 2^63..2^64-1 can be expressed.
          }
          in->imm.i = v;
        }
        break;
      }
      case ir::ConstOp::kFloatValue: {
        if (!IsFloat(t)) {
          return OpError("float_value", "given for " + std::string(DTypeProtoName(t)) +
                                            "; integer and bool constants use int_value");
        }
        in->imm.f = RoundFloat(c.float_value(), t).f;
        break;
      }
      case ir::ConstOp::VALUE_NOT_SET:
        return OpError("value", "neither int_value nor float_value is set");
    }
    return Define(c.result(), t, "result");
  }

  Status DecodeScalarBinary(const ir::ScalarBinaryOp& b, Instr* in) {
    in->opcode = Opcode::kScalarBinary;
    if (!ir::ScalarBinaryOp::Kind_IsValid(b.kind()) ||
        b.kind() == ir::ScalarBinaryOp::KIND_INVALID) {
      return OpError("kind", std::to_string(b.kind()) + " is not a ScalarBinaryOp.Kind value");
    }
    Status s = CheckDType(b.dtype(), "dtype");
    if (!s.ok()) return s;
    DType t = ToDType(b.dtype());
    auto kind = static_cast<ScalarBinaryKind>(b.kind());
    using K = ScalarBinaryKind;
    bool ok = false;
    bool to_bool = false;
    std::string allowed;
    switch (kind) {
      case K::kAdd:
      case K::kSub:
      case K::kMul:
      case K::kDiv:
      case K::kMin:
      case K::kMax:
        ok = IsInteger(t) || IsFloat(t);
        allowed = "integer or floating dtypes";
        break;
      case K::kMod:
      case K::kShl:
      case K::kShr:
        ok = IsInteger(t);
        allowed = "integer dtypes";
        break;
      case K::kAnd:
      case K::kOr:
      case K::kXor:
        ok = IsInteger(t) || t == DType::kBool;
        allowed = "integer dtypes or DT_BOOL";
        break;
      case K::kEq:
      case K::kNe:
      case K::kLt:
      case K::kLe:
      case K::kGt:
      case K::kGe:
        ok = true;
        to_bool = true;
        break;
      case K::kLogicalAnd:
      case K::kLogicalOr:
        ok = IsInteger(t) || t == DType::kBool;
        to_bool = true;
        allowed = "DT_BOOL or integer dtypes";
        break;
    }
    std::string kind_name = ir::ScalarBinaryOp::Kind_Name(b.kind());
    if (!ok) {
      return OpError("dtype", std::string(DTypeProtoName(t)) + " is not allowed for " + kind_name +
                                  " (" + allowed + ")");
    }
    if (Status u = UseTyped(b.lhs(), "lhs", t); !u.ok()) return u;
    if (Status u = UseTyped(b.rhs(), "rhs", t); !u.ok()) return u;
    in->kind = static_cast<uint8_t>(kind);
    in->src_dtype = t;
    in->dtype = to_bool ? DType::kBool : t;
    in->a = b.lhs();
    in->b = b.rhs();
    in->result = b.result();
    return Define(b.result(), in->dtype, "result");
  }

  Status DecodeScalarUnary(const ir::ScalarUnaryOp& u, Instr* in) {
    in->opcode = Opcode::kScalarUnary;
    if (!ir::ScalarUnaryOp::Kind_IsValid(u.kind()) || u.kind() == ir::ScalarUnaryOp::KIND_INVALID) {
      return OpError("kind", std::to_string(u.kind()) + " is not a ScalarUnaryOp.Kind value");
    }
    Status s = CheckDType(u.dtype(), "dtype");
    if (!s.ok()) return s;
    DType t = ToDType(u.dtype());
    auto kind = static_cast<ScalarUnaryKind>(u.kind());
    DType operand;
    if (Status v = Use(u.operand(), "operand", &operand); !v.ok()) return v;
    bool src_given = u.src_dtype() != ir::DT_INVALID;
    if (src_given) {
      if (Status v = CheckDType(u.src_dtype(), "src_dtype"); !v.ok()) return v;
      if (ToDType(u.src_dtype()) != operand) {
        return OpError("src_dtype", std::string(DTypeProtoName(ToDType(u.src_dtype()))) +
                                        " does not match the operand %" +
                                        std::to_string(u.operand()) + " of dtype " +
                                        std::string(DTypeProtoName(operand)));
      }
    }
    switch (kind) {
      case ScalarUnaryKind::kNeg:
        if (!IsInteger(t) && !IsFloat(t)) {
          return OpError("dtype", "NEG needs an integer or floating dtype");
        }
        if (operand != t) return UseTyped(u.operand(), "operand", t);
        break;
      case ScalarUnaryKind::kBitNot:
        if (!IsInteger(t)) return OpError("dtype", "BIT_NOT needs an integer dtype");
        if (operand != t) return UseTyped(u.operand(), "operand", t);
        break;
      case ScalarUnaryKind::kLogicalNot:
        if (t != DType::kBool) return OpError("dtype", "LOGICAL_NOT produces DT_BOOL");
        if (operand != DType::kBool && !IsInteger(operand)) {
          return OpError("operand", "LOGICAL_NOT needs a DT_BOOL or integer operand");
        }
        break;
      case ScalarUnaryKind::kCast:
        if (!src_given) return OpError("src_dtype", "CAST needs the operand type");
        break;
    }
    in->kind = static_cast<uint8_t>(kind);
    in->dtype = t;
    in->src_dtype = operand;
    in->a = u.operand();
    in->result = u.result();
    return Define(u.result(), t, "result");
  }

  Status DecodeSysValue(const ir::SysValueOp& v, Instr* in) {
    in->opcode = Opcode::kSysValue;
    if (!ir::SysValueOp::Kind_IsValid(v.kind()) || v.kind() == ir::SysValueOp::KIND_INVALID) {
      return OpError("kind", std::to_string(v.kind()) + " is not a SysValueOp.Kind value");
    }
    Status s = CheckDType(v.dtype(), "dtype");
    if (!s.ok()) return s;
    DType t = ToDType(v.dtype());
    bool flag = v.kind() == ir::SysValueOp::IS_AIC || v.kind() == ir::SysValueOp::IS_AIV;
    if (!IsInteger(t) && !(flag && t == DType::kBool)) {
      return OpError("dtype", std::string(DTypeProtoName(t)) + " is not allowed for " +
                                  ir::SysValueOp::Kind_Name(v.kind()) +
                                  (flag ? " (DT_BOOL or an integer)" : " (an integer dtype)"));
    }
    in->kind = static_cast<uint8_t>(v.kind());
    in->dtype = t;
    in->result = v.result();
    return Define(v.result(), t, "result");
  }

  Status DecodeSelect(const ir::SelectOp& sel, Instr* in) {
    in->opcode = Opcode::kSelect;
    Status s = CheckDType(sel.dtype(), "dtype");
    if (!s.ok()) return s;
    DType t = ToDType(sel.dtype());
    if (Status u = UseTyped(sel.cond(), "cond", DType::kBool); !u.ok()) return u;
    if (Status u = UseTyped(sel.true_value(), "true_value", t); !u.ok()) return u;
    if (Status u = UseTyped(sel.false_value(), "false_value", t); !u.ok()) return u;
    in->dtype = t;
    in->a = sel.cond();
    in->b = sel.true_value();
    in->c = sel.false_value();
    in->result = sel.result();
    return Define(sel.result(), t, "result");
  }

  Status DecodeFor(const ir::ForOp& f, Instr* in, uint32_t depth) {
    in->opcode = Opcode::kFor;
    if (f.dtype() != ir::DT_INT32 && f.dtype() != ir::DT_INT64) {
      return OpError("dtype", DTypeName(f.dtype()) +
                                  " is not allowed; loop bounds are DT_INT32 "
                                  "or DT_INT64");
    }
    DType t = ToDType(f.dtype());
    in->dtype = t;
    if (Status u = UseTyped(f.lower(), "lower", t); !u.ok()) return u;
    if (Status u = UseTyped(f.upper(), "upper", t); !u.ok()) return u;
    if (Status u = UseTyped(f.step(), "step", t); !u.ok()) return u;
    int n = f.init_size();
    if (f.iter_args_size() != n || f.yields_size() != n || f.results_size() != n) {
      return OpError("iter_args",
                     "init, iter_args, yields and results must have the same length "
                     "(got " +
                         std::to_string(n) + ", " + std::to_string(f.iter_args_size()) + ", " +
                         std::to_string(f.yields_size()) + ", " + std::to_string(f.results_size()) +
                         ")");
    }
    std::vector<DType> types(n);
    for (int i = 0; i < n; ++i) {
      if (Status u = Use(f.init(i), "init[" + std::to_string(i) + "]", &types[i]); !u.ok()) {
        return u;
      }
    }
    ForInfo info;
    info.lower = f.lower();
    info.upper = f.upper();
    info.step = f.step();
    info.induction = f.induction();
    info.body = NewRegion();
    info.init = AddSlots(f.init());
    info.iter_args = AddSlots(f.iter_args());
    info.yields = AddSlots(f.yields());
    info.results = AddSlots(f.results());

    EnterScope();
    if (Status d = Define(f.induction(), t, "induction"); !d.ok()) return d;
    for (int i = 0; i < n; ++i) {
      if (Status d = Define(f.iter_args(i), types[i], "iter_args[" + std::to_string(i) + "]");
          !d.ok()) {
        return d;
      }
    }
    if (Status r = DecodeRegion(f.body(), info.body, depth + 1); !r.ok()) return r;
    for (int i = 0; i < n; ++i) {
      if (Status u = UseTyped(f.yields(i), "yields[" + std::to_string(i) + "]", types[i]);
          !u.ok()) {
        return u;
      }
    }
    LeaveScope();
    for (int i = 0; i < n; ++i) {
      if (Status d = Define(f.results(i), types[i], "results[" + std::to_string(i) + "]");
          !d.ok()) {
        return d;
      }
    }
    in->aux = static_cast<uint32_t>(p_->fors.size());
    p_->fors.push_back(info);
    return Status::Ok();
  }

  Status DecodeIf(const ir::IfOp& f, Instr* in, uint32_t depth) {
    in->opcode = Opcode::kIf;
    if (Status u = UseTyped(f.cond(), "cond", DType::kBool); !u.ok()) return u;
    int n = f.results_size();
    if (f.then_yields_size() != n || f.else_yields_size() != n) {
      return OpError("results",
                     "then_yields, else_yields and results must have the same length "
                     "(got " +
                         std::to_string(f.then_yields_size()) + ", " +
                         std::to_string(f.else_yields_size()) + ", " + std::to_string(n) + ")");
    }
    IfInfo info;
    info.cond = f.cond();
    info.then_region = NewRegion();
    info.else_region = NewRegion();
    info.then_yields = AddSlots(f.then_yields());
    info.else_yields = AddSlots(f.else_yields());
    info.results = AddSlots(f.results());
    std::vector<DType> then_types(n), else_types(n);
    EnterScope();
    if (Status r = DecodeRegion(f.then_region(), info.then_region, depth + 1); !r.ok()) return r;
    for (int i = 0; i < n; ++i) {
      if (Status u =
              Use(f.then_yields(i), "then_yields[" + std::to_string(i) + "]", &then_types[i]);
          !u.ok()) {
        return u;
      }
    }
    LeaveScope();
    EnterScope();
    if (Status r = DecodeRegion(f.else_region(), info.else_region, depth + 1); !r.ok()) return r;
    for (int i = 0; i < n; ++i) {
      if (Status u =
              UseTyped(f.else_yields(i), "else_yields[" + std::to_string(i) + "]", then_types[i]);
          !u.ok()) {
        return u;
      }
    }
    LeaveScope();
    for (int i = 0; i < n; ++i) {
      if (Status d = Define(f.results(i), then_types[i], "results[" + std::to_string(i) + "]");
          !d.ok()) {
        return d;
      }
    }
    in->aux = static_cast<uint32_t>(p_->ifs.size());
    p_->ifs.push_back(info);
    return Status::Ok();
  }

  // A tensor operand in GM or UB with a consistent position, a real element type and integer
  // address/count values.
  Status DecodeTensor(const ir::TensorRef& t, const std::string& name, bool ub_only,
                      TensorOperand* out) {
    if (!ir::MemSpace_IsValid(t.space()) || t.space() == ir::MEM_INVALID) {
      return OpError(name + ".space", std::to_string(t.space()) + " is not a valid MemSpace");
    }
    std::string space = ir::MemSpace_Name(t.space());
    if (ub_only && t.space() != ir::MEM_UB) {
      return OpError(name + ".space", space +
                                          " is not allowed for a vector operand; vector "
                                          "operands live in UB");
    }
    if (t.space() != ir::MEM_GM && t.space() != ir::MEM_UB) {
      return OpError(name + ".space", space +
                                          " is not supported yet: this model has vector "
                                          "cores only (GM and UB)");
    }
    if (!ir::Position_IsValid(t.position())) {
      return OpError(name + ".position", std::to_string(t.position()) + " is not a valid Position");
    }
    bool gm = t.space() == ir::MEM_GM;
    bool pos_ok = gm ? t.position() == ir::POS_GM
                     : (t.position() == ir::POS_VECIN || t.position() == ir::POS_VECOUT ||
                        t.position() == ir::POS_VECCALC);
    if (!pos_ok) {
      return OpError(name + ".position",
                     ir::Position_Name(t.position()) + " does not belong to " + space +
                         (gm ? " (use POS_GM)" : " (use POS_VECIN, POS_VECOUT or POS_VECCALC)"));
    }
    if (!ir::DType_IsValid(t.dtype()) || t.dtype() == ir::DT_INVALID || t.dtype() == ir::DT_BOOL) {
      return OpError(name + ".dtype", DTypeName(t.dtype()) + " is not a tensor element type");
    }
    if (!ir::CacheMode_IsValid(t.cache_mode())) {
      return OpError(name + ".cache_mode",
                     std::to_string(t.cache_mode()) + " is not a valid CacheMode");
    }
    if (!gm && t.cache_mode() != ir::CACHE_MODE_NORMAL) {
      return OpError(name + ".cache_mode", ir::CacheMode_Name(t.cache_mode()) +
                                               " applies to GM operands only (set it with "
                                               "GlobalTensor.set_l2_cache_hint)");
    }
    if (Status u = UseInteger(t.addr(), name + ".addr"); !u.ok()) return u;
    if (Status u = UseOptionalInteger(t.count(), name + ".count"); !u.ok()) return u;
    out->space = static_cast<MemSpace>(t.space());
    out->cache_mode = static_cast<CacheMode>(t.cache_mode());
    out->position = static_cast<uint8_t>(t.position());
    out->dtype = ToDType(t.dtype());
    out->addr = t.addr();
    out->count = t.count();
    return Status::Ok();
  }

  Status DecodeDataCopy(const ir::DataCopyOp& c, Instr* in) {
    in->opcode = Opcode::kDataCopy;
    MemOpInfo m;
    if (Status s = DecodeTensor(c.dst(), "dst", false, &m.dst); !s.ok()) return s;
    if (Status s = DecodeTensor(c.src(), "src", false, &m.src0); !s.ok()) return s;
    if (m.dst.dtype != m.src0.dtype) {
      return OpError("dst.dtype", std::string(DTypeProtoName(m.dst.dtype)) +
                                      " differs from src.dtype " +
                                      std::string(DTypeProtoName(m.src0.dtype)) +
                                      "; data_copy does not convert");
    }
    if (m.src0.space == MemSpace::kGm && m.dst.space == MemSpace::kUb) {
      in->pipe = PipeId::kMte2;
    } else if (m.src0.space == MemSpace::kUb && m.dst.space == MemSpace::kGm) {
      in->pipe = PipeId::kMte3;
    } else if (m.src0.space == MemSpace::kUb && m.dst.space == MemSpace::kUb) {
      in->pipe = PipeId::kV;
    } else {
      return OpError("dst.space",
                     "GM -> GM is not a data_copy path (GM->UB on MTE2, UB->GM on "
                     "MTE3, UB->UB on PIPE_V)");
    }
    m.params_form = c.params_form();
    if (!c.params_form()) {
      if (Status u = UseInteger(c.count(), "count"); !u.ok()) return u;
      if (c.block_count() != 0 || c.block_len() != 0 || c.src_stride() != 0 ||
          c.dst_stride() != 0) {
        return OpError("params_form",
                       "false, but block_count/block_len/src_stride/dst_stride "
                       "are set (set params_form for the DataCopyParams form)");
      }
      m.count = c.count();
    } else {
      if (c.count() != 0) {
        return OpError("count",
                       "set in the params form (params_form is true); use block_count "
                       "and block_len");
      }
      if (Status u = UseInteger(c.block_count(), "block_count"); !u.ok()) return u;
      if (Status u = UseInteger(c.block_len(), "block_len"); !u.ok()) return u;
      if (Status u = UseOptionalInteger(c.src_stride(), "src_stride"); !u.ok()) return u;
      if (Status u = UseOptionalInteger(c.dst_stride(), "dst_stride"); !u.ok()) return u;
      m.block_count = c.block_count();
      m.block_len = c.block_len();
      m.src_stride = c.src_stride();
      m.dst_stride = c.dst_stride();
    }
    in->dtype = m.dst.dtype;
    in->aux = static_cast<uint32_t>(p_->mem_ops.size());
    p_->mem_ops.push_back(m);
    return Status::Ok();
  }

  Status CheckVectorDType(Opcode op, DType t) {
    if (VectorOpSupports(op, t)) return Status::Ok();
    DType listed[kNumDTypes];
    int n = ListDTypes(Info(op).dtypes, listed);
    std::string supported;
    for (int i = 0; i < n; ++i) {
      if (!supported.empty()) supported += ", ";
      supported += std::string(DTypeProtoName(listed[i]));
    }
    return OpError("dst.dtype", std::string(DTypeProtoName(t)) + " is not supported by " +
                                    std::string(Info(op).mnemonic) + " (supported: " + supported +
                                    ")");
  }

  Status SameDType(const TensorOperand& dst, const TensorOperand& src, const std::string& name) {
    if (src.dtype == dst.dtype) return Status::Ok();
    return OpError(name + ".dtype", std::string(DTypeProtoName(src.dtype)) +
                                        " differs from dst.dtype " +
                                        std::string(DTypeProtoName(dst.dtype)));
  }

  Status FinishVector(Opcode op, MemOpInfo& m, uint32_t count, Instr* in) {
    if (Status s = CheckVectorDType(op, m.dst.dtype); !s.ok()) return s;
    if (Status u = UseInteger(count, "count"); !u.ok()) return u;
    m.count = count;
    in->opcode = op;
    in->pipe = PipeId::kV;
    in->dtype = m.dst.dtype;
    in->aux = static_cast<uint32_t>(p_->mem_ops.size());
    p_->mem_ops.push_back(m);
    return Status::Ok();
  }

  // The table row of an IR vector op's kind; an error for a kind the table lacks.
  Status VectorOpcode(const char* ir_op, const char* kind_enum, int kind, Opcode* out) {
    const OpcodeInfo* row = kind != 0 ? FindOpcode(ir_op, kind) : nullptr;
    if (row == nullptr) {
      return OpError("kind", std::to_string(kind) + " is not a " + kind_enum + " value");
    }
    *out = row->opcode;
    return Status::Ok();
  }

  Status DecodeVecBinary(const ir::VecBinaryOp& v, Instr* in) {
    in->opcode = Opcode::kVecAdd;
    Opcode op;
    if (Status s = VectorOpcode("vec_binary", "VecBinaryOp.Kind", v.kind(), &op); !s.ok()) {
      return s;
    }
    MemOpInfo m;
    if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src1, "src1"); !s.ok()) return s;
    return FinishVector(op, m, v.count(), in);
  }

  Status DecodeVecUnary(const ir::VecUnaryOp& v, Instr* in) {
    in->opcode = Opcode::kVecAbs;
    Opcode op;
    if (Status s = VectorOpcode("vec_unary", "VecUnaryOp.Kind", v.kind(), &op); !s.ok()) {
      return s;
    }
    MemOpInfo m;
    if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
    return FinishVector(op, m, v.count(), in);
  }

  Status DecodeVecScalar(const ir::VecScalarOp& v, Instr* in) {
    in->opcode = Opcode::kVecAdds;
    Opcode op;
    if (Status s = VectorOpcode("vec_scalar", "VecScalarOp.Kind", v.kind(), &op); !s.ok()) {
      return s;
    }
    MemOpInfo m;
    if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
    DType st;
    if (Status u = Use(v.scalar(), "scalar", &st); !u.ok()) return u;
    if (!IsInteger(st) && !IsFloat(st)) {
      return OpError("scalar", "%" + std::to_string(v.scalar()) + " has dtype " +
                                   std::string(DTypeProtoName(st)) + "; a number is required");
    }
    m.scalar = v.scalar();
    in->src_dtype = st;
    return FinishVector(op, m, v.count(), in);
  }

  // ---- framework declarations (Kernel.sync, queues, pools) ------------------------------------

  static std::string PositionName(int v) {
    return ir::Position_IsValid(v) ? ir::Position_Name(static_cast<ir::Position>(v))
                                   : std::to_string(v);
  }

  // The physical memory of a position (ascendc-semantics.md 8.1); kInvalid for POS_CO2 and
  // POS_MAX, whose memory depends on the fixpipe's target or does not exist.
  static MemSpace MemoryOf(int pos) {
    switch (pos) {
      case ir::POS_GM:
        return MemSpace::kGm;
      case ir::POS_VECIN:
      case ir::POS_VECOUT:
      case ir::POS_VECCALC:
        return MemSpace::kUb;
      case ir::POS_A1:
      case ir::POS_B1:
      case ir::POS_C1:
        return MemSpace::kL1;
      case ir::POS_A2:
        return MemSpace::kL0a;
      case ir::POS_B2:
        return MemSpace::kL0b;
      case ir::POS_CO1:
        return MemSpace::kL0c;
      case ir::POS_C2:
        return MemSpace::kBt;
      default:
        return MemSpace::kInvalid;
    }
  }

  static bool IsQueuePosition(int pos) {
    switch (pos) {
      case ir::POS_VECIN:
      case ir::POS_VECOUT:
      case ir::POS_VECCALC:
      case ir::POS_A1:
      case ir::POS_B1:
      case ir::POS_C1:
      case ir::POS_A2:
      case ir::POS_B2:
      case ir::POS_CO1:
      case ir::POS_C2:
        return true;
      default:
        return false;
    }
  }

  // The (EnQue/DeQue, FreeTensor/AllocTensor) HardEvents of a queue between two physical
  // endpoints (ascendc-semantics.md 8.1). False when the library has no such pair.
  static bool QueueEvents(MemSpace from, MemSpace to, uint8_t* enque, uint8_t* free) {
    struct Row {
      MemSpace from, to;
      uint8_t enque, free;
    };
    using M = MemSpace;
    static constexpr Row kRows[] = {
        {M::kGm, M::kUb, 4, 5},    {M::kUb, M::kGm, 7, 6},    {M::kUb, M::kUb, 20, 19},
        {M::kGm, M::kL1, 0, 1},    {M::kGm, M::kL0a, 14, 15}, {M::kGm, M::kL0b, 14, 15},
        {M::kL1, M::kL0a, 2, 3},   {M::kL1, M::kL0b, 2, 3},   {M::kL1, M::kBt, 2, 3},
        {M::kL1, M::kFb, 32, 33},  {M::kL1, M::kUb, 13, 16},  {M::kUb, M::kL1, 11, 12},
        {M::kL0c, M::kGm, 17, 18},
    };
    for (const Row& r : kRows) {
      if (r.from == from && r.to == to) {
        *enque = r.enque;
        *free = r.free;
        return true;
      }
    }
    return false;
  }

  // TQue<pos> is TQueBind<pos, pos>, whose ends are the library's logical positions: VECIN is
  // GM -> UB, VECOUT UB -> GM, VECCALC UB -> UB, A1/B1/C1 GM -> L1, A2/B2/C2 L1 -> L0A/L0B/BT,
  // CO1 L0C -> GM (ascendc-semantics.md 8.1).
  static void TQueEnds(int pos, MemSpace* from, MemSpace* to) {
    MemSpace m = MemoryOf(pos);
    switch (pos) {
      case ir::POS_VECIN:
      case ir::POS_A1:
      case ir::POS_B1:
      case ir::POS_C1:
        *from = MemSpace::kGm;
        *to = m;
        return;
      case ir::POS_VECOUT:
      case ir::POS_CO1:
        *from = m;
        *to = MemSpace::kGm;
        return;
      case ir::POS_A2:
      case ir::POS_B2:
      case ir::POS_C2:
        *from = MemSpace::kL1;
        *to = m;
        return;
      default:  // VECCALC
        *from = m;
        *to = m;
        return;
    }
  }

  // A vector core has UB only; cube memories are rejected until the cube core model exists.
  Status CheckMemoryOnCore(MemSpace m, int pos, const std::string& field) const {
    if (p_->kernel_type != KernelType::kAivOnly || m == MemSpace::kUb) return Status::Ok();
    return KernelError(field, PositionName(pos) + " is in " + std::string(MemSpaceName(m)) +
                                  ", which a vector core does not have (AIV_ONLY kernel: use "
                                  "POS_VECIN, POS_VECOUT or POS_VECCALC)");
  }

  static std::string DeclName(const std::string& name, const char* what, uint32_t id) {
    return name.empty() ? std::string(what) + " #" + std::to_string(id) : name;
  }

  std::string DeclWhere(const ir::SourceLoc& loc) const {
    Instr probe;
    probe.file =
        loc.file() < static_cast<uint32_t>(k_.files_size()) ? loc.file() : Program::kNoFile;
    probe.line = loc.line();
    return p_->Where(probe);
  }

  Status DecodeFrameworkDecls() {
    p_->sync.erase_user_flags = k_.sync().erase_user_flags();
    p_->sync.auto_sync = k_.sync().auto_sync() || k_.sync().erase_user_flags();
    for (int i = 0; i < k_.queues_size(); ++i) {
      const ir::QueueDecl& q = k_.queues(i);
      std::string f = "queues[" + std::to_string(i) + "]";
      if (q.id() == 0) return KernelError(f + ".id", "must be >= 1 (ids are 1-based)");
      if (!queue_index_.emplace(q.id(), i).second) {
        return KernelError(f + ".id", std::to_string(q.id()) + " is declared twice");
      }
      QueueInfo info;
      if (q.kind() != ir::QueueDecl::QUEUE && q.kind() != ir::QueueDecl::TBUF) {
        return KernelError(f + ".kind", std::to_string(q.kind()) + " is not QUEUE or TBUF");
      }
      info.is_tbuf = q.kind() == ir::QueueDecl::TBUF;
      int src = q.src_position(), dst = q.dst_position();
      const char* what = info.is_tbuf ? "TBuf" : (src == dst ? "TQue" : "TQueBind");
      info.name = DeclName(q.name(), what, q.id());
      info.label = std::string(what) + " " + info.name;
      info.where = DeclWhere(q.loc());
      std::string legal =
          "POS_VECIN, POS_VECOUT, POS_VECCALC, POS_A1, POS_B1, POS_C1, POS_A2, POS_B2, "
          "POS_CO1 or POS_C2";
      MemSpace from = MemSpace::kInvalid, to = MemSpace::kInvalid;
      if (info.is_tbuf || src == dst) {
        if (!IsQueuePosition(src)) {
          return KernelError(f + ".src_position", PositionName(src) + " is not a position of a " +
                                                      what + " (use " + legal + ")");
        }
        if (src != dst) {
          return KernelError(f + ".dst_position",
                             PositionName(dst) + " differs from src_position " + PositionName(src) +
                                 "; a TBuf has one position");
        }
        TQueEnds(src, &from, &to);
        info.position = static_cast<uint8_t>(src);
      } else {
        for (int which = 0; which < 2; ++which) {
          int pos = which == 0 ? src : dst;
          if (pos != ir::POS_GM && !IsQueuePosition(pos)) {
            return KernelError(f + (which == 0 ? ".src_position" : ".dst_position"),
                               PositionName(pos) + " is not a position of a TQueBind (use " +
                                   legal + ", or POS_GM for one end)");
          }
        }
        from = MemoryOf(src);
        to = MemoryOf(dst);
        info.position = static_cast<uint8_t>(src == ir::POS_GM ? dst : src);
      }
      info.src_position = static_cast<uint8_t>(src);
      info.dst_position = static_cast<uint8_t>(dst);
      info.memory = MemoryOf(info.position);
      if (Status s = CheckMemoryOnCore(info.memory, info.position, f + ".src_position"); !s.ok()) {
        return s;
      }
      if (info.is_tbuf) {
        if (q.depth() != 0) return KernelError(f + ".depth", "must be 0 for a TBuf (no queue)");
      } else {
        if (!QueueEvents(from, to, &info.enque_event, &info.free_event)) {
          return KernelError(f + ".dst_position",
                             std::string("the library has no event pair for a queue from ") +
                                 std::string(MemSpaceName(from)) + " (" + PositionName(src) +
                                 ") to " + std::string(MemSpaceName(to)) + " (" +
                                 PositionName(dst) + ") (ascendc-semantics.md 8.1)");
        }
        for (uint8_t e : {info.enque_event, info.free_event}) {
          const HardEventInfo& ev = HardEvent(e);
          bool aiv = p_->kernel_type == KernelType::kAivOnly;
          bool aic = p_->kernel_type == KernelType::kAicOnly;
          if (aiv ? ev.on_aiv : (aic ? ev.on_aic : (ev.on_aiv || ev.on_aic))) continue;
          return KernelError(
              f + ".dst_position",
              "a queue from " + PositionName(src) + " to " + PositionName(dst) +
                  " synchronises with " + std::string(ev.name) +
                  ", which is not a valid event on " +
                  (aiv ? "a vector core (AIV_ONLY kernel)"
                       : (aic ? "a cube core (AIC_ONLY kernel)" : "Ascend 910B (C220)")) +
                  " (hardware-910b.md 3.3)");
        }
        info.depth = q.depth();
      }
      p_->queues.push_back(std::move(info));
    }
    for (int i = 0; i < k_.pools_size(); ++i) {
      const ir::BufPoolDecl& d = k_.pools(i);
      std::string f = "pools[" + std::to_string(i) + "]";
      if (d.id() == 0) return KernelError(f + ".id", "must be >= 1 (ids are 1-based)");
      if (!pool_index_.emplace(d.id(), i).second) {
        return KernelError(f + ".id", std::to_string(d.id()) + " is declared twice");
      }
      int pos = d.position();
      bool ok = pos == ir::POS_VECIN || pos == ir::POS_VECOUT || pos == ir::POS_VECCALC ||
                pos == ir::POS_A1 || pos == ir::POS_B1 || pos == ir::POS_C1;
      if (!ok) {
        return KernelError(f + ".position", PositionName(pos) +
                                                " is not a TBufPool position (use POS_VECIN, "
                                                "POS_VECOUT, POS_VECCALC, POS_A1, POS_B1 or "
                                                "POS_C1)");
      }
      if (d.buf_id_size() < 1 || d.buf_id_size() > 16) {
        return KernelError(f + ".buf_id_size",
                           std::to_string(d.buf_id_size()) +
                               " is out of range 1..16 (the most buffers a TBufPool hands out; "
                               "TBufPool's default is 4)");
      }
      PoolInfo info;
      info.position = static_cast<uint8_t>(pos);
      info.memory = MemoryOf(pos);
      info.buf_id_size = d.buf_id_size();
      info.name = DeclName(d.name(), "TBufPool", d.id());
      info.label = "TBufPool " + info.name;
      info.where = DeclWhere(d.loc());
      if (Status s = CheckMemoryOnCore(info.memory, pos, f + ".position"); !s.ok()) return s;
      p_->pools.push_back(std::move(info));
    }
    return Status::Ok();
  }

  // ---- framework ops --------------------------------------------------------------------------

  // What a FrameworkOp kind takes: which ids must (1), may (2) or must not (0) be set, how many
  // operands, and the dtypes of result / result2 (kInvalid: none).
  struct FwkSpec {
    uint8_t queue, pool, sub_pool, share_pool;
    int operands;
    DType result, result2;
    bool event, position;
  };

  static bool FwkSpecOf(int kind, FwkSpec* out) {
    constexpr DType kNone = DType::kInvalid;
    constexpr DType kU32 = DType::kUInt32;
    switch (kind) {
      case ir::FrameworkOp::PIPE_INIT:
      case ir::FrameworkOp::PIPE_RESET:
      case ir::FrameworkOp::PIPE_DESTROY:
        *out = {0, 0, 0, 0, 0, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::INIT_BUFFER:
        *out = {1, 0, 0, 0, 2, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::INIT_BUF_POOL:
        *out = {0, 0, 1, 2, 1, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::POOL_INIT_BUFFER:
        *out = {1, 1, 0, 0, 2, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::POOL_INIT_BUF_POOL:
        *out = {0, 1, 1, 2, 1, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::POOL_RESET:
        *out = {0, 1, 0, 0, 0, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::ALLOC_TENSOR:
      case ir::FrameworkOp::DEQUE:
      case ir::FrameworkOp::TBUF_GET:
        *out = {1, 0, 0, 0, 0, kU32, kU32, false, false};
        return true;
      case ir::FrameworkOp::ENQUE:
      case ir::FrameworkOp::FREE_TENSOR:
        *out = {1, 0, 0, 0, 1, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::VACANT_IN_QUE:
      case ir::FrameworkOp::HAS_TENSOR_IN_QUE:
      case ir::FrameworkOp::HAS_IDLE_BUFFER:
        *out = {1, 0, 0, 0, 0, DType::kBool, kNone, false, false};
        return true;
      case ir::FrameworkOp::TENSOR_COUNT_IN_QUE:
        *out = {1, 0, 0, 0, 0, DType::kInt32, kNone, false, false};
        return true;
      case ir::FrameworkOp::FREE_ALL_EVENT:
        *out = {1, 0, 0, 0, 0, kNone, kNone, false, false};
        return true;
      case ir::FrameworkOp::ALLOC_EVENT_ID:
      case ir::FrameworkOp::FETCH_EVENT_ID:
        *out = {0, 0, 0, 0, 0, DType::kInt32, kNone, true, false};
        return true;
      case ir::FrameworkOp::RELEASE_EVENT_ID:
        *out = {0, 0, 0, 0, 1, kNone, kNone, true, false};
        return true;
      case ir::FrameworkOp::GET_BASE_ADDR:
        *out = {0, 0, 0, 0, 0, kU32, kNone, false, true};
        return true;
      default:
        return false;
    }
  }

  // Resolves a queue / pool reference; `rule` is the FwkSpec entry (0 none, 1 required,
  // 2 optional). *index is the 1-based index into Program::queues / pools, 0 when absent.
  Status ResolveDeclRef(uint32_t id, uint8_t rule, bool is_pool, const std::string& field,
                        const std::string& kind_name, uint32_t* index) const {
    *index = 0;
    const char* what = is_pool ? "pool" : "queue";
    if (id == 0) {
      if (rule == 1)
        return OpError(field, std::string("missing: ") + kind_name + " needs a " +
                                  (is_pool ? "pool" : "queue or TBuf"));
      return Status::Ok();
    }
    if (rule == 0) {
      return OpError(field, "is " + std::to_string(id) + " but " + kind_name + " takes no " + what);
    }
    const auto& map = is_pool ? pool_index_ : queue_index_;
    auto it = map.find(id);
    if (it == map.end()) {
      return OpError(field, std::string(what) + " " + std::to_string(id) +
                                " is not declared (Kernel." + (is_pool ? "pools" : "queues") +
                                " has " + std::to_string(map.size()) + " entries)");
    }
    *index = it->second + 1;
    return Status::Ok();
  }

  Status DecodeFramework(const ir::FrameworkOp& op, Instr* in) {
    in->opcode = Opcode::kFramework;
    FwkSpec spec;
    if (!FwkSpecOf(op.kind(), &spec)) {
      return OpError("kind", std::to_string(op.kind()) + " is not a FrameworkOp.Kind value");
    }
    std::string kind_name = ir::FrameworkOp::Kind_Name(op.kind());
    FwkInfo info;
    info.kind = static_cast<FwkKind>(op.kind());
    if (Status s = ResolveDeclRef(op.queue(), spec.queue, false, "queue", kind_name, &info.queue);
        !s.ok()) {
      return s;
    }
    if (Status s = ResolveDeclRef(op.pool(), spec.pool, true, "pool", kind_name, &info.pool);
        !s.ok()) {
      return s;
    }
    if (Status s = ResolveDeclRef(op.sub_pool(), spec.sub_pool, true, "sub_pool", kind_name,
                                  &info.sub_pool);
        !s.ok()) {
      return s;
    }
    if (Status s = ResolveDeclRef(op.share_pool(), spec.share_pool, true, "share_pool", kind_name,
                                  &info.share_pool);
        !s.ok()) {
      return s;
    }
    const QueueInfo* queue = info.queue != 0 ? &p_->queues[info.queue - 1] : nullptr;
    if (queue != nullptr) {
      bool tbuf_only = info.kind == FwkKind::kTbufGet;
      bool queue_only = info.kind == FwkKind::kEnque || info.kind == FwkKind::kDeque ||
                        info.kind == FwkKind::kVacantInQue ||
                        info.kind == FwkKind::kHasTensorInQue ||
                        info.kind == FwkKind::kTensorCountInQue ||
                        info.kind == FwkKind::kHasIdleBuffer || info.kind == FwkKind::kFreeAllEvent;
      if (tbuf_only && !queue->is_tbuf) {
        return OpError("queue", queue->label + " is a queue; " + kind_name + " needs a TBuf");
      }
      if (queue_only && queue->is_tbuf) {
        return OpError("queue", queue->label + " is a TBuf, which has no queue; " + kind_name +
                                    " needs a TQue or TQueBind");
      }
    }
    if (info.sub_pool != 0) {
      if (info.sub_pool == info.pool) {
        return OpError("sub_pool", "is the pool it is carved from");
      }
      if (info.share_pool == info.sub_pool) {
        return OpError("share_pool", "is the pool being carved; a pool cannot share itself");
      }
      const PoolInfo& sub = p_->pools[info.sub_pool - 1];
      if (info.pool != 0 && p_->pools[info.pool - 1].memory != sub.memory) {
        const PoolInfo& parent = p_->pools[info.pool - 1];
        return OpError("sub_pool", sub.label + " (" + PositionName(sub.position) + ", " +
                                       std::string(MemSpaceName(sub.memory)) +
                                       ") is not in the "
                                       "memory of " +
                                       parent.label + " (" + PositionName(parent.position) + ", " +
                                       std::string(MemSpaceName(parent.memory)) + ")");
      }
      if (info.share_pool != 0 && p_->pools[info.share_pool - 1].memory != sub.memory) {
        const PoolInfo& share = p_->pools[info.share_pool - 1];
        return OpError("share_pool", share.label + " (" + std::string(MemSpaceName(share.memory)) +
                                         ") is not in the memory of " + sub.label + " (" +
                                         std::string(MemSpaceName(sub.memory)) +
                                         "); a shared pool aliases the same physical memory");
      }
    }
    if (info.kind == FwkKind::kPoolInitBuffer) {
      const PoolInfo& pool = p_->pools[info.pool - 1];
      if (queue->memory != pool.memory) {
        return OpError("queue", queue->label + " lives in " +
                                    std::string(MemSpaceName(queue->memory)) + " (" +
                                    PositionName(queue->position) + ") but " + pool.label +
                                    " is in " + std::string(MemSpaceName(pool.memory)) + " (" +
                                    PositionName(pool.position) +
                                    "); a pool only serves buffers of its own physical memory");
      }
    }
    if (op.operands_size() != spec.operands) {
      return OpError("operands", kind_name + " takes " + std::to_string(spec.operands) +
                                     " operand" + (spec.operands == 1 ? "" : "s") + " (" +
                                     FwkOperandNames(info.kind) + "), got " +
                                     std::to_string(op.operands_size()));
    }
    for (int i = 0; i < op.operands_size(); ++i) {
      if (Status u = UseInteger(op.operands(i), "operands[" + std::to_string(i) + "]"); !u.ok()) {
        return u;
      }
      info.operands[i] = op.operands(i);
    }
    if (spec.event) {
      if (Status s = CheckEventOnCore(op.event(), "event"); !s.ok()) return s;
      info.event = static_cast<uint8_t>(op.event());
    } else if (op.event() != 0) {
      return OpError("event", "is set but " + kind_name + " takes no event");
    }
    if (spec.position) {
      MemSpace m = MemoryOf(op.position());
      if (!ir::Position_IsValid(op.position()) || m == MemSpace::kInvalid || m == MemSpace::kGm) {
        return OpError("position", PositionName(op.position()) +
                                       " has no local memory (use a position such as POS_VECIN "
                                       "or POS_A1)");
      }
      if (Status s = CheckMemoryOnCore(m, op.position(), "position"); !s.ok()) {
        return OpError("position", PositionName(op.position()) + " is in " +
                                       std::string(MemSpaceName(m)) +
                                       ", which a vector core does not have (AIV_ONLY kernel)");
      }
      info.memory = m;
    } else if (op.position() != 0) {
      return OpError("position", "is set but " + kind_name + " takes no position");
    }
    if (spec.result == DType::kInvalid) {
      if (op.result() != 0) return OpError("result", "is set but " + kind_name + " has no result");
      if (op.result2() != 0) {
        return OpError("result2", "is set but " + kind_name + " has no result");
      }
    } else {
      if (Status d = Define(op.result(), spec.result, "result"); !d.ok()) return d;
      info.result = op.result();
      in->result = op.result();
      if (op.result2() != 0) {
        if (spec.result2 == DType::kInvalid) {
          return OpError("result2", "is set but " + kind_name + " has one result");
        }
        if (Status d = Define(op.result2(), spec.result2, "result2"); !d.ok()) return d;
        info.result2 = op.result2();
      }
    }
    in->aux = static_cast<uint32_t>(p_->fwk_ops.size());
    p_->fwk_ops.push_back(info);
    return Status::Ok();
  }

  static std::string FwkOperandNames(FwkKind k) {
    switch (k) {
      case FwkKind::kInitBuffer:
      case FwkKind::kPoolInitBuffer:
        return "num, len";
      case FwkKind::kInitBufPool:
      case FwkKind::kPoolInitBufPool:
        return "len";
      case FwkKind::kEnque:
      case FwkKind::kFreeTensor:
        return "the tensor's address";
      case FwkKind::kReleaseEventId:
        return "id";
      default:
        return "none";
    }
  }

  Status CheckEventOnCore(uint32_t event, const std::string& field) const {
    if (event >= kNumHardEvents) {
      return OpError(field, std::to_string(event) + " is not a HardEvent value (0..34)");
    }
    const HardEventInfo& ev = HardEvent(event);
    bool aiv = p_->kernel_type == KernelType::kAivOnly;
    bool aic = p_->kernel_type == KernelType::kAicOnly;
    bool valid = aiv ? ev.on_aiv : (aic ? ev.on_aic : (ev.on_aiv || ev.on_aic));
    if (!valid) {
      std::string where = aiv ? "a vector core (AIV_ONLY kernel)"
                              : (aic ? "a cube core (AIC_ONLY kernel)" : "Ascend 910B (C220)");
      return OpError(field, std::string(ev.name) + " (" + std::to_string(event) +
                                ") is not a valid event on " + where + " (hardware-910b.md 3.3)");
    }
    return Status::Ok();
  }

  Status DecodeFlag(uint32_t event, uint32_t event_id, bool is_set, Instr* in) {
    in->opcode = is_set ? Opcode::kSetFlag : Opcode::kWaitFlag;
    if (Status s = CheckEventOnCore(event, "event"); !s.ok()) return s;
    const HardEventInfo& ev = HardEvent(event);
    if (Status u = UseInteger(event_id, "event_id"); !u.ok()) return u;
    in->event = static_cast<uint8_t>(event);
    in->a = event_id;
    in->pipe = is_set ? ev.src : ev.dst;
    return Status::Ok();
  }

  Status DecodePipeBarrier(const ir::PipeBarrierOp& b, Instr* in) {
    in->opcode = Opcode::kPipeBarrier;
    switch (b.pipe()) {
      case ir::PIPE_S:
        in->pipe = PipeId::kS;
        break;
      case ir::PIPE_V:
        in->pipe = PipeId::kV;
        break;
      case ir::PIPE_M:
        in->pipe = PipeId::kM;
        break;
      case ir::PIPE_MTE1:
        in->pipe = PipeId::kMte1;
        break;
      case ir::PIPE_MTE2:
        in->pipe = PipeId::kMte2;
        break;
      case ir::PIPE_MTE3:
        in->pipe = PipeId::kMte3;
        break;
      case ir::PIPE_ALL:
        in->pipe = PipeId::kAll;
        break;
      case ir::PIPE_FIX:
        in->pipe = PipeId::kFix;
        break;
      default:
        return OpError("pipe", (ir::Pipe_IsValid(b.pipe()) ? ir::Pipe_Name(b.pipe())
                                                           : std::to_string(b.pipe())) +
                                   " is not a pipe of Ascend 910B (C220): use PIPE_S, PIPE_V, "
                                   "PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX or PIPE_ALL");
    }
    return Status::Ok();
  }

  const ir::Kernel& k_;
  std::shared_ptr<Program> p_;
  std::vector<int32_t> def_scope_;  // per id: scope instance that defined it, -1 = undefined
  std::vector<int64_t> def_op_;     // per id: defining op index, -1 = parameter
  std::vector<uint8_t> scope_active_;
  std::vector<int32_t> scope_stack_;
  int32_t current_scope_ = -1;
  uint32_t op_counter_ = 0;
  OpContext op_;
  bool in_op_ = false;
  std::unordered_map<uint32_t, uint32_t> queue_index_;  // QueueDecl.id -> index
  std::unordered_map<uint32_t, uint32_t> pool_index_;   // BufPoolDecl.id -> index
};

}  // namespace

StatusOr<std::shared_ptr<const Program>> DecodeKernel(const aicore::ir::v1::Kernel& kernel) {
  Decoder decoder(kernel);
  return decoder.Run();
}

}  // namespace aicore::sim
