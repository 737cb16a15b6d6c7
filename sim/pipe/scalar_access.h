// The scalar unit's element accesses (get_value / set_value): the element's address evaluated
// and checked like any operand (bounds, alignment to the element size, GM allocations), resolved
// to host memory, and the conversions between a scalar value and the element's bytes. The scalar
// unit performs the access at its own time, as a PIPE_S access (sim/pipe/scalar_unit.cc).
#pragma once

#include <vector>

#include "sim/isa/program.h"
#include "sim/isa/scalar_ops.h"
#include "sim/pipe/instr.h"
#include "sim/pipe/issue.h"

namespace aicore::sim {

// Fills `out`'s ranges[0] with the element's bytes and src0 (load) or dst (store) with its host
// location. Returns false after recording an error diagnostic.
bool BuildScalarAccess(const Instr& instr, const std::vector<ScalarValue>& values,
                       const IssueEnv& env, const Site& site, IssuedInstr* out);

// The value of element type `t` held in `bits` (little-endian, as memory stores it).
ScalarValue FromElementBits(uint64_t bits, DType t);

}  // namespace aicore::sim
