// What an AI Core is made of, as data: its pipes (with queue depths and the factory that builds
// each), its local memories (sizes, alignments), and its data paths, a table from (source memory,
// destination memory) to the pipe and transfer kind that move the bytes. AiCore is built from a
// CoreSpec, so a core type, a pipe or a path is a row here, not code in the core. The chip's rows
// per core type are in core_spec.cc; CoreSpecFor sizes them from a config.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sim/core/config.h"
#include "sim/core/status.h"
#include "sim/isa/core_type.h"
#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"
#include "sim/mem/memory_map.h"
#include "sim/pipe/pipe_factory.h"
#include "sim/pipe/route.h"

namespace aicore::sim {

// A pipe of a core besides its scalar unit.
struct PipeSpec {
  PipeId id = PipeId::kS;
  uint32_t queue_depth = 0;
  PipeFactory create = nullptr;
  DmaCostConfig SocConfig::*dma_cost = nullptr;  // a data mover's cost row; nullptr for others
};

struct CoreSpec {
  CoreType type = CoreType::kAiv;
  std::string name;             // "vector core", for messages
  std::vector<PipeSpec> pipes;  // in the order messages list them
  std::vector<MemorySpec> memories;
  std::vector<Route> routes;
  RegisterSet registers = 0;  // the registers a core of this type has (CoreRegisters)

  const PipeSpec* FindPipe(PipeId id) const;
  // "S, V, MTE2, MTE3": the scalar unit and the pipes, for messages.
  std::string PipeList() const;
};

// The chip's data paths of a core type, and whether it has a local memory, independent of any
// config (the decoder checks kernels against them).
std::span<const Route> RoutesOf(CoreType type);
bool HasMemory(CoreType type, MemSpace space);

// A `type` core of `config`: the chip's rows sized by the config, each pipe built by the model's
// factory for its id. FailedPrecondition when the model lacks a pipe the core type needs.
StatusOr<CoreSpec> CoreSpecFor(CoreType type, const SocConfig& config);

}  // namespace aicore::sim
