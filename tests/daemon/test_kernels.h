// Kernels for the end-to-end tests, built in C++ with the IR's protobuf API the way a non-Python
// frontend would: a two-core float vector add, and one that deadlocks on a flag nobody sets.
#pragma once

#include <cstdint>

#include "kernel.pb.h"

namespace aicore::testing {

// z[i] = x[i] + y[i] for `elems_per_core` float32 elements on each core (block_dim cores):
// GM->UB data_copy of x and y (MTE2), set/wait_flag MTE2_V, add (V), set/wait_flag V_MTE3,
// UB->GM data_copy of z (MTE3). Params: x, y, z (pointers to float32).
aicore::ir::v1::Kernel VaddKernel(uint32_t elems_per_core);

// A vector add on UB repeated `iterations` times in a for loop (with pipe_barrier(PIPE_V)); no
// parameters, no GM traffic. Simulation time grows linearly with `iterations`, which makes it
// the long-running launch of the admission, deadline and shutdown tests.
aicore::ir::v1::Kernel SpinKernel(int64_t iterations);

// One vector add on UB and an unused int32 scalar parameter `n`: for argument validation.
aicore::ir::v1::Kernel Int32ParamKernel();

// One vector add inside `depth` nested ifs whose condition is true: the IR's nesting at depth.
aicore::ir::v1::Kernel NestedIfKernel(uint32_t depth);

// `adds` vector adds in a row (each behind a pipe_barrier) inside an if that is never taken: a
// kernel whose IR and decoded program grow with `adds` (about 40 bytes each) but whose launch is
// quick; `salt` makes the name, and so the kernel, distinct.
aicore::ir::v1::Kernel StraightLineKernel(uint32_t adds, uint32_t salt);

// Copies x into UB, then waits on MTE2_V event 0 which is never set: every run deadlocks.
aicore::ir::v1::Kernel DeadlockKernel();

}  // namespace aicore::testing
