// Use after free of a framework buffer: an instruction that touches UB bytes of a queue buffer
// freed with free_tensor (and not allocated or dequeued again) is an ERROR (INVALID_OPERAND); the
// chip would read or clobber a buffer another stage now owns.
#pragma once

#include "sim/check/diagnostics.h"
#include "sim/fwk/tpipe.h"
#include "sim/mem/mem_range.h"

namespace aicore::sim {

// Returns false after recording the error for the first of `ranges` inside a freed buffer.
bool CheckFreedUse(const TPipe& tpipe, const MemRange* ranges, int num_ranges, const Site& site,
                   DiagnosticSink& sink);

}  // namespace aicore::sim
