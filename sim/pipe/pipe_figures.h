// The config's figures of each pipe in one table indexed by PipeId, so a pipe's queue depth and
// cost row are a row here instead of a case in a switch wherever a figure is read.
#pragma once

#include <cstdint>

#include "sim/core/config.h"
#include "sim/isa/pipe_id.h"

namespace aicore::sim {

struct PipeFigures {
  PipeId id;
  uint32_t SocConfig::*queue_depth;  // nullptr: no instruction queue (the scalar unit)
  DmaCostConfig SocConfig::*dma;     // the cost row of a data mover; nullptr for others
};

// Row i is the pipe whose PipeIndex is i.
inline constexpr PipeFigures kPipeFigures[kNumPipes] = {
    {PipeId::kS, nullptr, nullptr},
    {PipeId::kV, &SocConfig::queue_depth_vector, nullptr},
    {PipeId::kM, &SocConfig::queue_depth_cube, nullptr},
    {PipeId::kMte1, &SocConfig::queue_depth_mte1, &SocConfig::mte1},
    {PipeId::kMte2, &SocConfig::queue_depth_mte2, &SocConfig::mte2},
    {PipeId::kMte3, &SocConfig::queue_depth_mte3, &SocConfig::mte3},
    {PipeId::kFix, &SocConfig::queue_depth_fixpipe, &SocConfig::fixpipe},
};

constexpr bool PipeFiguresInPipeOrder() {
  for (int i = 0; i < kNumPipes; ++i) {
    if (PipeIndex(kPipeFigures[i].id) != i) return false;
  }
  return true;
}
static_assert(PipeFiguresInPipeOrder(), "kPipeFigures rows must follow PipeId");

inline const PipeFigures* FiguresOf(PipeId id) {
  int i = PipeIndex(id);
  return i < kNumPipes ? &kPipeFigures[i] : nullptr;
}

// The queue depth of `id` in `config`; 0 for a pipe without a queue.
inline uint32_t QueueDepth(const SocConfig& config, PipeId id) {
  const PipeFigures* f = FiguresOf(id);
  return f != nullptr && f->queue_depth != nullptr ? config.*(f->queue_depth) : 0;
}

}  // namespace aicore::sim
