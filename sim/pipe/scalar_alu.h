// The scalar unit's ALU (ascendc-semantics.md 2), a unit of its own: the layout rows that
// compute on SSA values and the core's registers in program order (constants, scalar
// arithmetic, system values, selects, the vector mask and the store-configuration registers).
// The scalar unit's walk calls one function per row (its `sexec` executors in scalar_exec.cc)
// and retires the op; the ALU knows nothing of issue, pipes or time beyond what it is told.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/check/diagnostics.h"
#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/pipe/core_registers.h"

namespace aicore::sim {

struct LaunchContext;
class ScalarHost;

class ScalarAlu {
 public:
  // Where an op runs, for the system values.
  struct Place {
    uint32_t block = 0;
    int64_t system_counter = 0;  // get_system_cycle()
    Site site;                   // for the warning of a read of unset state
  };

  // `values` are the scalar unit's SSA slots; `registers` the core's.
  ScalarAlu(LaunchContext& ctx, ScalarHost& host, CoreRegisters& registers,
            std::vector<ScalarValue>& values);

  void Const(const Instr& in);
  // false: a fault, its text in fault(). Inline: the scalar unit's most frequent op.
  bool Binary(const Instr& in) {
    ScalarValue r;
    if (EvalScalarBinaryInline(static_cast<ScalarBinaryKind>(in.kind), in.src_dtype, values_[in.a],
                               values_[in.b], &r) != ScalarFault::kNone) {
      return DivisionByZero(in);
    }
    values_[in.result] = r;
    return true;
  }
  void Unary(const Instr& in);
  void SysValue(const Instr& in, const Place& at);
  void Select(const Instr& in);
  void VectorMask(const Instr& in);
  bool StoreConfig(const Instr& in);  // false: a fault, its text in fault()
  bool CubeConfig(const Instr& in);   // the cube core's control registers (StoreConfig's kinds)

  const std::string& fault() const { return fault_; }

 private:
  int64_t Int(uint32_t slot) const;
  bool Fail(std::string why);
  bool DivisionByZero(const Instr& in);  // Binary's only fault
  // A read of state nothing set (SysValueKind::kUnsetState): UNINITIALIZED_READ at the line.
  void WarnUnsetState(const Site& site);

  LaunchContext& ctx_;
  ScalarHost& host_;
  CoreRegisters& regs_;
  std::vector<ScalarValue>& values_;
  std::string fault_;
};

}  // namespace aicore::sim
