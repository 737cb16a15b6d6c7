// The pipes' executors, one per operand layout and pipe kind (the `vexec`, `dexec` and `cexec`
// columns of sim/isa/layouts.def), each in its family's file, with the signatures of VectorExec and
// DmaExec (sim/pipe/layout_functions.h). They read the pipe's state through its public helpers
// (VectorPipe, DmaPipe, CubePipe).
#pragma once

#include <cstdint>

#include "sim/core/cycle.h"

namespace aicore::sim {

class CubePipe;
class DmaPipe;
class VectorPipe;
struct IssuedInstr;
struct PipeTiming;

// PIPE_V.
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  PipeTiming vexec(VectorPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
#include "sim/isa/layouts.def"

// The data movers (MTE1, MTE2, MTE3, FIX).
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  PipeTiming dexec(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
#include "sim/isa/layouts.def"

// The cube (PIPE_M).
#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, cexec, \
                      sexec, maker)                                                          \
  PipeTiming cexec(CubePipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
#include "sim/isa/layouts.def"

}  // namespace aicore::sim
