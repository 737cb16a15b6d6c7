// The issue stage's shared operand helpers (issue.cc, issue_sort.cc, issue_move.cc): scalar
// operands evaluated and checked, tensor sides resolved to host memory with their ranges for the
// race checker. Internal to sim/pipe; the stage's interface is issue.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/check/bounds.h"
#include "sim/isa/scalar_ops.h"
#include "sim/pipe/issue.h"

namespace aicore::sim::issue {

// Limits of DataCopyParams on 2201 (hardware-910b.md 6.1): blockCount [0, 4095], the others
// u16.
constexpr int64_t kMaxBlockCount = 4095;
constexpr int64_t kMaxU16 = 65535;
// DataCopyExtParams (ascendc-semantics.md 5.11): blockLen in bytes up to 2097151, u32 strides.
constexpr int64_t kMaxPadBlockLen = 2097151;
constexpr int64_t kMaxU32 = 4294967295;
constexpr uint64_t kBlockBytes = 32;  // DataBlock: the unit of DataCopy lengths and strides
constexpr uint64_t kBiasTableBlockBytes = 64;  // DataCopy's blockLen unit into BT (C2) on A2

class Evaluator {
 public:
  Evaluator(const std::vector<ScalarValue>& values, const IssueEnv& env, const Site& site)
      : values_(values), env_(env), site_(site) {}

  int64_t Int(uint32_t slot) const {
    if (slot == 0) return 0;
    return AsInt64(values_[slot], env_.program.value_dtypes[slot]);
  }

  ScalarValue Value(uint32_t slot) const { return values_[slot]; }
  DType DTypeOf(uint32_t slot) const { return env_.program.value_dtypes[slot]; }

  // Address operands may be uint64 device pointers: keep them unsigned.
  bool Address(uint32_t slot, const char* field, uint64_t* out) const {
    DType t = env_.program.value_dtypes[slot];
    if (t == DType::kUInt64 || t == DType::kUInt32 || t == DType::kUInt16 || t == DType::kUInt8) {
      *out = values_[slot].u;
      return true;
    }
    int64_t v = Int(slot);
    if (v < 0)
      return Fail(std::string("field ") + field + " is negative (" + std::to_string(v) +
                  "); addresses must be >= 0");
    *out = static_cast<uint64_t>(v);
    return true;
  }

  bool InRange(uint32_t slot, const char* field, int64_t max, uint64_t* out) const {
    int64_t v = Int(slot);
    if (v < 0 || v > max) {
      return Fail(std::string("field ") + field + " = " + std::to_string(v) +
                  " is out of range [0, " + std::to_string(max) + "]");
    }
    *out = static_cast<uint64_t>(v);
    return true;
  }

  bool Fail(const std::string& why) const {
    env_.diags.Error(env_.diags.Make(Diagnostic::Kind::kInvalidOperand,
                                     Diagnostic::Severity::kError, site_,
                                     env_.diags.Prefix(site_) + ": " + why + "."));
    return false;
  }

 private:
  const std::vector<ScalarValue>& values_;
  const IssueEnv& env_;
  const Site& site_;
};

// Resolves one side of a copy or vector operand to host memory after checking it (UB alignment:
// the memory's, or `alignment` when nonzero) and adds its range for the race checker.
bool ResolveSide(const TensorOperand& t, uint64_t address, uint64_t span, AccessRole role,
                 const IssueEnv& env, const Site& site, uint8_t** host, IssuedInstr* out,
                 uint64_t chunk = 0, uint64_t pitch = 0, uint64_t alignment = 0);
void AddCmpMaskRange(bool write, IssuedInstr* out);
// count * size without overflow: anything absurd saturates and then fails the bounds check.
uint64_t Bytes(uint64_t count, uint64_t element_bytes);
bool LoadOwnMask(const MemOpInfo& m, const std::vector<ScalarValue>& values, const Evaluator& ev,
                 uint32_t esize, VectorMask* reg);
// A UB range the race checker sees without the alignment and capacity checks of ResolveSide.
void AddRange(IssuedInstr* out, uint64_t lo, uint64_t hi, bool write, bool hull, uint64_t chunk = 0,
              uint64_t pitch = 0);
// [lo, hi) checked against UB (alignment of lo included) and added for the race checker.
bool UbRange(const TensorOperand& t, uint64_t lo, uint64_t hi, AccessRole role, bool hull,
             const IssueEnv& env, const Site& site, IssuedInstr* out, uint64_t chunk = 0,
             uint64_t pitch = 0);

// The builders the layout rows name (sim/isa/layouts.def), each in its family's file: the
// signature of IssueBuild (sim/pipe/layout_functions.h).
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec,  \
                      sexec, maker)                                                           \
  bool build(const Instr& instr, const std::vector<ScalarValue>& values, const Evaluator& ev, \
             const IssueEnv& env, const Site& site, IssuedInstr* out);
#include "sim/isa/layouts.def"

}  // namespace aicore::sim::issue
