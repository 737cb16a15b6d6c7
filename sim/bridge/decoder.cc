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

#include "sim/bridge/bridge.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/isa/vector_ops.h"
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
    if (Status u = UseInteger(t.addr(), name + ".addr"); !u.ok()) return u;
    if (Status u = UseOptionalInteger(t.count(), name + ".count"); !u.ok()) return u;
    out->space = static_cast<MemSpace>(t.space());
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
    std::string supported;
    for (DType d : {DType::kFloat16, DType::kFloat32, DType::kInt16, DType::kInt32}) {
      if (!VectorOpSupports(op, d)) continue;
      if (!supported.empty()) supported += ", ";
      supported += std::string(DTypeProtoName(d));
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

  Status DecodeVecBinary(const ir::VecBinaryOp& v, Instr* in) {
    in->opcode = Opcode::kVecAdd;
    static constexpr Opcode kOps[] = {Opcode::kVecAdd, Opcode::kVecAdd, Opcode::kVecSub,
                                      Opcode::kVecMul, Opcode::kVecDiv, Opcode::kVecMax,
                                      Opcode::kVecMin};
    if (!ir::VecBinaryOp::Kind_IsValid(v.kind()) || v.kind() == ir::VecBinaryOp::KIND_INVALID) {
      return OpError("kind", std::to_string(v.kind()) + " is not a VecBinaryOp.Kind value");
    }
    MemOpInfo m;
    if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src0(), "src0", true, &m.src0); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src1(), "src1", true, &m.src1); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src0, "src0"); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src1, "src1"); !s.ok()) return s;
    return FinishVector(kOps[v.kind()], m, v.count(), in);
  }

  Status DecodeVecUnary(const ir::VecUnaryOp& v, Instr* in) {
    in->opcode = Opcode::kVecAbs;
    static constexpr Opcode kOps[] = {Opcode::kVecAbs, Opcode::kVecAbs,  Opcode::kVecExp,
                                      Opcode::kVecLn,  Opcode::kVecSqrt, Opcode::kVecRelu};
    if (!ir::VecUnaryOp::Kind_IsValid(v.kind()) || v.kind() == ir::VecUnaryOp::KIND_INVALID) {
      return OpError("kind", std::to_string(v.kind()) + " is not a VecUnaryOp.Kind value");
    }
    MemOpInfo m;
    if (Status s = DecodeTensor(v.dst(), "dst", true, &m.dst); !s.ok()) return s;
    if (Status s = DecodeTensor(v.src(), "src", true, &m.src0); !s.ok()) return s;
    if (Status s = SameDType(m.dst, m.src0, "src"); !s.ok()) return s;
    return FinishVector(kOps[v.kind()], m, v.count(), in);
  }

  Status DecodeVecScalar(const ir::VecScalarOp& v, Instr* in) {
    in->opcode = Opcode::kVecAdds;
    static constexpr Opcode kOps[] = {Opcode::kVecAdds, Opcode::kVecAdds, Opcode::kVecMuls,
                                      Opcode::kVecMaxs, Opcode::kVecMins};
    if (!ir::VecScalarOp::Kind_IsValid(v.kind()) || v.kind() == ir::VecScalarOp::KIND_INVALID) {
      return OpError("kind", std::to_string(v.kind()) + " is not a VecScalarOp.Kind value");
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
    return FinishVector(kOps[v.kind()], m, v.count(), in);
  }

  Status DecodeFlag(uint32_t event, uint32_t event_id, bool is_set, Instr* in) {
    in->opcode = is_set ? Opcode::kSetFlag : Opcode::kWaitFlag;
    if (event >= kNumHardEvents) {
      return OpError("event", std::to_string(event) + " is not a HardEvent value (0..34)");
    }
    const HardEventInfo& ev = HardEvent(event);
    bool aiv = p_->kernel_type == KernelType::kAivOnly;
    bool aic = p_->kernel_type == KernelType::kAicOnly;
    bool valid = aiv ? ev.on_aiv : (aic ? ev.on_aic : (ev.on_aiv || ev.on_aic));
    if (!valid) {
      std::string where = aiv ? "a vector core (AIV_ONLY kernel)"
                              : (aic ? "a cube core (AIC_ONLY kernel)" : "Ascend 910B (C220)");
      return OpError("event", std::string(ev.name) + " (" + std::to_string(event) +
                                  ") is not a valid event on " + where + " (hardware-910b.md 3.3)");
    }
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
};

}  // namespace

StatusOr<std::shared_ptr<const Program>> DecodeKernel(const aicore::ir::v1::Kernel& kernel) {
  Decoder decoder(kernel);
  return decoder.Run();
}

}  // namespace aicore::sim
