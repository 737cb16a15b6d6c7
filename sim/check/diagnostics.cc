// Diagnostic construction, collection, and the merge of several cores' findings at one place
// (see diagnostics.h).
#include "sim/check/diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "sim/isa/layout.h"
#include "sim/isa/opcode.h"
#include "sim/isa/program.h"

namespace aicore::sim {

std::string HexAddress(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string RangeText(std::string_view memory, uint64_t lo, uint64_t hi) {
  bool gm = memory == "GM";
  return std::string(memory) + "[" + (gm ? HexAddress(lo) : std::to_string(lo)) + ", " +
         (gm ? HexAddress(hi) : std::to_string(hi)) + ")";
}

std::string OtherCoreText(int32_t core) { return "core " + std::to_string(core) + "'s"; }

Diagnostic DiagnosticSink::Make(Diagnostic::Kind kind, Diagnostic::Severity severity,
                                const Site& site, std::string message) const {
  Diagnostic d;
  d.kind = kind;
  d.severity = severity;
  std::string prefix = Prefix(site);
  d.site.pos = message.find(prefix);
  d.site.len = d.site.pos == std::string::npos ? 0 : prefix.size();
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
    // A sync auto_sync placed carries the location of the instruction it was inserted for.
    if (site.instr->kind == static_cast<uint8_t>(SyncOrigin::kAutoSync) &&
        SyncRoleOf(Info(site.instr->opcode).op_class) != SyncRole::kNone) {
      s += " (inserted by auto_sync for the instruction on that line)";
    }
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

void DiagnosticSink::Record(Diagnostic d) {
  // Only text after the site prefix can be the finding's own range or other core.
  size_t from = d.site.pos == std::string::npos ? 0 : d.site.pos + d.site.len;
  auto mark = [&](const std::string& text, MessageSpan* span) {
    span->pos = d.message.find(text, from);
    span->len = span->pos == std::string::npos ? 0 : text.size();
  };
  if (!d.memory.empty() && d.address_hi > d.address_lo) {
    mark(RangeText(d.memory, d.address_lo, d.address_hi), &d.range);
  }
  if (d.other_core >= 0) {
    mark(OtherCoreText(d.other_core), &d.other);
    d.other_cores = {static_cast<uint32_t>(d.other_core)};
  }
  diagnostics_.push_back(std::move(d));
}

void DiagnosticSink::Error(Diagnostic d) {
  has_error_ = true;
  Record(std::move(d));
}

void DiagnosticSink::Warn(Diagnostic d, const Instr* instr) {
  if (instr != nullptr && !warned_.insert({static_cast<int>(d.kind), instr}).second) return;
  Record(std::move(d));
}

void DiagnosticSink::Pair(Diagnostic d, const Instr* first, const Instr* second) {
  uint32_t core = d.core < 0 ? 0 : static_cast<uint32_t>(d.core);
  if (!paired_.insert({core, d.other_core, static_cast<int>(d.kind), first, second}).second) {
    return;
  }
  Record(std::move(d));
}

namespace {

// "0-7", "0, 2, 4-5": a sorted list of cores, runs collapsed; past four runs, the first two and
// the last ("1, 3, ..., 15 (8 in all)"), so a message stays one readable line.
std::string CoreList(const std::vector<uint32_t>& cores) {
  std::vector<std::string> runs;
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    runs.push_back(std::to_string(cores[i]) + (j > i ? "-" + std::to_string(cores[j]) : ""));
    i = j + 1;
  }
  if (runs.size() > 4) {
    return runs[0] + ", " + runs[1] + ", ..., " + runs.back() + " (" +
           std::to_string(cores.size()) + " in all)";
  }
  std::string s;
  for (const std::string& run : runs) s += (s.empty() ? "" : ", ") + run;
  return s;
}

// The message without the parts that name one core's view: what else it says must be equal for
// two findings to be one, so that two findings of one place that say different things (a
// deadlock's cycle and its waiter) stay apart.
std::string Rest(const Diagnostic& d) {
  std::vector<MessageSpan> spans;
  for (const MessageSpan& s : {d.site, d.range, d.other}) {
    if (s.pos != std::string::npos) spans.push_back(s);
  }
  std::sort(spans.begin(), spans.end(),
            [](const MessageSpan& a, const MessageSpan& b) { return a.pos > b.pos; });
  std::string rest = d.message;
  for (const MessageSpan& s : spans) rest.replace(s.pos, s.len, "\x01");
  return rest;
}

// What must be equal for the findings of several cores to be one: the place and kind, not the
// cores, cycles or byte ranges.
std::string MergeKey(const Diagnostic& d) {
  auto at = [](const SourcePoint& p) {
    return p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
  };
  const char sep = '\x1f';
  return std::to_string(static_cast<int>(d.kind)) + sep +
         std::to_string(static_cast<int>(d.severity)) + sep + d.pipe + sep + d.op + sep +
         at(d.location) + sep + d.race + sep + d.other_pipe + sep + d.other_op + sep +
         at(d.other_location) + sep + d.memory + sep + Rest(d);
}

void AddSorted(const std::vector<uint32_t>& from, std::vector<uint32_t>* to) {
  for (uint32_t c : from) {
    auto at = std::lower_bound(to->begin(), to->end(), c);
    if (at == to->end() || *at != c) to->insert(at, c);
  }
}

// How many pieces the union of `ranges` has (1: the hull is all of it).
size_t Pieces(std::vector<std::pair<uint64_t, uint64_t>> ranges) {
  std::sort(ranges.begin(), ranges.end());
  size_t pieces = 0;
  uint64_t end = 0;
  for (const auto& [lo, hi] : ranges) {
    if (pieces == 0 || lo > end) ++pieces;
    end = std::max(end, hi);
  }
  return pieces;
}

// Puts `text` in place of `span` of `d.message`, moving the spans behind it.
void Replace(Diagnostic* d, MessageSpan* span, const std::string& text) {
  if (span->pos == std::string::npos) return;
  d->message.replace(span->pos, span->len, text);
  for (MessageSpan* s : {&d->site, &d->range, &d->other}) {
    if (s != span && s->pos != std::string::npos && s->pos > span->pos) {
      s->pos = s->pos + text.size() - span->len;
    }
  }
  span->len = text.size();
}

// The message of a merged finding: every core in the site prefix, the hull of the ranges, and
// "other cores'" when the pairs name several other sides.
void Rewrite(Diagnostic* d, const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  if (d->cores.size() > 1 && d->site.pos != std::string::npos) {
    // "core 0 (block 0) PIPE_V add at add.py:14, cycle 120" -> "cores 0-7 PIPE_V add at ...".
    std::string prefix = d->message.substr(d->site.pos, d->site.len);
    size_t pipe = prefix.find(") ");
    size_t cycle = prefix.rfind(", cycle ");
    std::string place = pipe == std::string::npos || cycle == std::string::npos
                            ? ""
                            : " " + prefix.substr(pipe + 2, cycle - pipe - 2);
    Replace(d, &d->site, "cores " + CoreList(d->cores) + place);
  }
  if (ranges.size() > 1) {
    size_t pieces = Pieces(ranges);
    Replace(d, &d->range,
            RangeText(d->memory, d->address_lo, d->address_hi) +
                (pieces > 1 ? " (in " + std::to_string(pieces) + " pieces)" : ""));
  }
  if (d->other_cores.size() > 1) Replace(d, &d->other, "other cores'");
}

}  // namespace

void DiagnosticSink::Finish(CheckSummary* summary) {
  std::vector<Diagnostic> merged;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> ranges;  // per merged finding
  std::unordered_map<std::string, size_t> by_key;
  for (Diagnostic& d : diagnostics_) {
    auto [it, fresh] = by_key.try_emplace(MergeKey(d), merged.size());
    if (fresh) {
      ranges.emplace_back();
      if (d.address_hi > d.address_lo) ranges.back().emplace_back(d.address_lo, d.address_hi);
      std::sort(d.cores.begin(), d.cores.end());
      merged.push_back(std::move(d));
      continue;
    }
    Diagnostic& first = merged[it->second];
    AddSorted(d.cores, &first.cores);
    AddSorted(d.other_cores, &first.other_cores);
    if (d.address_hi > d.address_lo) {
      if (first.address_hi > first.address_lo) {
        first.address_lo = std::min(first.address_lo, d.address_lo);
        first.address_hi = std::max(first.address_hi, d.address_hi);
      } else {
        first.address_lo = d.address_lo;
        first.address_hi = d.address_hi;
      }
      ranges[it->second].emplace_back(d.address_lo, d.address_hi);
    }
  }
  for (size_t i = 0; i < merged.size(); ++i) {
    Diagnostic& d = merged[i];
    Rewrite(&d, ranges[i]);
    if (d.kind == Diagnostic::Kind::kRace) {
      ++summary->races;
    } else if (d.severity == Diagnostic::Severity::kError) {
      ++summary->errors;
    } else if (d.severity == Diagnostic::Severity::kNote) {
      ++summary->notes;
    } else {
      ++summary->warnings;
    }
  }
  diagnostics_ = std::move(merged);
}

}  // namespace aicore::sim
