// The chip's core types as rows (see core_spec.h). The AIC row (scalar + MTE2 + MTE1 + M + FIX +
// MTE3 over L1, L0A, L0B, L0C, BT, FB; no L0C -> UB path) joins with the cube pipes.
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
    spec.pipes.push_back({id, QueueDepth(config, id), create});
  }
  for (MemSpace m : row->memories) spec.memories.push_back(Memory(config, m));
  spec.routes.assign(row->routes.begin(), row->routes.end());
  spec.registers = row->registers;
  return spec;
}

}  // namespace aicore::sim
