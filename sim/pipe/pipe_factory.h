// How a core gets its pipes: each pipe is an implementation of the Pipe interface in its own file,
// created by id through a factory with the core's shared state. The core spec (sim/soc/
// core_spec.h) lists which pipes a core has and which factory builds each; kPipeFactories below
// is the model's default per id. Adding a pipe: its file with a factory, and a row here.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/core/config.h"
#include "sim/isa/pipe_id.h"
#include "sim/mem/memory_map.h"
#include "sim/pipe/core_registers.h"
#include "sim/pipe/cube_args.h"
#include "sim/pipe/payload_pool.h"
#include "sim/pipe/pipe.h"
#include "sim/sync/flags.h"

namespace aicore::sim {

struct LaunchContext;

// What a pipe is connected to, once, at construction.
struct PipeEnv {
  uint32_t core = 0;
  LaunchContext& ctx;
  FlagFile& flags;
  PipeListener& listener;
  MemoryMap& memories;
  CoreRegisters& registers;          // the core's (sim/pipe/core_registers.h)
  PayloadPool<MoveArgs>& moves;      // the core's rearrangement operands (sim/pipe/payload_pool.h)
  PayloadPool<CubeArgs>& cube_args;  // the core's cube operands (sim/pipe/payload_pool.h)
  // The cost row of the data mover being built (the core type's route: CoreSpec); nullptr for
  // the pipe's own row (pipe_figures.h).
  DmaCostConfig SocConfig::*dma_cost = nullptr;
};

using PipeFactory = std::unique_ptr<Pipe> (*)(PipeId id, uint32_t queue_depth, const PipeEnv& env);

// The pipes of the model (each defined in its own file).
std::unique_ptr<Pipe> CreateVectorPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env);
std::unique_ptr<Pipe> CreateDmaPipe(PipeId id, uint32_t queue_depth, const PipeEnv& env);
std::unique_ptr<Pipe> CreateCubePipe(PipeId id, uint32_t queue_depth, const PipeEnv& env);

// The factory of pipe `id`, or nullptr if the model has none.
PipeFactory DefaultPipeFactory(PipeId id);

}  // namespace aicore::sim
