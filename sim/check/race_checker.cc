// Races and uninitialised reads of one core, judged in issue order (see race_checker.h).
#include "sim/check/race_checker.h"

#include <string>

#include "sim/isa/opcode.h"
#include "sim/sync/hard_event.h"

namespace aicore::sim {
namespace {

enum RaceKind { kRaw = 0, kWar = 1, kWaw = 2 };
constexpr const char* kRaceNames[] = {"RAW", "WAR", "WAW"};

std::string Mnemonic(const Instr* in) {
  return in == nullptr ? "instruction" : std::string(Info(in->opcode).mnemonic);
}

}  // namespace

RaceChecker::RaceChecker(CoreType type, const HappensBefore& order, DiagnosticSink& sink)
    : type_(type), order_(order), sink_(sink) {}

void RaceChecker::StartBlock() {
  for (IntervalMap<Shadow>& m : shadow_) {
    m.UpdateAll([](Shadow& s) { s = Shadow{s.written, PipeId::kS, Stamp{}, {}}; });
  }
}

void RaceChecker::OnAccess(const Site& site, uint64_t seq, const MemRange* ranges, int num_ranges) {
  HappensBefore::Clock known = order_.Known(site.pipe);
  for (int i = 0; i < num_ranges; ++i) {
    const MemRange& r = ranges[i];
    if (r.lo >= r.hi) continue;
    Finding found[3];
    Finding uninit;
    Visit(site, seq, r, known, found, &uninit);
    for (int kind = kRaw; kind <= kWaw; ++kind) {
      if (found[kind].other.seq != 0) Report(site, r.space, kind, found[kind]);
    }
    if (uninit.hi > uninit.lo) {
      std::string range = RangeText(MemSpaceName(r.space), uninit.lo, uninit.hi);
      Diagnostic d = sink_.Make(
          Diagnostic::Kind::kUninitializedRead, Diagnostic::Severity::kWarning, site,
          sink_.Prefix(site) + ": reads " + range +
              ", which nothing wrote in this launch: the bytes are whatever the memory held "
              "before (on the chip, a previous kernel's data). Fix: copy or compute the data into "
              "the buffer first, or read only the part that was written.");
      d.memory = std::string(MemSpaceName(r.space));
      d.address_lo = uninit.lo;
      d.address_hi = uninit.hi;
      sink_.Warn(std::move(d), site.instr);
    }
  }
}

void RaceChecker::Visit(const Site& site, uint64_t seq, const MemRange& r,
                        const HappensBefore::Clock& known, Finding found[3], Finding* uninit) {
  PipeId pipe = site.pipe;
  // The scalar unit is in program order; a pipe is ordered with itself only across a barrier.
  // A special register is written by its pipe in instruction order, and an interlocked range
  // (MemRange::pipe_ordered) is ordered by its pipe.
  bool in_order = pipe == PipeId::kS || r.space == MemSpace::kSpr || r.pipe_ordered;
  auto ordered = [&](const Access& a) {
    return a.seq == 0 || known[PipeIndex(a.pipe)] >= a.seq || (a.pipe == pipe && in_order);
  };
  auto note = [&](int kind, const Access& other, uint64_t a, uint64_t b) {
    Finding& f = found[kind];
    if (f.other.seq == 0) {
      f = Finding{other, a, b};
    } else if (f.other.instr == other.instr && f.hi == a) {
      f.hi = b;  // the same pair over the next piece: one range
    }
  };
  bool check_init = !r.write && !r.hull && r.space != MemSpace::kGm;  // GM: launch-wide
  // Every piece of a strided range (chunk 0: the range is one piece), cut at its end.
  uint64_t chunk = r.chunk == 0 ? r.hi - r.lo : r.chunk;
  uint64_t pitch = r.chunk == 0 || r.pitch == 0 ? chunk : r.pitch;
  uint64_t pieces = (r.hi - r.lo + pitch - 1) / pitch;
  auto piece = [&](uint64_t a, uint64_t b, Shadow& s) {
    if (check_init && !s.written) {
      if (uninit->hi == uninit->lo) {
        *uninit = Finding{Access{}, a, b};
      } else if (uninit->hi == a) {
        uninit->hi = b;
      }
    }
    if (Access w{s.write.seq, s.write.instr, s.write_pipe}; !ordered(w)) {
      note(r.write ? kWaw : kRaw, w, a, b);
    }
    if (r.write) {
      for (int q = 0; q < kNumPipes; ++q) {
        Access read{s.reads[q].seq, s.reads[q].instr, static_cast<PipeId>(q)};
        if (read.seq != 0 && read.pipe != pipe && !ordered(read)) note(kWar, read, a, b);
      }
      s = Shadow{true, pipe, Stamp{seq, site.instr}, {}};
    } else {
      s.reads[PipeIndex(pipe)] = Stamp{seq, site.instr};
    }
  };
  // Every access stamps its pieces with its own sequence number: they always change.
  shadow_[static_cast<int>(r.space)].UpdateStrided(r.lo, chunk, pitch, pieces, r.hi, piece);
}

void RaceChecker::Report(const Site& site, MemSpace space, int kind, const Finding& f) {
  const Program& program = sink_.program();
  PipeId pipe = site.pipe;
  PipeId other = f.other.pipe;
  std::string this_op = Mnemonic(site.instr);
  std::string other_op = Mnemonic(f.other.instr);
  std::string other_at = "PIPE_" + std::string(PipeName(other)) + " " + other_op +
                         (f.other.instr != nullptr ? " at " + program.Where(*f.other.instr) : "");
  std::string what;
  switch (kind) {
    case kRaw:
      what = "this " + this_op + " reads bytes that " + other_at +
             " writes, and no flag, barrier or queue orders the two, so it can read them before "
             "they are written (the chip then computes with stale data)";
      break;
    case kWar:
      what = "this " + this_op + " writes bytes that " + other_at +
             " reads, and no flag, barrier or queue orders the two, so it can overwrite them "
             "before they are read";
      break;
    default:
      what = "this " + this_op + " writes bytes that " + other_at +
             " also writes, and no flag, barrier or queue orders the two, so either can land last";
      break;
  }
  std::string fix;
  if (other == pipe) {
    fix = "pipe_barrier(PIPE_" + std::string(PipeName(pipe)) + ") between them";
  } else if (int event = HardEventBetween(other, pipe, type_); event >= 0) {
    std::string name = "HardEvent." + std::string(HardEvent(static_cast<uint32_t>(event)).name);
    fix = "set_flag(" + name + ", id) on PIPE_" + std::string(PipeName(other)) + " after the " +
          other_op + " and wait_flag(" + name + ", id) on PIPE_" + std::string(PipeName(pipe)) +
          " before the " + this_op + " (a TQue's enque/deque pair does this)";
  } else {
    fix = "pipe_barrier(PIPE_ALL) between them (PIPE_" + std::string(PipeName(other)) +
          " and PIPE_" + std::string(PipeName(pipe)) + " have no flag pair on this core)";
  }
  std::string range = RangeText(MemSpaceName(space), f.lo, f.hi);
  Diagnostic d = sink_.Make(Diagnostic::Kind::kRace, Diagnostic::Severity::kError, site,
                            sink_.Prefix(site) + ": race (" + kRaceNames[kind] + ") on " + range +
                                ": " + what + ". Fix: " + fix + ".");
  d.race = kRaceNames[kind];
  d.other_pipe = std::string(PipeName(other));
  d.other_op = other_op;
  if (f.other.instr != nullptr) {
    d.other_location = {program.FileName(*f.other.instr), f.other.instr->line,
                        f.other.instr->column};
  }
  d.memory = std::string(MemSpaceName(space));
  d.address_lo = f.lo;
  d.address_hi = f.hi;
  sink_.Pair(std::move(d), f.other.instr, site.instr);
}

}  // namespace aicore::sim
