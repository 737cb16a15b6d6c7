// Accesses to idle queue buffers (see buffer_use.h).
#include "sim/check/buffer_use.h"

#include <string>

namespace aicore::sim {

bool CheckBufferUse(const TPipe& tpipe, const MemRange* ranges, int num_ranges, const Site& site,
                    bool warn, DiagnosticSink& sink) {
  if (!tpipe.has_queue_buffers()) return true;
  for (int i = 0; i < num_ranges; ++i) {
    const MemRange& r = ranges[i];
    if (r.space != MemSpace::kUb) continue;
    TPipe::IdleOverlap idle = tpipe.IdleBufferOverlap(r.space, r.lo, r.hi);
    if (idle.what.empty()) continue;
    std::string access = std::string(r.write ? "writes" : "reads") + " UB[" + std::to_string(r.lo) +
                         ", " + std::to_string(r.hi) + "), inside the " + idle.what;
    if (idle.freed) {
      sink.Error(sink.Make(
          Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError, site,
          sink.Prefix(site) + ": use of a freed tensor: it " + access +
              ". Fix: use a tensor only between alloc_tensor/deque and free_tensor; allocate "
              "again (or deque) before touching the buffer."));
      return false;
    }
    if (warn) {
      sink.Warn(
          sink.Make(Diagnostic::Kind::kUnallocatedBuffer, Diagnostic::Severity::kWarning, site,
                    sink.Prefix(site) + ": it " + access +
                        ": a tensor placed by hand overlaps the TPipe's buffers, and the "
                        "queue will hand these bytes to another stage. Fix: take the "
                        "tensor from alloc_tensor, or place hand-set tensors outside the "
                        "TPipe's buffers (or in a TBuf)."),
          site.instr);
    }
  }
  return true;
}

}  // namespace aicore::sim
