// Memory access checks done when an instruction is issued (all its operands are known then):
// local-memory alignment and capacity (INVALID_OPERAND / OUT_OF_BOUNDS, fatal) and GM ranges
// against mapped device memory (GM_OUT_OF_BOUNDS fatal, GM_OVERRUN past a tensor a warning).
#pragma once

#include <cstdint>
#include <string>

#include "sim/check/diagnostics.h"
#include "sim/mem/global_memory.h"
#include "sim/mem/local_memory.h"

namespace aicore::sim {

struct AccessRole {
  const char* operand;  // "dst", "src0" ...: the IR field
  bool write;
};

// [address, address + span) in `mem`, which must start on an `alignment`-byte boundary. Returns
// false after recording an error in `sink`.
bool CheckLocalAccess(const LocalMemory& mem, uint64_t address, uint64_t span, uint64_t alignment,
                      AccessRole role, const Site& site, DiagnosticSink& sink);

// [address, address + span) in GM; `element_bytes` is the required alignment. Returns the host
// pointer of the first byte, or nullptr after recording an error. Accesses past a tensor's end
// but in mapped memory (its block, or a neighbouring tensor's) record a warning and succeed.
uint8_t* CheckGmAccess(GlobalMemory& gm, uint64_t address, uint64_t span, uint64_t element_bytes,
                       AccessRole role, const Site& site, DiagnosticSink& sink);

}  // namespace aicore::sim
