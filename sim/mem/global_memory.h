// The device's global memory (HBM) as a caching allocator hands it out (DESIGN.md, device
// memory): each allocation starts at the start of its own block of `block_bytes` (the
// allocator's granularity), blocks are laid out back to back in one device address space, and
// all of a live block is mapped. A kernel access is inside a tensor, an overrun (past a tensor's
// end but in mapped memory: the chip runs it silently, and may so write a neighbouring tensor)
// or out of bounds (some byte is not mapped: a fault on the chip). Limits count requested bytes.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "sim/core/interval_map.h"
#include "sim/core/status.h"
#include "sim/mem/sparse_store.h"

namespace aicore::sim {

struct GmAllocation {
  uint64_t base = 0;
  uint64_t size = 0;   // requested bytes: the tensor
  uint64_t block = 0;  // mapped bytes from base: size rounded up to whole allocator blocks
  uint64_t end() const { return base + size; }
  uint64_t block_end() const { return base + block; }
};

enum class GmAccessKind : uint8_t {
  kInside,       // within one tensor's [base, base + size)
  kOverrun,      // past the end of the tensor it starts in, but every byte mapped
  kOutOfBounds,  // some byte outside every live block
};

struct GmAccess {
  GmAccessKind kind = GmAccessKind::kOutOfBounds;
  const GmAllocation* allocation = nullptr;  // the tensor the access starts in, unless kOutOfBounds
  const GmAllocation* other = nullptr;       // kOverrun: the next tensor the access reaches, if any
  uint8_t* host = nullptr;                   // host pointer of the first byte, unless kOutOfBounds
};

class GlobalMemory {
 public:
  // `capacity_bytes` bounds both the requested bytes and the blocks they occupy (HBM holds the
  // blocks); `alignment_bytes` divides `block_bytes`.
  GlobalMemory(uint64_t capacity_bytes, uint64_t alignment_bytes, uint64_t block_bytes);

  StatusOr<uint64_t> Malloc(uint64_t bytes);
  Status Free(uint64_t address);
  // Host copies; the range must be mapped.
  // Host copies: inside the allocation `address` is in, within its requested size (a
  // kernel's accesses go through Check, with the chip's overrun rule instead).
  // `call_start` is where the host call began (a chunked copy's first chunk): every chunk must
  // lie in the allocation holding it. kThisCopy: the copy's own address.
  static constexpr uint64_t kThisCopy = ~uint64_t{0};
  Status Write(uint64_t address, const void* src, uint64_t bytes, uint64_t call_start = kThisCopy);
  Status Read(uint64_t address, void* dst, uint64_t bytes, uint64_t call_start = kThisCopy) const;
  uint64_t bytes_allocated() const { return bytes_allocated_; }
  uint64_t block_bytes() const { return block_; }

  // Classifies the byte range [address, address + bytes); bytes > 0.
  GmAccess Check(uint64_t address, uint64_t bytes);
  // The allocation whose block contains `address`, else the nearest one below it (for
  // messages), else nullptr.
  const GmAllocation* Nearest(uint64_t address) const;

  // Which tensor bytes anything wrote since they were allocated: the host (Write) or a kernel
  // (MarkWritten, by the checkers). Unwritten returns the first range of tensor bytes in
  // [lo, hi) nothing wrote, as an empty pair when there is none; initcheck reports reads of it.
  // Bytes past a tensor's end are not counted: an access to them is an overrun already.
  void MarkWritten(uint64_t lo, uint64_t hi);

  // The device address of the first byte of the address space, and how many bytes of it are
  // backed by host memory now: a shadow of GM (sim/mem/unknown_bytes.h) mirrors this span.
  static uint64_t first_address();
  uint64_t mapped_bytes() const { return store_.size(); }
  std::pair<uint64_t, uint64_t> Unwritten(uint64_t lo, uint64_t hi) const;

 private:
  // The live allocation whose block holds `address`, or end().
  std::map<uint64_t, GmAllocation>::const_iterator BlockAt(uint64_t address) const;
  // True when every byte of [address, address + bytes) is in a live block.
  bool Mapped(uint64_t address, uint64_t bytes) const;
  Status HostCopyInside(const char* what, uint64_t call_start, uint64_t address,
                        uint64_t bytes) const;
  // Device offset of a free run of `bytes`, preferring never-used addresses; false when full.
  bool Place(uint64_t bytes, uint64_t* offset) const;
  std::pair<uint64_t, uint64_t> UnwrittenIn(uint64_t lo, uint64_t hi) const;

  uint64_t capacity_;
  uint64_t block_;
  uint64_t space_;     // device address space: capacity rounded up to whole blocks
  uint64_t next_ = 0;  // offset of the first never-used block
  uint64_t bytes_allocated_ = 0;
  std::map<uint64_t, GmAllocation> allocations_;  // by base
  IntervalMap<bool> written_;                     // true where something wrote
  SparseStore store_;                             // host bytes of the address space
};

}  // namespace aicore::sim
