// The model's pipe per id (see pipe_factory.h): one row per implemented pipe.
#include "sim/pipe/pipe_factory.h"

namespace aicore::sim {
namespace {

struct PipeRow {
  PipeId id;
  PipeFactory create;
};

constexpr PipeRow kPipeFactories[] = {
    {PipeId::kV, &CreateVectorPipe}, {PipeId::kM, &CreateCubePipe},
    {PipeId::kMte1, &CreateDmaPipe}, {PipeId::kMte2, &CreateDmaPipe},
    {PipeId::kMte3, &CreateDmaPipe}, {PipeId::kFix, &CreateDmaPipe},
};

}  // namespace

PipeFactory DefaultPipeFactory(PipeId id) {
  for (const PipeRow& row : kPipeFactories) {
    if (row.id == id) return row.create;
  }
  return nullptr;
}

}  // namespace aicore::sim
