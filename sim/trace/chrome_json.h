// Chrome trace-event JSON (chrome://tracing, Perfetto, MindStudio Insight) in msprof's two
// shapes: one file per core with numeric per-pipe pids, and one merged file naming cores and
// lanes as strings.
#pragma once

#include <cstddef>
#include <string>

#include "sim/trace/trace_layout.h"

namespace aicore::sim::trace {

// The slices and flows of `layout.cores[core]` only, in msprof's schema 1.
std::string CoreTraceJson(const Layout& layout, size_t core);

// Every core in one time-sorted file, in msprof's schema 2.
std::string MergedTraceJson(const Layout& layout);

}  // namespace aicore::sim::trace
