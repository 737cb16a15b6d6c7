// TPipe's allocator for one physical memory (asc-api.md 5.1): a pointer that starts at the
// memory's base and only moves up; every request is rounded up to 32 bytes. TBufPools use the
// same allocator over their own range.
#pragma once

#include <cstdint>

namespace aicore::sim {

// Buffer lengths are rounded up to whole 32-byte blocks (asc-api.md 5.1, 5.4).
inline uint64_t Round32(uint64_t bytes) { return (bytes + 31) / 32 * 32; }

class BumpAllocator {
 public:
  BumpAllocator() = default;
  BumpAllocator(uint64_t base, uint64_t length) : base_(base), end_(base + length), next_(base) {}

  // Takes `bytes` (already rounded); false when they do not fit, nothing is taken then.
  bool Take(uint64_t bytes, uint64_t* address) {
    if (bytes > end_ - next_) return false;
    *address = next_;
    next_ += bytes;
    return true;
  }
  void Rewind() { next_ = base_; }

  uint64_t base() const { return base_; }
  uint64_t length() const { return end_ - base_; }
  uint64_t used() const { return next_ - base_; }
  uint64_t left() const { return end_ - next_; }

 private:
  uint64_t base_ = 0;
  uint64_t end_ = 0;
  uint64_t next_ = 0;
};

}  // namespace aicore::sim
