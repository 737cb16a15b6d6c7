// Cross-core GM checks and GM initcheck (see gm_checker.h).
#include "sim/check/gm_checker.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "sim/isa/opcode.h"

namespace aicore::sim {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Range(uint64_t lo, uint64_t hi) { return "GM[" + Hex(lo) + ", " + Hex(hi) + ")"; }

uint64_t Bit(uint32_t core) { return core < 64 ? uint64_t{1} << core : 0; }

// The lowest core in `mask` other than `self`, or -1.
int32_t OtherCore(uint64_t mask, uint32_t self) {
  mask &= ~Bit(self);
  return mask == 0 ? -1 : __builtin_ctzll(mask);
}

const char kCoresFix[] =
    "give each core its own range (check the block offsets: GetBlockIdx() * block_length), or "
    "order the cores (sync_all or cross-core flags, once the IR has them)";

}  // namespace

void GmChecker::Report(const Site& site, Diagnostic::Kind kind, const char* race,
                       int32_t other_core, PipeId other_pipe, const Instr* other, uint64_t lo,
                       uint64_t hi, const std::string& what, const std::string& fix) {
  bool is_race = kind == Diagnostic::Kind::kRace;
  std::string label = is_race ? std::string("race (") + race + " across cores) on "
                              : std::string("shared write on ");
  Diagnostic d = sink_.Make(
      kind, is_race ? Diagnostic::Severity::kError : Diagnostic::Severity::kWarning, site,
      sink_.Prefix(site) + ": " + label + Range(lo, hi) + ": " + what + ". Fix: " + fix + ".");
  d.race = race;
  d.other_core = other_core;
  d.other_pipe = std::string(PipeName(other_pipe));
  if (other != nullptr) {
    d.other_op = std::string(Info(other->opcode).mnemonic);
    d.other_location = {sink_.program().FileName(*other), other->line, other->column};
  }
  d.memory = "GM";
  d.address_lo = lo;
  d.address_hi = hi;
  sink_.Pair(std::move(d), other, site.instr);
}

void GmChecker::OnRead(const Site& site, const GmSpan& span) {
  const Program& program = sink_.program();
  std::string op = site.instr != nullptr ? std::string(Info(site.instr->opcode).mnemonic) : "copy";
  for (uint64_t c = 0; c < span.chunks; ++c) {
    uint64_t lo = span.addr + c * span.pitch, hi = lo + span.chunk;
    if (auto [ulo, uhi] = gm_.Unwritten(lo, hi); uhi > ulo) {
      Diagnostic d = sink_.Make(
          Diagnostic::Kind::kUninitializedRead, Diagnostic::Severity::kWarning, site,
          sink_.Prefix(site) + ": reads " + Range(ulo, uhi) +
              ", which neither the host nor a kernel wrote: the bytes are whatever the "
              "allocation held. Fix: copy the input to the device first, or read only the "
              "tensor's own elements.");
      d.memory = "GM";
      d.address_lo = ulo;
      d.address_hi = uhi;
      sink_.Warn(std::move(d), site.instr);
    }
    shadow_.Visit(lo, hi, [&](uint64_t a, uint64_t b, Shadow& s) {
      if (s.writer >= 0 && s.writer != static_cast<int32_t>(site.core)) {
        std::string other = "core " + std::to_string(s.writer) + "'s PIPE_" +
                            std::string(PipeName(s.write_pipe)) + " " +
                            std::string(Info(s.write_instr->opcode).mnemonic) + " at " +
                            program.Where(*s.write_instr);
        Report(site, Diagnostic::Kind::kRace, "RAW", s.writer, s.write_pipe, s.write_instr, a, b,
               "this " + op + " reads bytes that " + other +
                   " writes in this launch, and nothing orders the two cores, so what it reads "
                   "depends on timing",
               kCoresFix);
      }
      if (int32_t atomic = OtherCore(s.atomic_writers, site.core); atomic >= 0) {
        Report(site, Diagnostic::Kind::kRace, "RAW", atomic, s.atomic_pipe, s.atomic_instr, a, b,
               "this " + op + " reads bytes that core " + std::to_string(atomic) +
                   " atomically accumulates into in this launch, and nothing orders the two "
                   "cores, so what it reads depends on timing",
               kCoresFix);
      }
      s.readers |= Bit(site.core);
      s.read_instr = site.instr;
      s.read_pipe = site.pipe;
    });
  }
}

