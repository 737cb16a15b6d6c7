// Data-movement routing: which pipe moves bytes from one memory to another, and as which kind of
// transfer. A core's routes come from its spec (sim/soc/core_spec.cc has the chip's rows); the
// issue stage looks a copy's route up here in O(1) to pick its pipe and tell the pipe which side
// is GM.
#pragma once

#include <array>
#include <vector>

#include "sim/isa/pipe_id.h"
#include "sim/isa/program.h"
#include "sim/pipe/instr.h"

namespace aicore::sim {

// `pipe` moves bytes from `src` to `dst` as a `kind` transfer.
struct Route {
  MemSpace src = MemSpace::kInvalid;
  MemSpace dst = MemSpace::kInvalid;
  PipeId pipe = PipeId::kS;
  TransferKind kind = TransferKind::kNone;
};

class RouteTable {
 public:
  explicit RouteTable(const std::vector<Route>& routes) {
    for (const Route& r : routes) table_[Index(r.src)][Index(r.dst)] = r;
  }
  // The route from `src` to `dst`, or nullptr if the core has no such path.
  const Route* Find(MemSpace src, MemSpace dst) const {
    const Route& r = table_[Index(src)][Index(dst)];
    return r.kind == TransferKind::kNone ? nullptr : &r;
  }

 private:
  static constexpr int kSpaces = 9;  // MemSpace values
  static int Index(MemSpace s) {
    int i = static_cast<int>(s);
    return i < kSpaces ? i : 0;
  }
  std::array<std::array<Route, kSpaces>, kSpaces> table_{};
};

}  // namespace aicore::sim
