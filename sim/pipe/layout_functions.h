// The pipe layer's columns of the operand layouts (sim/isa/layouts.def): how the issue stage
// builds an instruction of each layout and how the vector pipe executes it. The table holds the
// rows' functions; RegisterLayoutFunctions adds those of a layout registered at run time
// (RegisterInstruction in sim/isa/opcode.h), as tests/sim/layout_recipe_test.cc does.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/cycle.h"
#include "sim/isa/layout.h"
#include "sim/isa/scalar_ops.h"

namespace aicore::sim {

struct Instr;
struct IssueEnv;
struct IssuedInstr;
struct PipeTiming;
struct Site;
class CubePipe;
class DmaPipe;
class VectorPipe;
namespace issue {
class Evaluator;
}

// Evaluates and checks an instruction's operands into `out` (sim/pipe/issue.h); false after
// reporting a fault.
using IssueBuild = bool (*)(const Instr& instr, const std::vector<ScalarValue>& values,
                            const issue::Evaluator& ev, const IssueEnv& env, const Site& site,
                            IssuedInstr* out);
// Runs an instruction that starts on PIPE_V now: reads its sources, leaves its result in
// `scratch` and says when the pipe is free again and when the result lands.
using VectorExec = PipeTiming (*)(VectorPipe& pipe, const IssuedInstr& in, Cycle now,
                                  uint8_t* scratch);

// Runs an instruction that starts on a data mover (MTE1, MTE2, MTE3, FIX) now, as VectorExec does
// on PIPE_V.
using DmaExec = PipeTiming (*)(DmaPipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);
// Runs an instruction that starts on the cube (PIPE_M) now.
using CubeExec = PipeTiming (*)(CubePipe& pipe, const IssuedInstr& in, Cycle now, uint8_t* scratch);

struct LayoutFunctions {
  IssueBuild build;
  VectorExec vexec;
  DmaExec dexec;
  CubeExec cexec;
};

const LayoutFunctions& FunctionsOf(OpClass c);
// For a layout registered at run time; before any launch.
void RegisterLayoutFunctions(OpClass c, LayoutFunctions functions);

}  // namespace aicore::sim
