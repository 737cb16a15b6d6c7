// Cross-core GM checks and GM initcheck (see gm_checker.h).
#include "sim/check/gm_checker.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "sim/isa/opcode.h"

namespace aicore::sim {
namespace {

const char kCoresFix[] =
    "give each core its own range (check the block offsets: GetBlockIdx() * block_length), or "
    "order the cores: cross_core_set_flag on the writer's pipe after the write and "
    "cross_core_wait_flag before the other access, or sync_all between the two";
const char kSharedFix[] =
    "clip the last tile to the tensor's end (DataCopyPad) if the duplicate traffic matters";

// What each GmChecker::Conflict says: "this" `self` op, `lead`, the other access, `tail`.
struct ConflictText {
  const char* race;
  const char* self;
  const char* lead;
  const char* tail;
};
constexpr ConflictText kConflictTexts[] = {
    {"RAW", "this ", "reads bytes that ",
     " writes in this launch, and nothing orders the two cores, so what it reads depends on "
     "timing"},
    {"RAW", "this ", "reads bytes that ",
     " accumulates into atomically in this launch, and nothing orders the two cores, so what it "
     "reads depends on timing"},
    {"WAW", "this atomic ", "accumulates into bytes that ",
     " writes without an atomic mode in this launch, and nothing orders the two cores, so the "
     "result depends on which lands first"},
    {"WAW", "this ", "writes bytes that ",
     " already wrote in this launch, with identical values (whole-tile tail handling does "
     "this): the result does not depend on which lands last, but the cores do the work twice"},
    {"WAW", "this ", "writes bytes that ",
     " also writes in this launch, with different values, and nothing orders the two cores, so "
     "the result depends on which lands last"},
    {"WAR", "this ", "writes bytes that ",
     " reads in this launch, and nothing orders the two cores, so that read may see the old or "
     "the new bytes"},
    {"WAW", "this ", "overwrites bytes that ",
     " accumulates into atomically in this launch, and nothing orders the two cores, so the "
     "result depends on which lands last"},
};

}  // namespace

void LowestCores::Add(uint32_t core, uint32_t epoch) {
  auto c = static_cast<int32_t>(core);
  if (c == first_) {
    first_epoch_ = std::max(first_epoch_, epoch);
    return;
  }
  if (c == second_) {
    second_epoch_ = std::max(second_epoch_, epoch);
    return;
  }
  if (first_ < 0 || c < first_) {
    second_ = first_;
    second_epoch_ = first_epoch_;
    first_ = c;
    first_epoch_ = epoch;
  } else if (second_ < 0 || c < second_) {
    second_ = c;
    second_epoch_ = epoch;
  }
}

int32_t LowestCores::Unordered(uint32_t self, const CoreClocks* clocks) const {
  auto ordered = [&](int32_t c, uint32_t epoch) {
    return clocks != nullptr && clocks->Knows(self, static_cast<uint32_t>(c), epoch);
  };
  auto s = static_cast<int32_t>(self);
  if (first_ >= 0 && first_ != s && !ordered(first_, first_epoch_)) return first_;
  if (second_ >= 0 && second_ != s && !ordered(second_, second_epoch_)) return second_;
  return -1;
}

std::vector<uint32_t> GmChecker::Writers(uint64_t lo, uint64_t hi) {
  std::vector<uint32_t> out;
  shadow_.Visit(lo, hi, [&](uint64_t, uint64_t, Shadow& s) {
    if (s.writer >= 0) out.push_back(static_cast<uint32_t>(s.writer));
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void GmChecker::Note(std::vector<Found>* found, const Found& f) {
  for (Found& g : *found) {
    if (g.conflict == f.conflict && g.other_core == f.other_core && g.other == f.other) {
      g.lo = std::min(g.lo, f.lo);
      g.hi = std::max(g.hi, f.hi);
      return;
    }
  }
  found->push_back(f);
}

void GmChecker::Report(const Site& site, const Found& f) {
  std::string op = site.instr != nullptr ? std::string(Info(site.instr->opcode).mnemonic) : "copy";
  // "core 1's PIPE_MTE3 data_copy at add.py:20": the other side of the pair.
  std::string other = OtherCoreText(f.other_core) + " PIPE_" + std::string(PipeName(f.other_pipe));
  if (f.other != nullptr) {
    other += " " + std::string(Info(f.other->opcode).mnemonic) + " at " +
             sink_.program().Where(*f.other);
  }
  static_assert(std::size(kConflictTexts) == static_cast<size_t>(Conflict::kWriteOverAtomic) + 1);
  const ConflictText& text = kConflictTexts[static_cast<int>(f.conflict)];
  std::string what = std::string(text.self) + op + " " + text.lead + other + text.tail;
  bool shared = f.conflict == Conflict::kSameWrite;
  Diagnostic d =
      sink_.Make(shared ? Diagnostic::Kind::kGmSharedWrite : Diagnostic::Kind::kRace,
                 shared ? Diagnostic::Severity::kNote : Diagnostic::Severity::kError, site,
                 sink_.Prefix(site) + ": " +
                     (shared ? std::string("shared write on ")
                             : std::string("race (") + text.race + " across cores) on ") +
                     RangeText("GM", f.lo, f.hi) + ": " + what +
                     ". Fix: " + (shared ? kSharedFix : kCoresFix) + ".");
  d.race = text.race;
  d.other_core = f.other_core;
  d.other_pipe = std::string(PipeName(f.other_pipe));
  if (f.other != nullptr) {
    d.other_op = std::string(Info(f.other->opcode).mnemonic);
    d.other_location = {sink_.program().FileName(*f.other), f.other->line, f.other->column};
  }
  d.memory = "GM";
  d.address_lo = f.lo;
  d.address_hi = f.hi;
  sink_.Pair(std::move(d), f.other, site.instr);
}

void GmChecker::OnRead(const Site& site, const GmSpan& span) {
  std::vector<Found> found;
  // Most reads are of inputs written whole: one look at the span's hull answers for every piece.
  bool all_written = span.chunks == 0 || [&] {
    auto [ulo, uhi] =
        gm_.Unwritten(span.addr, span.addr + (span.chunks - 1) * span.pitch + span.chunk);
    return uhi <= ulo;
  }();
  for (uint64_t c = 0; c < span.chunks && !all_written; ++c) {
    uint64_t lo = span.addr + c * span.pitch, hi = lo + span.chunk;
    if (auto [ulo, uhi] = gm_.Unwritten(lo, hi); uhi > ulo) {
      Diagnostic d = sink_.Make(
          Diagnostic::Kind::kUninitializedRead, Diagnostic::Severity::kWarning, site,
          sink_.Prefix(site) + ": reads " + RangeText("GM", ulo, uhi) +
              ", which neither the host nor a kernel wrote: the bytes are whatever the "
              "allocation held. Fix: copy the input to the device first, or read only the "
              "tensor's own elements.");
      d.memory = "GM";
      d.address_lo = ulo;
      d.address_hi = uhi;
      sink_.Warn(std::move(d), site.instr);
    }
  }
  uint32_t epoch = EpochOf(site.core);
  shadow_.VisitStrided(
      span.addr, span.chunk, span.pitch, span.chunks, UINT64_MAX,
      [&](uint64_t a, uint64_t b, Shadow& s) {
        if (s.writer >= 0 && s.writer != static_cast<int32_t>(site.core) &&
            !Ordered(site.core, s.writer, s.write_epoch)) {
          Note(&found, {Conflict::kReadsWrite, s.writer, s.write_pipe, s.write_instr, a, b});
        }
        if (int32_t atomic = s.atomic_writers.Unordered(site.core, clocks_); atomic >= 0) {
          Note(&found, {Conflict::kReadsAtomic, atomic, s.atomic_pipe, s.atomic_instr, a, b});
        }
        s.readers.Add(site.core, epoch);
        s.read_instr = site.instr;
        s.read_pipe = site.pipe;
      });
  for (const Found& f : found) Report(site, f);
}

void GmChecker::OnWrite(const Site& site, const GmSpan& span, const uint8_t* data, bool atomic) {
  auto core = static_cast<int32_t>(site.core);
  std::vector<Found> found;
  for (uint64_t c = 0; c < span.chunks; ++c) {
    uint64_t lo = span.addr + c * span.pitch, hi = lo + span.chunk;
    const uint8_t* bytes = data + c * span.chunk;
    GmAccess now = gm_.Check(lo, span.chunk);
    shadow_.Visit(lo, hi, [&](uint64_t a, uint64_t b, Shadow& s) {
      if (s.writer >= 0 && s.writer != core && !Ordered(site.core, s.writer, s.write_epoch)) {
        bool same = !atomic && now.host != nullptr &&
                    std::memcmp(now.host + (a - lo), bytes + (a - lo), b - a) == 0;
        Conflict conflict = atomic ? Conflict::kAtomicOverWrite
                            : same ? Conflict::kSameWrite
                                   : Conflict::kDifferentWrite;
        Note(&found, {conflict, s.writer, s.write_pipe, s.write_instr, a, b});
      }
      if (int32_t reader = s.readers.Unordered(site.core, clocks_); reader >= 0) {
        Note(&found, {Conflict::kWriteOverRead, reader, s.read_pipe, s.read_instr, a, b});
      }
      if (int32_t other = s.atomic_writers.Unordered(site.core, clocks_); other >= 0 && !atomic) {
        Note(&found, {Conflict::kWriteOverAtomic, other, s.atomic_pipe, s.atomic_instr, a, b});
      }
      if (atomic) {
        // Atomic stores of several cores commute with each other: remember them, and keep the
        // last plain writer so a later store of another core is still judged against it.
        s.atomic_writers.Add(site.core, EpochOf(site.core));
        s.atomic_instr = site.instr;
        s.atomic_pipe = site.pipe;
        s.readers = LowestCores();
        s.read_instr = nullptr;
        s.read_pipe = PipeId::kS;
      } else {
        s = Shadow{core,    EpochOf(site.core), site.instr, site.pipe, {},
                   nullptr, PipeId::kS,         {},         nullptr,   PipeId::kS};
      }
    });
    gm_.MarkWritten(lo, hi);
  }
  for (const Found& f : found) Report(site, f);
}

}  // namespace aicore::sim
