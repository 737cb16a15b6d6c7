// Renders msprof's CSVs. Column names and order are msprof's, since the scripts that read these
// files index columns by header; cells are quoted only when they must be.
#include "sim/trace/msprof_csv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

namespace aicore::sim::trace {
namespace {

// RFC 4180: quote only when needed, so plain cells stay readable by naive split(',') readers.
std::string CsvCell(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

void AppendCsvRow(std::string* out, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(CsvCell(cells[i]));
  }
  out->push_back('\n');
}

std::string Ratio(uint64_t part, uint64_t whole) {
  if (whole == 0) return "0";
  const double r = static_cast<double>(part) / static_cast<double>(whole);
  return FormatDouble(std::round(r * 1e6) / 1e6);
}

}  // namespace

std::string InstrExeCsv(const Layout& l, size_t core) {
  struct Row {
    const Slice* first = nullptr;
    uint64_t calls = 0;
    uint64_t cycles = 0;
  };
  std::map<uint32_t, Row> rows;  // by op_index, the pseudo-PC
  for (const Slice& s : l.slices) {
    if (s.core != core) continue;
    Row& row = rows[s.rec->op_index];
    if (row.first == nullptr) row.first = &s;
    ++row.calls;
    row.cycles += s.cycles;
  }
  std::string out;
  AppendCsvRow(&out,
               {"instr", "addr", "pipe", "call_count", "cycles", "running_time(us)", "detail"});
  for (const auto& [op_index, row] : rows) {
    AppendCsvRow(&out, {row.first->rec->op, Hex(op_index), l.pipes[row.first->pipe].msprof_name,
                        std::to_string(row.calls), std::to_string(row.cycles), l.Us(row.cycles),
                        row.first->rec->detail});
  }
  return out;
}

std::string CodeExeCsv(const Layout& l, size_t core) {
  std::map<std::pair<std::string, uint32_t>, std::pair<uint64_t, uint64_t>> rows;  // calls, cycles
  for (const Slice& s : l.slices) {
    if (s.core != core) continue;
    auto& row = rows[{s.rec->location.file, s.rec->location.line}];
    ++row.first;
    row.second += s.cycles;
  }
  std::string out;
  AppendCsvRow(&out, {"code", "call_count", "cycles", "running_time(us)"});
  for (const auto& [where, row] : rows) {
    AppendCsvRow(&out, {where.first + ":" + std::to_string(where.second), std::to_string(row.first),
                        std::to_string(row.second), l.Us(row.second)});
  }
  return out;
}

std::string OpBasicInfoCsv(const LaunchResult& result, const std::string& kernel_name, double mhz) {
  bool aiv = false;
  bool aic = false;
  uint64_t vector_cores = 0;
  for (const CoreStats& c : result.cores) {
    if (c.core_type == "aic") {
      aic = true;
    } else {
      aiv = true;
      ++vector_cores;
    }
  }
  std::string task_type = aic && aiv ? "MIX_AIC" : aic ? "AI_CORE" : "AI_VECTOR_CORE";
  // Mix Block Dim counts the vector blocks of a mix launch; plain launches have none.
  const uint64_t mix_block_dim = aic && aiv ? vector_cores : 0;
  const double duration_us =
      result.duration_us > 0 ? result.duration_us : static_cast<double>(result.cycles) / mhz;
  std::string out;
  AppendCsvRow(&out, {"Op Name", "Op Type", "Task Type", "Task Duration(us)", "Block Dim",
                      "Mix Block Dim", "Device Id", "Current Freq", "Rated Freq"});
  AppendCsvRow(&out, {kernel_name, kernel_name, task_type, FormatDouble(duration_us),
                      std::to_string(result.block_dim), std::to_string(mix_block_dim), "0",
                      FormatDouble(mhz), FormatDouble(mhz)});
  return out;
}

std::string PipeUtilizationCsv(const LaunchResult& result, double mhz) {
  // Column groups: aiv_* for vector cores, aic_* for cube cores; the other group is N/A, which
  // the pyasc scripts read as 0.
  static const std::vector<std::pair<std::string, std::string>> kAiv = {
      {"vec", "V"}, {"scalar", "S"}, {"mte2", "MTE2"}, {"mte3", "MTE3"}};
  static const std::vector<std::pair<std::string, std::string>> kAic = {
      {"cube", "M"},    {"scalar", "S"},  {"mte1", "MTE1"},
      {"mte2", "MTE2"}, {"mte3", "MTE3"}, {"fixpipe", "FIX"}};
  std::vector<std::string> header = {"block id", "sub core type"};
  auto add_group = [&](const std::string& prefix,
                       const std::vector<std::pair<std::string, std::string>>& pipes) {
    header.push_back(prefix + "_time(us)");
    header.push_back(prefix + "_total_cycles");
    for (const auto& [name, pipe] : pipes) {
      header.push_back(prefix + "_" + name + "_time(us)");
      header.push_back(prefix + "_" + name + "_ratio");
    }
  };
  add_group("aiv", kAiv);
  add_group("aic", kAic);
  std::string out;
  AppendCsvRow(&out, header);

  std::vector<const CoreStats*> cores;
  for (const CoreStats& c : result.cores) cores.push_back(&c);
  std::sort(cores.begin(), cores.end(), [](const CoreStats* a, const CoreStats* b) {
    return CoreId{a->core_type == "aic", a->core}.SortIndex() <
           CoreId{b->core_type == "aic", b->core}.SortIndex();
  });
  for (const CoreStats* c : cores) {
    const CoreId id{c->core_type == "aic", c->core};
    std::vector<std::string> row = {std::to_string(c->block_idx), id.Name()};
    auto busy = [&](const std::string& pipe) {
      for (const PipeStats& p : c->pipes) {
        if (p.pipe == pipe) return p.busy_cycles;
      }
      return uint64_t{0};
    };
    auto group = [&](bool mine, const std::vector<std::pair<std::string, std::string>>& pipes) {
      if (!mine) {
        row.insert(row.end(), 2 + 2 * pipes.size(), "N/A");
        return;
      }
      row.push_back(FormatDouble(static_cast<double>(c->cycles) / mhz));
      row.push_back(std::to_string(c->cycles));
      for (const auto& [name, pipe] : pipes) {
        const uint64_t cycles = busy(pipe);
        row.push_back(FormatDouble(static_cast<double>(cycles) / mhz));
        row.push_back(Ratio(cycles, c->cycles));
      }
    };
    group(!id.cube, kAiv);
    group(id.cube, kAic);
    AppendCsvRow(&out, row);
  }
  return out;
}

}  // namespace aicore::sim::trace
