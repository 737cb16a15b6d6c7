// Bounds and alignment checks with messages that name the memory, the byte range, the capacity,
// the op, the source line and a fix (see bounds.h).
#include "sim/check/bounds.h"

#include <algorithm>

namespace aicore::sim {
namespace {

std::string Verb(AccessRole role) { return role.write ? "writes" : "reads"; }

// "tensor z (the 4000-byte allocation at 0x100000000)": named by the kernel argument that
// points into it, when one does.
std::string Tensor(const GmAllocation& a, const DiagnosticSink& sink) {
  std::string what = "the " + std::to_string(a.size) + "-byte allocation at " + HexAddress(a.base);
  const std::string* name = sink.GmTensorName(a.base);
  return name != nullptr ? "tensor " + *name + " (" + what + ")" : what;
}

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
                             HexAddress(address) + ", which is not aligned to its " +
                             std::to_string(element_bytes) +
                             "-byte element type. Fix: offset GM tensors by whole elements."));
    return nullptr;
  }
  GmAccess a = gm.Check(address, span);
  if (a.kind == GmAccessKind::kInside) return a.host;
  // Only a finding needs the text (formatting it for every access cost 2% of a launch).
  uint64_t end = address + span < address ? UINT64_MAX : address + span;
  std::string range = "GM[" + HexAddress(address) + ", " + HexAddress(end) + ") (" +
                      std::to_string(span) + " bytes)";
  if (a.kind == GmAccessKind::kOutOfBounds) {
    std::string nearest;
    if (const GmAllocation* n = gm.Nearest(address)) {
      nearest = "; the nearest allocation below it is " + Tensor(*n, sink) + ", mapped up to " +
                HexAddress(n->block_end());
    }
    sink.Error(sink.Make(Diagnostic::Kind::kGmOutOfBounds, Diagnostic::Severity::kError, site,
                         sink.Prefix(site) + ": operand " + role.operand + " " + Verb(role) + " " +
                             range +
                             ", which is not inside mapped device memory (no live "
                             "allocation's block holds all of it)" +
                             nearest +
                             ". Fix: check the GM offset and the copy length against the "
                             "tensor's size."));
    return nullptr;
  }
  const GmAllocation& t = *a.allocation;
  std::string what = sink.Prefix(site) + ": operand " + role.operand + " " + Verb(role) + " " +
                     range + ", which runs " + std::to_string(end - t.end()) +
                     " bytes past the end of " + Tensor(t, sink);
  Diagnostic d;
  if (a.other != nullptr) {
    const GmAllocation& o = *a.other;
    what += ", beyond its " + std::to_string(t.block) + "-byte allocator block and into " +
            Tensor(o, sink) + ": the chip " + (role.write ? "overwrites " : "reads ") +
            "its bytes GM[" + HexAddress(o.base) + ", " + HexAddress(std::min(end, o.end())) +
            ") silently" + (role.write ? ", corrupting it" : "") +
            ". Fix: copy only the tensor's elements (clip the last tile, DataCopyPad), or "
            "allocate the padded size.";
    d = sink.Make(Diagnostic::Kind::kGmOverrun, Diagnostic::Severity::kWarning, site, what);
    d.address_lo = o.base;
    d.address_hi = std::min(end, o.end());
  } else {
    what += ", in mapped device memory that belongs to no tensor (its " + std::to_string(t.block) +
            "-byte allocator block): the chip runs it silently, but the bytes are not the "
            "tensor's. Fix: copy only the tensor's elements (clip the last tile, DataCopyPad), "
            "or allocate the padded size.";
    d = sink.Make(Diagnostic::Kind::kGmOverrun, Diagnostic::Severity::kWarning, site, what);
    d.address_lo = t.end();
    d.address_hi = end;
  }
  d.memory = "GM";
  sink.Warn(std::move(d), site.instr);
  return a.host;
}

}  // namespace aicore::sim
