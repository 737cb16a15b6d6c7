// Issue of the sort and proposal instructions (asc-api.md 4.12; see issue_internal.h).
#include <string>

#include "sim/core/invariant.h"
#include "sim/pipe/issue_internal.h"

namespace aicore::sim::issue {
namespace {

// Sort and proposal instructions (asc-api.md 4.12): whole structures or proposals per iteration,
// the mask ignored (ascendc-semantics.md 6.3). Every byte read or written is in a range: a
// proposal field as a strided range of one element per proposal.
constexpr uint64_t kSortStructBytes = 8;  // (score, uint32 index)
constexpr uint64_t kSort32Group = 32;
constexpr uint64_t kProposalGroup = 16;
constexpr int64_t kMaxProposalField = 5;  // mode_number: x1 y1 x2 y2 score label
constexpr int64_t kMaxListLength = 4095;  // MrgSort4Info.elementLengths

// Resolves a strided field of `n` proposals (one element every proposal) whose proposals start
// at `address`: bounds as whole proposals, the range as the field's bytes only.
bool ResolveField(const TensorOperand& t, uint64_t address, uint64_t n, uint64_t esize,
                  uint64_t field, AccessRole role, const IssueEnv& env, const Site& site,
                  uint8_t** host, IssuedInstr* out) {
  uint64_t pbytes = kProposalElements * esize;
  uint8_t before = out->num_ranges;
  if (!ResolveSide(t, address, n * pbytes, role, env, site, host, out)) return false;
  if (out->num_ranges > before && n > 0) {
    uint64_t lo = address + field * esize;
    out->ranges[before] =
        MemRange{t.space, lo, lo + (n - 1) * pbytes + esize, role.write, esize, pbytes};
  }
  return true;
}

bool BuildMergeLists(const Instr& instr, const Evaluator& ev, const IssueEnv& env, const Site& site,
                     uint64_t repeats, IssuedInstr* out, uint64_t* dst_span) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  uint64_t eb = MergeElementBytes(instr.opcode, instr.dtype);
  uint64_t valid = 0;
  if (!ev.InRange(m.valid_bit, "valid_bit", 15, &valid)) return false;
  if (valid != 3 && valid != 7 && valid != 15) {
    return ev.Fail("field valid_bit = " + std::to_string(valid) +
                   " is not 3, 7 or 15 (the first 2, 3 or 4 lists)");
  }
  int lists = valid == 3 ? 2 : valid == 7 ? 3 : 4;
  const TensorOperand* src[4] = {&m.src0, &m.src1, &m.src2, &m.src3};
  if (src[lists - 1]->space == MemSpace::kInvalid) {
    return ev.Fail("valid_bit " + std::to_string(valid) + " merges " + std::to_string(lists) +
                   " lists, but the source list has fewer");
  }
  uint64_t len[4] = {0, 0, 0, 0}, addr[4] = {0, 0, 0, 0}, total = 0;
  for (int i = 0; i < lists; ++i) {
    std::string field = "src[" + std::to_string(i) + "].addr";
    if (!ev.InRange(m.lengths[i], "element_lengths", kMaxListLength, &len[i]) ||
        !ev.Address(src[i]->addr, field.c_str(), &addr[i])) {
      return false;
    }
    total += len[i];
  }
  if (repeats > 1) {
    // The hardware steps every list by the four lists' length: they must be one region.
    if (valid != 15 || m.exhausted_suspension) {
      return ev.Fail("repeat_times = " + std::to_string(repeats) +
                     " needs valid_bit 15 and no exhausted suspension");
    }
    for (int i = 1; i < 4; ++i) {
      if (len[i] != len[0] || addr[i] != addr[0] + i * len[0] * eb) {
        return ev.Fail("repeat_times = " + std::to_string(repeats) +
                       " needs four lists of equal length stored back to back; list " +
                       std::to_string(i) + " is not");
      }
    }
    uint8_t* host = nullptr;
    uint64_t span = repeats * total * eb;
    if (!ResolveSide(*src[0], addr[0], span, {"src", false}, env, site, &host, out)) return false;
    for (int i = 0; i < 4; ++i) {
      out->lists[i] = Transfer{host == nullptr ? nullptr : host + i * len[0] * eb, len[i] * eb,
                               total * eb, repeats};
    }
  } else {
    for (int i = 0; i < lists; ++i) {
      uint8_t* host = nullptr;
      std::string name = "src[" + std::to_string(i) + "]";
      if (!ResolveSide(*src[i], addr[i], len[i] * eb, {name.c_str(), false}, env, site, &host,
                       out)) {
        return false;
      }
      out->lists[i] = Transfer{host, len[i] * eb, 0, repeats};
    }
  }
  for (int i = lists; i < 4; ++i) out->lists[i] = Transfer{};
  out->count = static_cast<uint64_t>(lists);  // lists merged (an empty one still takes part)
  *dst_span = repeats * total * eb;
  return true;
}

}  // namespace

