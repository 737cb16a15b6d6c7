// One TBufPool (asc-api.md 5.4): a range of a physical memory carved from the TPipe or from a
// parent pool, or aliasing another pool's range (share_buf), with its own bump allocator and a
// limit of buf_id_size buffers. Constraints follow the library's documentation: a non-shared
// sub-pool's buf_id_size must fit the parent's remaining buffer ids (and takes them), a shared
// one must not exceed the parent's buf_id_size and its length the shared pool's; reset rewinds
// the pool while the buffers it handed out keep their addresses.
#pragma once

#include <cstdint>
#include <string>

#include "sim/fwk/bump_allocator.h"
#include "sim/isa/program.h"

namespace aicore::sim {

class TBufPoolState {
 public:
  explicit TBufPoolState(const PoolInfo& info) : info_(&info) {}

  const PoolInfo& info() const { return *info_; }
  bool initialized() const { return initialized_; }
  uint64_t base() const { return range_.base(); }
  uint64_t length() const { return range_.length(); }
  uint32_t ids_left() const { return info_->buf_id_size - ids_used_; }

  // The pool now covers [base, base + length).
  void Init(uint64_t base, uint64_t length);
  void Drop() { initialized_ = false; }

  // Takes `bytes` (rounded) for `count` buffers. Returns the reason on failure, with
  // *out_of_memory telling a too-small range from too few buffer ids.
  std::string TakeBuffers(uint64_t bytes, uint32_t count, const std::string& what,
                          uint64_t* address, bool* out_of_memory);
  // Carves a non-shared sub-pool of `bytes` that takes `ids` buffer ids of this pool.
  std::string TakeSubPool(uint64_t bytes, uint32_t ids, const std::string& what, uint64_t* address,
                          bool* out_of_memory);
  // Rewinds the allocator and the buffer ids (TBufPool.reset).
  void Rewind();

 private:
  const PoolInfo* info_;
  bool initialized_ = false;
  BumpAllocator range_;
  uint32_t ids_used_ = 0;
};

}  // namespace aicore::sim
