// The shared state of one decode (see decode_context.h): error wording, SSA definition and
// scoping rules, regions and slot lists, and the operand checks several op families use
// (tensor references, dtypes, events and memories valid on the kernel's cores).
#include "sim/bridge/decode_context.h"

#include "sim/isa/positions.h"
#include "sim/soc/core_spec.h"
#include "sim/soc/group_shape.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {

std::string IrDTypeName(int v) {
  return ir::DType_IsValid(v) ? ir::DType_Name(static_cast<ir::DType>(v)) : std::to_string(v);
}

std::string PositionName(int v) {
  return ir::Position_IsValid(v) ? ir::Position_Name(static_cast<ir::Position>(v))
                                 : std::to_string(v);
}

std::string PositionsIn(MemSpace memory) {
  std::vector<std::string> names;
  for (int p = kPosGm; p < kPosMax; ++p) {
    if (MemoryOf(p) == memory) names.push_back(PositionName(p));
  }
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return s;
}

// isa/positions.h spells the IR's Position values without including protobuf.
static_assert(kPosGm == ir::POS_GM && kPosA1 == ir::POS_A1 && kPosA2 == ir::POS_A2 &&
              kPosB1 == ir::POS_B1 && kPosB2 == ir::POS_B2 && kPosC1 == ir::POS_C1 &&
              kPosC2 == ir::POS_C2 && kPosCo1 == ir::POS_CO1 && kPosCo2 == ir::POS_CO2 &&
              kPosVecIn == ir::POS_VECIN && kPosVecOut == ir::POS_VECOUT &&
              kPosVecCalc == ir::POS_VECCALC && kPosMax == ir::POS_MAX);

Status DecodeContext::KernelError(const std::string& field, const std::string& reason) const {
  return InvalidArgument("kernel " + (k_.name().empty() ? std::string("<unnamed>") : k_.name()) +
                         ": field " + field + ": " + reason);
}

Status DecodeContext::OpError(const std::string& field, const std::string& reason) const {
  return InvalidArgument("op " + std::to_string(op_.index) + " (" + op_.kind + ")" + op_.where +
                         ": field " + field + ": " + reason);
}

Status DecodeContext::CheckId(uint32_t id, const std::string& field) const {
  if (id == 0) return Fail(field, "missing (SSA id 0 means absent)");
  if (id > p_->num_values) {
    return Fail(field, "SSA id %" + std::to_string(id) + " is out of range 1.." +
                           std::to_string(p_->num_values) + " (num_values)");
  }
  return Status::Ok();
}

Status DecodeContext::Fail(const std::string& field, const std::string& reason) const {
  return in_op_ ? OpError(field, reason) : KernelError(field, reason);
}

