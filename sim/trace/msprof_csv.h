// The CSVs msprof writes beside its traces: per-core instruction and source-line costs from the
// simulator's Layout, and the on-board OpBasicInfo / PipeUtilization summaries that profiling
// scripts (pyasc) read, taken straight from the launch's stats.
#pragma once

#include <cstddef>
#include <string>

#include "sim/core/launch_result.h"
#include "sim/trace/trace_layout.h"

namespace aicore::sim::trace {

// <core>_instr_exe.csv: one row per instruction (op_index), in op_index order.
std::string InstrExeCsv(const Layout& layout, size_t core);

// <core>_code_exe.csv: one row per source line, in (file, line) order.
std::string CodeExeCsv(const Layout& layout, size_t core);

std::string OpBasicInfoCsv(const LaunchResult& result, const std::string& kernel_name, double mhz);

std::string PipeUtilizationCsv(const LaunchResult& result, double mhz);

}  // namespace aicore::sim::trace
