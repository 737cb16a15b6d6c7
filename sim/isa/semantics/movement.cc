// Data movement on PIPE_V (asc-api.md 4.2): copy moves the bits of its active lanes unchanged,
// for every b16 and b32 element type of its row.
#include <cstring>

#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

void VecCopy(const VecOperands& o) {
  if (!VectorOpSupports(Opcode::kVecCopy, o.dtype)) UnsupportedDType("copy", o.dtype);
  std::memcpy(o.dst, o.src0, o.count * DTypeSize(o.dtype));
}

}  // namespace aicore::sim
