// Accesses to TPipe queue buffers no stage owns. Touching UB bytes of a buffer freed with
// free_tensor (and not allocated or dequeued again) is an ERROR (INVALID_OPERAND): the chip would
// read or clobber a buffer another stage now owns. Touching a buffer no alloc_tensor has handed
// out is an UNALLOCATED_BUFFER warning: a tensor placed by hand overlaps the TPipe's buffers,
// which works until a queue hands those bytes out.
#pragma once

#include "sim/check/diagnostics.h"
#include "sim/fwk/tpipe.h"
#include "sim/mem/mem_range.h"

namespace aicore::sim {

// Returns false after recording the error for the first of `ranges` inside a freed buffer;
// `warn` enables the warning for buffers never allocated (off at CheckLevel::kOff).
bool CheckBufferUse(const TPipe& tpipe, const MemRange* ranges, int num_ranges, const Site& site,
                    bool warn, DiagnosticSink& sink);

}  // namespace aicore::sim