Status DecodeContext::Define(uint32_t id, DType t, const std::string& field) {
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

Status DecodeContext::Use(uint32_t id, const std::string& field, DType* t) const {
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

Status DecodeContext::UseTyped(uint32_t id, const std::string& field, DType want) const {
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

Status DecodeContext::UseInteger(uint32_t id, const std::string& field) const {
  DType t;
  Status s = Use(id, field, &t);
  if (!s.ok()) return s;
  if (!IsInteger(t)) {
    return Fail(field, "%" + std::to_string(id) + " has dtype " + std::string(DTypeProtoName(t)) +
                           "; an integer is required");
  }
  return Status::Ok();
}

Status DecodeContext::UseOptionalInteger(uint32_t id, const std::string& field) const {
  return id == 0 ? Status::Ok() : UseInteger(id, field);
}

int32_t DecodeContext::EnterScope() {
  int32_t s = static_cast<int32_t>(scope_active_.size());
  scope_active_.push_back(1);
  scope_stack_.push_back(current_scope_);
  current_scope_ = s;
  return s;
}

void DecodeContext::LeaveScope() {
  scope_active_[current_scope_] = 0;
  current_scope_ = scope_stack_.back();
  scope_stack_.pop_back();
}

uint32_t DecodeContext::NewRegion() {
  p_->regions.emplace_back();
  return static_cast<uint32_t>(p_->regions.size() - 1);
}

SlotSpan DecodeContext::AddSlots(const google::protobuf::RepeatedField<uint32_t>& ids) {
  SlotSpan s{static_cast<uint32_t>(p_->slot_lists.size()), static_cast<uint32_t>(ids.size())};
  p_->slot_lists.insert(p_->slot_lists.end(), ids.begin(), ids.end());
  return s;
}

Status DecodeContext::CheckDType(int v, const std::string& field) const {
  if (!ir::DType_IsValid(v) || v == ir::DT_INVALID) {
    return OpError(field, IrDTypeName(v) + " is not a valid dtype");
  }
  return Status::Ok();
}

Status DecodeContext::DecodeTensor(const ir::TensorRef& t, const std::string& name, bool ub_only,
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
  auto memory = static_cast<MemSpace>(t.space());
  bool gm = memory == MemSpace::kGm;
  if (!gm && !KernelHasMemory(memory)) {
    return OpError(name + ".space",
                   space + " is not on the cores of a " + KernelTypeLabel(p_->kernel_type) +
                       " kernel (a vector core has UB; a cube core has L1, L0A, L0B, L0C, BT "
                       "and FB)");
  }
  if (!ir::Position_IsValid(t.position())) {
    return OpError(name + ".position", std::to_string(t.position()) + " is not a valid Position");
  }
  if (MemoryOf(t.position()) != memory) {
    return OpError(name + ".position", ir::Position_Name(t.position()) + " does not belong to " +
                                           space + " (use " + PositionsIn(memory) + ")");
  }
  if (!ir::DType_IsValid(t.dtype()) || t.dtype() == ir::DT_INVALID || t.dtype() == ir::DT_BOOL) {
    return OpError(name + ".dtype", IrDTypeName(t.dtype()) + " is not a tensor element type");
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

std::string DecodeContext::DeclWhere(const ir::SourceLoc& loc) const {
  Instr probe;
  probe.file = loc.file() < static_cast<uint32_t>(k_.files_size()) ? loc.file() : Program::kNoFile;
  probe.line = loc.line();
  return p_->Where(probe);
}

bool DecodeContext::KernelHasMemory(MemSpace m) const {
  const GroupShape& shape = GroupShapeOf(p_->kernel_type);
  for (CoreType t : {CoreType::kAiv, CoreType::kAic}) {
    if (shape.PerGroup(t) > 0 && HasMemory(t, m)) return true;
  }
  return false;
}

Status DecodeContext::CheckMemoryOnCore(MemSpace m, int pos, const std::string& field) const {
  if (KernelHasMemory(m)) return Status::Ok();
  bool aiv = GroupShapeOf(p_->kernel_type).aic == 0;
  return KernelError(field,
                     PositionName(pos) + " is in " + std::string(MemSpaceName(m)) + ", which " +
                         (aiv ? "a vector core" : "a cube core") + " does not have (" +
                         KernelTypeLabel(p_->kernel_type) + " kernel: use " +
                         (aiv ? PositionsIn(MemSpace::kUb)
                              : "POS_A1, POS_B1, POS_C1, POS_A2, POS_B2, POS_CO1 or POS_C2") +
                         ")");
}

namespace {

// Paths the chip lacks that users reach for, with the way the chip does it instead.
struct MissingPath {
  MemSpace src, dst;
  const char* hint;
};
constexpr MissingPath kMissingPaths[] = {
    {MemSpace::kL0c, MemSpace::kUb,
     "C reaches a vector core through GM (fixpipe to GM, then data_copy GM -> UB)"},
};

}  // namespace

Status DecodeContext::CheckRoute(MemSpace src, MemSpace dst, const std::string& what,
                                 const std::string& field) const {
  const GroupShape& shape = GroupShapeOf(p_->kernel_type);
  std::string paths;
  for (CoreType t : {CoreType::kAiv, CoreType::kAic}) {
    if (shape.PerGroup(t) == 0) continue;
    for (const Route& r : RoutesOf(t)) {
      if (r.src == src && r.dst == dst) return Status::Ok();
      // "on PIPE_V", not a bare "on V"; the data movers read well as MTE2/FIX.
      std::string pipe = r.pipe == PipeId::kV || r.pipe == PipeId::kM
                             ? "PIPE_" + std::string(PipeName(r.pipe))
                             : std::string(PipeName(r.pipe));
      paths += std::string(paths.empty() ? "" : ", ") + std::string(MemSpaceName(r.src)) + "->" +
               std::string(MemSpaceName(r.dst)) + " on " + pipe;
    }
  }
  std::string path = std::string(MemSpaceName(src)) + " -> " + std::string(MemSpaceName(dst));
  for (const MissingPath& m : kMissingPaths) {
    if (m.src == src && m.dst == dst) {
      return OpError(field, "Ascend 910B (C220) has no " + path + " path; " + m.hint);
    }
  }
  return OpError(field, path + " is not a " + what + " path of a " +
                            KernelTypeLabel(p_->kernel_type) + " kernel (" + paths + ")");
}

Status DecodeContext::UseOptionalFlag(uint32_t id, const std::string& field) const {
  if (id == 0) return Status::Ok();
  DType t;
  if (Status s = Use(id, field, &t); !s.ok()) return s;
  if (t != DType::kBool && !IsInteger(t)) {
    return Fail(field, "%" + std::to_string(id) + " has dtype " + std::string(DTypeProtoName(t)) +
                           "; a bool or an integer is required");
  }
  return Status::Ok();
}

Status DecodeContext::CheckEventOnCore(uint32_t event, const std::string& field) const {
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

}  // namespace aicore::sim
