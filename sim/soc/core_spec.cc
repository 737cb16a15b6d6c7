// The chip's core types as rows (see core_spec.h); docs/architecture.md ("Core types") lists the
// routes with their sources.
#include "sim/soc/core_spec.h"

#include "sim/pipe/pipe_figures.h"

namespace aicore::sim {
namespace {

using M = MemSpace;
using P = PipeId;
using T = TransferKind;

// Vector core (AIV): scalar + MTE2 + V + MTE3 over a UB (DESIGN.md "Shape of the model").
constexpr P kAivPipes[] = {P::kV, P::kMte2, P::kMte3};
constexpr M kAivMemories[] = {M::kUb};
constexpr Route kAivRoutes[] = {
    {M::kGm, M::kUb, P::kMte2, T::kGmRead},
    {M::kUb, M::kGm, P::kMte3, T::kGmWrite},
    {M::kUb, M::kUb, P::kV, T::kLocalCopy},
};

// The vector core's registers (sim/pipe/core_registers.h).
constexpr RegisterSet kAivRegisters = kVectorMaskRegister | kCmpMaskRegister | kStoreRegisters |
                                      kSpecialRegisters | kGatherCountRegister |
                                      kMemoryWatchRegisters;

// Cube core (AIC): scalar + MTE2 + MTE1 + M + FIX + MTE3 over L1, L0A, L0B, L0C, the bias table
// and the fixpipe buffer (hardware-910b.md 3.1). No L0C -> UB path on this chip: C reaches a
// vector core through GM. L1 -> GM goes on MTE1, as the C-API pages tag it on 2201 (3.1; the
// only source that names a pipe for it).
constexpr P kAicPipes[] = {P::kM, P::kMte1, P::kMte2, P::kMte3, P::kFix};
constexpr M kAicMemories[] = {M::kL1, M::kL0a, M::kL0b, M::kL0c, M::kBt, M::kFb};
constexpr Route kAicRoutes[] = {
    {M::kGm, M::kL1, P::kMte2, T::kGmRead},      // data_copy (ND2NZ too)
    {M::kGm, M::kL0a, P::kMte2, T::kGmRead},     // load_data from GM
    {M::kGm, M::kL0b, P::kMte2, T::kGmRead},     // load_data from GM
    {M::kL1, M::kL0a, P::kMte1, T::kLocalCopy},  // load_data
    {M::kL1, M::kL0b, P::kMte1, T::kLocalCopy},  // load_data
    {M::kL1, M::kBt, P::kMte1, T::kLocalCopy},   // data_copy C1 -> C2
    {M::kL1, M::kFb, P::kMte1, T::kLocalCopy},   // data_copy to the fixpipe buffer
    {M::kL1, M::kGm, P::kMte1, T::kGmWrite},     // data_copy A1/B1 -> GM
    {M::kL0c, M::kGm, P::kFix, T::kGmWrite},     // fixpipe
    {M::kL0c, M::kL1, P::kFix, T::kLocalCopy},   // fixpipe
};

// The cube core's registers: its control registers, and the atomic mode, which applies to the
// fixpipe's GM writes (5.12).
constexpr RegisterSet kAicRegisters = kStoreRegisters | kCubeRegisters;

// Cost rows of a core type's data movers that are not the pipe's own row (pipe_figures.h): the
// cube core's MTE2 fills L1 and L0 on a route of its own (docs/timing-model.md 3).
struct CoreDmaRow {
  CoreType type;
  PipeId pipe;
  DmaCostConfig SocConfig::*cost;
};
constexpr CoreDmaRow kCoreDmaRows[] = {
    {CoreType::kAic, P::kMte2, &SocConfig::cube_mte2},
};

DmaCostConfig SocConfig::*DmaRowOf(CoreType type, PipeId id) {
  for (const CoreDmaRow& row : kCoreDmaRows) {
    if (row.type == type && row.pipe == id) return row.cost;
  }
  const PipeFigures* figures = FiguresOf(id);
  return figures != nullptr ? figures->dma : nullptr;
}

struct CoreTypeRow {
  CoreType type;
  const char* name;
  std::span<const P> pipes;
  std::span<const M> memories;
  std::span<const Route> routes;
  RegisterSet registers;
};

constexpr CoreTypeRow kCoreTypes[] = {
    {CoreType::kAiv, "vector core", kAivPipes, kAivMemories, kAivRoutes, kAivRegisters},
    {CoreType::kAic, "cube core", kAicPipes, kAicMemories, kAicRoutes, kAicRegisters},
};

const CoreTypeRow* RowOf(CoreType type) {
  for (const CoreTypeRow& row : kCoreTypes) {
    if (row.type == type) return &row;
  }
  return nullptr;
}

// Each local memory's size and alignment in the config (GM and the register spaces have none).
struct MemoryFigures {
  MemSpace space;
  uint64_t SocConfig::*bytes;
  uint32_t SocConfig::*alignment_bytes;
};

constexpr MemoryFigures kMemoryFigures[] = {
    {M::kUb, &SocConfig::ub_bytes, &SocConfig::ub_alignment_bytes},
    {M::kL1, &SocConfig::l1_bytes, &SocConfig::l1_alignment_bytes},
    {M::kL0a, &SocConfig::l0a_bytes, &SocConfig::l0a_alignment_bytes},
    {M::kL0b, &SocConfig::l0b_bytes, &SocConfig::l0b_alignment_bytes},
    {M::kL0c, &SocConfig::l0c_bytes, &SocConfig::l0c_alignment_bytes},
    {M::kBt, &SocConfig::bt_bytes, &SocConfig::bt_alignment_bytes},
    {M::kFb, &SocConfig::fb_bytes, &SocConfig::fb_alignment_bytes},
};

MemorySpec Memory(const SocConfig& c, MemSpace space) {
  for (const MemoryFigures& f : kMemoryFigures) {
    if (f.space == space) return {space, c.*(f.bytes), c.*(f.alignment_bytes)};
  }
  return {space, 0, 0};
}

}  // namespace

const PipeSpec* CoreSpec::FindPipe(PipeId id) const {
  for (const PipeSpec& p : pipes) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

std::string CoreSpec::PipeList() const {
  std::string s(PipeName(PipeId::kS));
  for (const PipeSpec& p : pipes) s += ", " + std::string(PipeName(p.id));
  return s;
}

std::span<const Route> RoutesOf(CoreType type) {
  const CoreTypeRow* row = RowOf(type);
  return row != nullptr ? row->routes : std::span<const Route>();
}

bool HasMemory(CoreType type, MemSpace space) {
  const CoreTypeRow* row = RowOf(type);
  if (row == nullptr) return false;
  for (MemSpace m : row->memories) {
    if (m == space) return true;
  }
  return false;
}

StatusOr<CoreSpec> CoreSpecFor(CoreType type, const SocConfig& config) {
  const CoreTypeRow* row = RowOf(type);
  if (row == nullptr) {
    return FailedPrecondition("the model has no " + std::string(CoreTypeName(type)) +
                              " core yet (cube cores come with the cube unit)");
  }
  CoreSpec spec;
  spec.type = type;
  spec.name = row->name;
  for (PipeId id : row->pipes) {
    PipeFactory create = DefaultPipeFactory(id);
    if (create == nullptr) {
      return FailedPrecondition("the model has no PIPE_" + std::string(PipeName(id)) +
                                " yet, which a " + spec.name + " needs");
    }
    spec.pipes.push_back({id, QueueDepth(config, id), create, DmaRowOf(type, id)});
  }
  for (MemSpace m : row->memories) spec.memories.push_back(Memory(config, m));
  spec.routes.assign(row->routes.begin(), row->routes.end());
  spec.registers = row->registers;
  return spec;
}

}  // namespace aicore::sim
