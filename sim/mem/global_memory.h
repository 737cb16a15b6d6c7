// The device's global memory (HBM) as a set of allocations. Each allocation is aligned and
// followed by `slack` extra bytes (the pyasc runtime's padding), so a kernel access can be
// classified as inside, in the slack (a warning: pyasc tests rely on it) or out of bounds.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/core/interval_map.h"
#include "sim/core/status.h"

namespace aicore::sim {

struct GmAllocation {
  uint64_t base = 0;
  uint64_t size = 0;          // requested bytes
  uint64_t slack = 0;         // accessible bytes after `size`
  std::vector<uint8_t> data;  // size + slack bytes
};

enum class GmAccessKind : uint8_t {
  kInside,       // within [base, base + size)
  kSlack,        // ends within the slack behind the requested size
  kOutOfBounds,  // not inside any single allocation's [base, base + size + slack)
};

struct GmAccess {
  GmAccessKind kind = GmAccessKind::kOutOfBounds;
  GmAllocation* allocation = nullptr;  // set unless kOutOfBounds
  uint8_t* host = nullptr;             // host pointer of the first byte, unless kOutOfBounds
};

class GlobalMemory {
 public:
  GlobalMemory(uint64_t capacity_bytes, uint64_t alignment_bytes, uint64_t slack_bytes);

  StatusOr<uint64_t> Malloc(uint64_t bytes);
  Status Free(uint64_t address);
  Status Write(uint64_t address, const void* src, uint64_t bytes);
  Status Read(uint64_t address, void* dst, uint64_t bytes) const;
  uint64_t bytes_allocated() const { return bytes_allocated_; }

  // Classifies the byte range [address, address + bytes); bytes > 0.
  GmAccess Check(uint64_t address, uint64_t bytes);
  // The allocation whose accessible range contains `address`, else the nearest one below it
  // (for messages), else nullptr.
  const GmAllocation* Nearest(uint64_t address) const;

  // Which bytes anything wrote since they were allocated: the host (Write) or a kernel
  // (MarkWritten, by the checkers). Unwritten returns the first range in [lo, hi) nothing wrote,
  // as an empty pair when there is none; initcheck reports reads of it.
  void MarkWritten(uint64_t lo, uint64_t hi);
  std::pair<uint64_t, uint64_t> Unwritten(uint64_t lo, uint64_t hi) const;

 private:
  const GmAllocation* Containing(uint64_t address, uint64_t bytes) const;

  uint64_t capacity_;
  uint64_t alignment_;
  uint64_t slack_;
  uint64_t next_address_;
  uint64_t bytes_allocated_ = 0;
  std::map<uint64_t, GmAllocation> allocations_;  // by base
  IntervalMap<bool> written_;                     // true where something wrote
};

}  // namespace aicore::sim