void GmChecker::OnWrite(const Site& site, const GmSpan& span, const uint8_t* data, bool atomic) {
  const Program& program = sink_.program();
  std::string op = site.instr != nullptr ? std::string(Info(site.instr->opcode).mnemonic) : "copy";
  auto core = static_cast<int32_t>(site.core);
  for (uint64_t c = 0; c < span.chunks; ++c) {
    uint64_t lo = span.addr + c * span.pitch, hi = lo + span.chunk;
    const uint8_t* bytes = data + c * span.chunk;
    GmAccess now = gm_.Check(lo, span.chunk);
    shadow_.Visit(lo, hi, [&](uint64_t a, uint64_t b, Shadow& s) {
      if (s.writer >= 0 && s.writer != core) {
        std::string other = "core " + std::to_string(s.writer) + "'s PIPE_" +
                            std::string(PipeName(s.write_pipe)) + " " +
                            std::string(Info(s.write_instr->opcode).mnemonic) + " at " +
                            program.Where(*s.write_instr);
        bool same = !atomic && now.host != nullptr &&
                    std::memcmp(now.host + (a - lo), bytes + (a - lo), b - a) == 0;
        if (atomic) {
          Report(site, Diagnostic::Kind::kRace, "WAW", s.writer, s.write_pipe, s.write_instr, a, b,
                 "this atomic " + op + " accumulates into bytes that " + other +
                     " writes without an atomic mode in this launch, and nothing orders the two "
                     "cores, so the result depends on which lands first",
                 kCoresFix);
        } else if (same) {
          Report(site, Diagnostic::Kind::kGmSharedWrite, "WAW", s.writer, s.write_pipe,
                 s.write_instr, a, b,
                 "this " + op + " writes bytes that " + other +
                     " already wrote in this launch, with identical values (whole-tile tail "
                     "handling does this): the result does not depend on which lands last, but "
                     "the cores do the work twice",
                 "clip the last tile to the tensor's end (DataCopyPad) if the duplicate traffic "
                 "matters");
        } else {
          Report(site, Diagnostic::Kind::kRace, "WAW", s.writer, s.write_pipe, s.write_instr, a, b,
                 "this " + op + " writes bytes that " + other +
                     " also writes in this launch, with different values, and nothing orders the "
                     "two cores, so the result depends on which lands last",
                 kCoresFix);
        }
      }
      if (int32_t reader = OtherCore(s.readers, site.core); reader >= 0) {
        std::string other = "core " + std::to_string(reader) + "'s PIPE_" +
                            std::string(PipeName(s.read_pipe)) + " " +
                            std::string(Info(s.read_instr->opcode).mnemonic) + " at " +
                            program.Where(*s.read_instr);
        Report(site, Diagnostic::Kind::kRace, "WAR", reader, s.read_pipe, s.read_instr, a, b,
               "this " + op + " writes bytes that " + other +
                   " reads in this launch, and nothing orders the two cores, so that read may see "
                   "the old or the new bytes",
               kCoresFix);
      }
      if (int32_t other = OtherCore(s.atomic_writers, site.core); other >= 0 && !atomic) {
        Report(site, Diagnostic::Kind::kRace, "WAW", other, s.atomic_pipe, s.atomic_instr, a, b,
               "this " + op + " overwrites bytes that core " + std::to_string(other) +
                   " atomically accumulates into in this launch, and nothing orders the two "
                   "cores, so the result depends on which lands last",
               kCoresFix);
      }
      if (atomic) {
        // Atomic stores of several cores commute with each other: remember them, and keep the
        // last plain writer so a later store of another core is still judged against it.
        s.atomic_writers |= Bit(site.core);
        s.atomic_instr = site.instr;
        s.atomic_pipe = site.pipe;
        s.readers = 0;
        s.read_instr = nullptr;
        s.read_pipe = PipeId::kS;
      } else {
        s = Shadow{core, site.instr, site.pipe, 0, nullptr, PipeId::kS, 0, nullptr, PipeId::kS};
      }
    });
    gm_.MarkWritten(lo, hi);
  }
}

}  // namespace aicore::sim
