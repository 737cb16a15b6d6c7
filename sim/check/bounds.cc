// Bounds and alignment checks with messages that name the memory, the byte range, the capacity,
// the op, the source line and a fix (see bounds.h).
#include "sim/check/bounds.h"

#include <cstdio>

namespace aicore::sim {
namespace {

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Verb(AccessRole role) { return role.write ? "writes" : "reads"; }

}  // namespace

bool CheckLocalAccess(const LocalMemory& mem, uint64_t address, uint64_t span, uint64_t alignment,
                      AccessRole role, const Site& site, DiagnosticSink& sink) {
  if (span == 0) return true;
  if (alignment > 1 && address % alignment != 0) {
    sink.Error(sink.Make(
        Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError, site,
        sink.Prefix(site) + ": operand " + role.operand + " has " + mem.name() + " address " +
            std::to_string(address) + ", which is not " + std::to_string(alignment) +
            "-byte aligned; " + mem.name() + " operands must start on a " +
            std::to_string(alignment) + "-byte boundary. Fix: allocate buffers at multiples of " +
            std::to_string(alignment) + " bytes (TPipe/TBuf round lengths up to 32 B)."));
    return false;
  }
  if (!mem.InBounds(address, span)) {
    uint64_t end = address + span < address ? UINT64_MAX : address + span;
    sink.Error(sink.Make(
        Diagnostic::Kind::kOutOfBounds, Diagnostic::Severity::kError, site,
        sink.Prefix(site) + ": operand " + role.operand + " " + Verb(role) + " " + mem.name() +
            "[" + std::to_string(address) + ", " + std::to_string(end) + ") (" +
            std::to_string(span) + " bytes), beyond the " + mem.name() + " capacity of " +
            std::to_string(mem.capacity()) + " bytes. Fix: shrink the tile or the count so that " +
            "address + bytes <= " + std::to_string(mem.capacity()) +
            " (sum of all buffers of a TPipe must fit in " + mem.name() + ")."));
    return false;
  }
  return true;
}

uint8_t* CheckGmAccess(GlobalMemory& gm, uint64_t address, uint64_t span, uint64_t element_bytes,
                       AccessRole role, const Site& site, DiagnosticSink& sink) {
  if (span == 0) return nullptr;
  if (element_bytes > 1 && address % element_bytes != 0) {
    sink.Error(sink.Make(Diagnostic::Kind::kInvalidOperand, Diagnostic::Severity::kError, site,
                         sink.Prefix(site) + ": operand " + role.operand + " has GM address " +
                             Hex(address) + ", which is not aligned to its " +
                             std::to_string(element_bytes) +
                             "-byte element type. Fix: offset GM tensors by whole elements."));
    return nullptr;
  }
  GmAccess a = gm.Check(address, span);
  if (a.kind == GmAccessKind::kInside) return a.host;
  // Only a finding needs the text (formatting it for every access cost 2% of a launch).
  uint64_t end = address + span < address ? UINT64_MAX : address + span;
  std::string range =
      "GM[" + Hex(address) + ", " + Hex(end) + ") (" + std::to_string(span) + " bytes)";
  if (a.kind == GmAccessKind::kOutOfBounds) {
    std::string nearest;
    if (const GmAllocation* n = gm.Nearest(address)) {
      nearest = "; the nearest allocation below it is [" + Hex(n->base) + ", " +
                Hex(n->base + n->size) + ") (" + std::to_string(n->size) + " bytes + " +
                std::to_string(n->slack) + " bytes of slack)";
    }
    sink.Error(sink.Make(Diagnostic::Kind::kGmOutOfBounds, Diagnostic::Severity::kError, site,
                         sink.Prefix(site) + ": operand " + role.operand + " " + Verb(role) + " " +
                             range + ", which is not inside any device allocation" + nearest +
                             ". Fix: check the GM offset and the copy length against the "
                             "tensor's size."));
    return nullptr;
  }
  if (a.kind == GmAccessKind::kSlack) {
    const GmAllocation& n = *a.allocation;
    uint64_t past = address + span - (n.base + n.size);
    sink.Warn(
        sink.Make(Diagnostic::Kind::kGmSlackAccess, Diagnostic::Severity::kWarning, site,
                  sink.Prefix(site) + ": operand " + role.operand + " " + Verb(role) + " " + range +
                      ", which ends " + std::to_string(past) + " bytes past the end of the " +
                      std::to_string(n.size) + "-byte allocation at " + Hex(n.base) +
                      " (inside its " + std::to_string(n.slack) +
                      "-byte slack). It works because the runtime pads allocations, but the "
                      "bytes do not belong to the tensor. Fix: copy only the tensor's size, or "
                      "allocate the padded size explicitly."),
        site.instr);
  }
  return a.host;
}

}  // namespace aicore::sim
