// Chrome trace-event JSON (chrome://tracing, Perfetto, MindStudio Insight) in msprof's two
// shapes: one file per core with numeric per-pipe pids, and one merged file naming cores and
// lanes as strings.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include "sim/trace/trace_layout.h"

namespace aicore::sim::trace {

// The slices and flows of `layout.cores[core]` only, in msprof's schema 1. Streams event by
// event, so a trace of millions of instructions is never one string in memory.
void WriteCoreTraceJson(const Layout& layout, size_t core, std::ostream& out);

// Every core in one time-sorted file, in msprof's schema 2, streamed the same way.
void WriteMergedTraceJson(const Layout& layout, std::ostream& out);

// The same files as strings.
std::string CoreTraceJson(const Layout& layout, size_t core);
std::string MergedTraceJson(const Layout& layout);

}  // namespace aicore::sim::trace
