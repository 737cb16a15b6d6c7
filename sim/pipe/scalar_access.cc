// Element accesses of the scalar unit (see scalar_access.h).
#include "sim/pipe/scalar_access.h"

#include <bit>
#include <string>

#include "sim/check/bounds.h"
#include "sim/core/invariant.h"
#include "sim/isa/fp16.h"

namespace aicore::sim {

ScalarValue FromElementBits(uint64_t bits, DType t) {
  switch (t) {
    case DType::kFloat16:
      return FloatValue(HalfToFloat(static_cast<uint16_t>(bits)));
    case DType::kBFloat16:
      return FloatValue(Bf16ToFloat(static_cast<uint16_t>(bits)));
    case DType::kFloat32:
      return FloatValue(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case DType::kFloat64:
      return FloatValue(std::bit_cast<double>(bits));
    default:
      return WrapInteger(bits, t);
  }
}

bool BuildScalarAccess(const Instr& instr, const std::vector<ScalarValue>& values,
                       const IssueEnv& env, const Site& site, IssuedInstr* out) {
  if (Info(instr.opcode).op_class == OpClass::kSprRead) {
    // A special register PIPE_V wrote: count `kind` of VMS4_SR, or ACC_VAL as an element.
    SIM_CHECK(env.spr != nullptr, "a special-register read issued without the registers");
    bool acc = instr.opcode == Opcode::kAccValRead;
    uint64_t bytes = acc ? DTypeSize(instr.dtype) : sizeof(uint16_t);
    uint64_t at = acc ? kAccValOffset : kVms4SrOffset + instr.kind * bytes;
    out->instr = &instr;
    out->ranges[0] = MemRange{MemSpace::kSpr, at, at + bytes, false, 0, 0};
    out->num_ranges = 1;
    out->src0 = Transfer{env.spr + at, bytes, bytes, 1};
    out->src0_addr = at;
    out->bytes = bytes;
    out->count = 1;
    return true;
  }
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  bool store = instr.opcode == Opcode::kScalarStore;
  const TensorOperand& t = store ? m.dst : m.src0;
  const char* name = store ? "dst" : "src";
  auto fail = [&](const std::string& why) {
    env.diags.Error(env.diags.Make(Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError,
                                   site, env.diags.Prefix(site) + ": " + why + "."));
    return false;
  };
  out->instr = &instr;
  uint64_t size = DTypeSize(t.dtype);
  DType addr_type = env.program.value_dtypes[t.addr];
  uint64_t base = values[t.addr].u;
  if (IsSigned(addr_type) && values[t.addr].i < 0) {
    return fail(std::string("field ") + name + ".addr is negative (" +
                std::to_string(values[t.addr].i) + "); addresses must be >= 0");
  }
  int64_t index = AsInt64(values[instr.a], env.program.value_dtypes[instr.a]);
  if (index < 0) {
    return fail("index " + std::to_string(index) +
                " is negative. Fix: index elements from 0 (get_value/set_value take an element "
                "offset from the tensor's start)");
  }
  // An index past the address space saturates; the bounds checks below then report it.
  uint64_t offset = static_cast<uint64_t>(index) > (UINT64_MAX / 2) / size
                        ? UINT64_MAX / 2
                        : static_cast<uint64_t>(index) * size;
  uint64_t address = base + offset < base ? UINT64_MAX - size : base + offset;
  AccessRole role{name, store};
  uint8_t* host = nullptr;
  if (t.space == MemSpace::kGm) {
    host = CheckGmAccess(env.gm, address, size, size, role, site, env.diags);
    if (host == nullptr) return false;
  } else {
    LocalMemory* mem = env.memories.Find(t.space);
    if (mem == nullptr) {
      return fail(std::string(Info(instr.opcode).mnemonic) + " of " +
                  std::string(MemSpaceName(t.space)) + ", which this core does not have");
    }
    // The scalar unit reads single elements: aligned to the element, not to a 32-byte block.
    if (!CheckLocalAccess(*mem, address, size, size, role, site, env.diags)) return false;
    host = mem->data() + address;
  }
  out->ranges[0] = MemRange{t.space, address, address + size, store, 0, 0};
  out->num_ranges = 1;
  Transfer element{host, size, size, 1};
  (store ? out->dst : out->src0) = element;
  (store ? out->dst_addr : out->src0_addr) = address;
  out->bytes = size;
  out->count = 1;
  if (store) out->scalar_bits = ToElementBits(values[instr.b], instr.src_dtype, t.dtype);
  return true;
}

}  // namespace aicore::sim
