// The vector pipe's executors, one per operand layout that runs on PIPE_V (the `vexec` column of
// sim/isa/layouts.def), each in its family's file: the signature of VectorExec
// (sim/pipe/layout_functions.h). They read the pipe's state through VectorPipe's public helpers.
#pragma once

#include <cstdint>

#include "sim/core/cycle.h"

namespace aicore::sim {

class VectorPipe;
struct IssuedInstr;
struct PipeTiming;

#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, sexec, \
                      maker)                                                                 \
  PipeTiming vexec(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
#include "sim/isa/layouts.def"

}  // namespace aicore::sim