bool BuildSort(const Instr& instr, const std::vector<ScalarValue>& /*values*/, const Evaluator& ev,
               const IssueEnv& env, const Site& site, IssuedInstr* out) {
  const MemOpInfo& m = env.program.mem_ops[instr.aux];
  OpClass cls = Info(instr.opcode).op_class;
  uint64_t esize = DTypeSize(instr.dtype);
  bool merge = cls == OpClass::kVecMrgSort;
  uint64_t repeats = 0;
  if (!ev.InRange(m.repeat_times, merge ? "repeat_times" : "repeat_time", kMaxRepeatTimes,
                  &repeats)) {
    return false;
  }
  if (merge && repeats == 0) return ev.Fail("field repeat_times = 0 is out of range [1, 255]");
  uint64_t dst_addr = 0, src_addr = 0, src1_addr = 0;
  if (!ev.Address(m.dst.addr, "dst.addr", &dst_addr)) return false;
  uint8_t* dst = nullptr;
  uint8_t* src0 = nullptr;
  uint8_t* src1 = nullptr;
  uint64_t dst_span = 0, src_span = 0;
  uint64_t field = 0;
  out->geo.repeats = repeats;  // the cost row's repeats
  if (cls == OpClass::kVecSort32) {
    uint64_t n = repeats * kSort32Group;
    if (!ev.Address(m.src0.addr, "src0.addr", &src_addr) ||
        !ev.Address(m.src1.addr, "src1.addr", &src1_addr) ||
        !ResolveSide(m.src0, src_addr, n * esize, {"src0", false}, env, site, &src0, out) ||
        !ResolveSide(m.src1, src1_addr, n * sizeof(uint32_t), {"src1", false}, env, site, &src1,
                     out)) {
      return false;
    }
    src_span = n * esize;
    dst_span = n * kSortStructBytes;
    out->count = n;
    if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out)) return false;
  } else if (cls == OpClass::kVecProposal) {
    uint64_t n = repeats * kProposalGroup;
    out->count = n;
    uint64_t pbytes = kProposalElements * esize;
    if (instr.opcode != Opcode::kVecRpSort16 &&
        !ev.InRange(m.mode_number, "mode_number", kMaxProposalField, &field)) {
      return false;
    }
    out->scalar_bits = field;
    if (!ev.Address(m.src0.addr, "src.addr", &src_addr)) return false;
    bool ok = true;
    if (instr.opcode == Opcode::kVecRpSort16) {
      src_span = dst_span = n * pbytes;
      ok = ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src0, out) &&
           ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out);
    } else if (instr.opcode == Opcode::kVecProposalConcat) {
      src_span = n * esize;
      dst_span = n * pbytes;
      ok = ResolveSide(m.src0, src_addr, src_span, {"src", false}, env, site, &src0, out) &&
           ResolveField(m.dst, dst_addr, n, esize, field, {"dst", true}, env, site, &dst, out);
    } else {
      src_span = n * pbytes;
      dst_span = n * esize;
      ok = ResolveField(m.src0, src_addr, n, esize, field, {"src", false}, env, site, &src0, out) &&
           ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out);
    }
    if (!ok) return false;
  } else {
    if (!BuildMergeLists(instr, ev, env, site, repeats, out, &dst_span)) return false;
    out->scalar_bits = m.exhausted_suspension ? 1 : 0;
    if (!ResolveSide(m.dst, dst_addr, dst_span, {"dst", true}, env, site, &dst, out)) return false;
    // Every merge sets VMS4_SR when it ends (get_mrg_sort_result reads it).
    SIM_CHECK(env.spr != nullptr, "a merge issued without a VMS4_SR register");
    out->ranges[out->num_ranges++] =
        MemRange{MemSpace::kSpr, kVms4SrOffset, kVms4SrOffset + kVms4SrBytes, true, 0, 0};
    out->reg = Transfer{env.spr + kVms4SrOffset, kVms4SrBytes, kVms4SrBytes, 1};
    // Cost: one repeat per 256 bytes of output (the model's unit for merges).
    out->geo.repeats = (dst_span + kVectorRepeatBlocks * kVectorBlockBytes - 1) /
                       (kVectorRepeatBlocks * kVectorBlockBytes);
  }
  out->repeat_form = true;
  out->src0 = Transfer{src0, src_span, src_span, 1};
  out->src1 = Transfer{src1, src1 == nullptr ? 0 : out->count * sizeof(uint32_t), 0, 1};
  out->dst = Transfer{dst, dst_span, dst_span, dst_span > 0 ? 1u : 0u};
  out->src0_addr = src_addr;
  out->src1_addr = src1_addr;
  out->dst_addr = dst_addr;
  out->bytes = dst_span;
  out->bursts = 1;
  return true;
}

}  // namespace aicore::sim::issue
