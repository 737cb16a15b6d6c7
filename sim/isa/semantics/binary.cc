// Binary vector instructions, dst = src0 op src1 (asc-api.md 4.5; ascendc-semantics.md 5.4):
// IEEE results in the element type, integers wrap, max/min propagate NaN.
#include "sim/isa/semantics/element_loops.h"

namespace aicore::sim {

using namespace semantics;  // NOLINT(google-build-using-namespace): the family's toolkit

void VecAdd(const VecOperands& o) {
  ElementwiseBinary(
      "add", o, [](float x, float y) { return x + y; }, IAdd());
}

void VecSub(const VecOperands& o) {
  ElementwiseBinary(
      "sub", o, [](float x, float y) { return x - y; }, ISub());
}

void VecMul(const VecOperands& o) {
  ElementwiseBinary(
      "mul", o, [](float x, float y) { return x * y; }, IMul());
}

void VecDiv(const VecOperands& o) {
  ElementwiseBinaryFloat("div", o, [](float x, float y) { return x / y; });
}

void VecMax(const VecOperands& o) { ElementwiseBinary("max", o, FMax, IMax()); }

void VecMin(const VecOperands& o) { ElementwiseBinary("min", o, FMin, IMin()); }

}  // namespace aicore::sim
