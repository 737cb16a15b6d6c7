// Diagnostic construction and collection (see diagnostics.h).
#include "sim/check/diagnostics.h"

#include <algorithm>

#include "sim/isa/opcode.h"

namespace aicore::sim {

Diagnostic DiagnosticSink::Make(Diagnostic::Kind kind, Diagnostic::Severity severity,
                                const Site& site, std::string message) const {
  Diagnostic d;
  d.kind = kind;
  d.severity = severity;
  std::string prefix = Prefix(site);
  d.site_pos = message.find(prefix);
  d.site_len = d.site_pos == std::string::npos ? 0 : prefix.size();
  d.message = std::move(message);
  d.cores = {site.core};
  d.core = static_cast<int32_t>(site.core);
  d.pipe = std::string(PipeName(site.pipe));
  d.cycle = site.cycle.value();
  if (site.instr != nullptr) {
    d.op = std::string(Info(site.instr->opcode).mnemonic);
    d.location.file = program_.FileName(*site.instr);
    d.location.line = site.instr->line;
    d.location.column = site.instr->column;
  }
  return d;
}

std::string DiagnosticSink::Prefix(const Site& site) const {
  std::string s = "core " + std::to_string(site.core) + " (block " + std::to_string(site.block) +
                  ") PIPE_" + std::string(PipeName(site.pipe));
  if (site.instr != nullptr) {
    s +=
        " " + std::string(Info(site.instr->opcode).mnemonic) + " at " + program_.Where(*site.instr);
  }
  s += ", cycle " + std::to_string(site.cycle.value());
  return s;
}

void DiagnosticSink::NameGmTensor(uint64_t base, const std::string& name) {
  std::string& names = gm_tensors_[base];
  names += (names.empty() ? "" : ", ") + name;
}

const std::string* DiagnosticSink::GmTensorName(uint64_t base) const {
  auto it = gm_tensors_.find(base);
  return it == gm_tensors_.end() ? nullptr : &it->second;
}

void DiagnosticSink::Error(Diagnostic d) {
  has_error_ = true;
  diagnostics_.push_back(std::move(d));
}

void DiagnosticSink::Warn(Diagnostic d, const Instr* instr) {
  if (instr != nullptr && !warned_.insert({static_cast<int>(d.kind), instr}).second) return;
  diagnostics_.push_back(std::move(d));
}

void DiagnosticSink::Pair(Diagnostic d, const Instr* first, const Instr* second) {
  uint32_t core = d.core < 0 ? 0 : static_cast<uint32_t>(d.core);
  if (!paired_.insert({core, static_cast<int>(d.kind), first, second}).second) return;
  diagnostics_.push_back(std::move(d));
}

namespace {

// "0-7", "0, 2, 4-5": a sorted list of cores, runs collapsed.
std::string CoreList(const std::vector<uint32_t>& cores) {
  std::string s;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + std::to_string(cores[i]);
    if (j > i) s += "-" + std::to_string(cores[j]);
    i = j + 1;
  }
  return s;
}

// What must be equal for two cores' diagnostics to be one finding: everything but the site
// prefix's core, block and cycle.
std::string MergeKey(const Diagnostic& d) {
  std::string body = d.message;
  if (d.site_pos != std::string::npos) {
    // Keep what follows "core N (block B)" up to ", cycle": the pipe, op and source line.
    std::string prefix = body.substr(d.site_pos, d.site_len);
    size_t pipe = prefix.find(") ");
    size_t cycle = prefix.rfind(", cycle ");
    std::string place = pipe == std::string::npos || cycle == std::string::npos
                            ? prefix
                            : prefix.substr(pipe + 2, cycle - pipe - 2);
    body.replace(d.site_pos, d.site_len, "\x01" + place + "\x01");
  }
  return std::to_string(static_cast<int>(d.kind)) + "|" +
         std::to_string(static_cast<int>(d.severity)) + "|" + body;
}

}  // namespace

void DiagnosticSink::Finish(CheckSummary* summary) {
  std::vector<Diagnostic> merged;
  std::vector<std::string> keys;
  for (Diagnostic& d : diagnostics_) {
    std::string key = MergeKey(d);
    auto same = std::find(keys.begin(), keys.end(), key);
    if (same == keys.end()) {
      keys.push_back(std::move(key));
      merged.push_back(std::move(d));
      continue;
    }
    Diagnostic& first = merged[static_cast<size_t>(same - keys.begin())];
    for (uint32_t c : d.cores) {
      if (std::find(first.cores.begin(), first.cores.end(), c) == first.cores.end()) {
        first.cores.push_back(c);
      }
    }
  }
  for (Diagnostic& d : merged) {
    std::sort(d.cores.begin(), d.cores.end());
    if (d.cores.size() > 1 && d.site_pos != std::string::npos) {
      // "core 0 (block 0) PIPE_V add at add.py:14, cycle 120" -> "cores 0-7 PIPE_V add at ...".
      std::string prefix = d.message.substr(d.site_pos, d.site_len);
      size_t pipe = prefix.find(") ");
      size_t cycle = prefix.rfind(", cycle ");
      std::string place = pipe == std::string::npos || cycle == std::string::npos
                              ? ""
                              : " " + prefix.substr(pipe + 2, cycle - pipe - 2);
      std::string merged_prefix = "cores " + CoreList(d.cores) + place;
      d.message.replace(d.site_pos, d.site_len, merged_prefix);
      d.site_len = merged_prefix.size();
    }
    if (d.kind == Diagnostic::Kind::kRace) {
      ++summary->races;
    } else if (d.severity == Diagnostic::Severity::kError) {
      ++summary->errors;
    } else {
      ++summary->warnings;
    }
  }
  diagnostics_ = std::move(merged);
}

}  // namespace aicore::sim
