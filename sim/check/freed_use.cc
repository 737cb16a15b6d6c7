// Use-after-free check of framework buffers (see freed_use.h).
#include "sim/check/freed_use.h"

#include <string>

namespace aicore::sim {

bool CheckFreedUse(const TPipe& tpipe, const MemRange* ranges, int num_ranges, const Site& site,
                   DiagnosticSink& sink) {
  if (!tpipe.any_freed()) return true;
  for (int i = 0; i < num_ranges; ++i) {
    const MemRange& r = ranges[i];
    if (r.space != MemSpace::kUb) continue;
    std::string freed = tpipe.FreedOverlap(r.space, r.lo, r.hi);
    if (freed.empty()) continue;
    sink.Error(sink.Make(
        Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError, site,
        sink.Prefix(site) + ": use of a freed tensor: it " + (r.write ? "writes" : "reads") +
            " UB[" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "), inside the " + freed +
            ". Fix: use a tensor only between alloc_tensor/deque and free_tensor; allocate "
            "again (or deque) before touching the buffer."));
    return false;
  }
  return true;
}

}  // namespace aicore::sim
