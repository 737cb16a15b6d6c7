// The DMA engines' executors, one per operand layout that runs on MTE2 or MTE3 (the `dexec` column
// of sim/isa/layouts.def), each in its family's file: the signature of DmaExec
// (sim/pipe/layout_functions.h). They read the engine's state through DmaPipe's public helpers.
#pragma once

#include <cstdint>

#include "sim/core/cycle.h"

namespace aicore::sim {

class DmaPipe;
struct IssuedInstr;
struct PipeTiming;

#define AICORE_LAYOUT(e, name, sync, sources, reads_dst, scalar, build, vexec, dexec, sexec, \
                      maker)                                                                 \
  PipeTiming dexec(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
#include "sim/isa/layouts.def"

}  // namespace aicore::sim
