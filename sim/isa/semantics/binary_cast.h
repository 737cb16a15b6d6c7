// The (source, destination) pairs of the binary ops that convert their result (mul_cast,
// add_relu_cast, sub_relu_cast; semantics/binary_cast.cc), for the decoder's checks.
#pragma once

#include "sim/isa/dtype.h"
#include "sim/isa/opcode.h"

namespace aicore::sim {

bool BinaryCastLegal(Opcode op, DType src, DType dst);

}  // namespace aicore::sim
