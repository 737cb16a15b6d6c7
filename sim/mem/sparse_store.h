// Host memory behind a device address space: one range of host address space reserved at once
// and backed by the OS page by page on first write, so a 2 MiB allocator block costs host
// memory only where a kernel or the host touched it, and bytes of neighbouring blocks are
// contiguous on the host as they are on the device.
#pragma once

#include <cstdint>

#include "sim/core/status.h"

namespace aicore::sim {

class SparseStore {
 public:
  SparseStore() = default;
  ~SparseStore();
  SparseStore(const SparseStore&) = delete;
  SparseStore& operator=(const SparseStore&) = delete;

  // Reserves `bytes` of zeroed host address space; a no-op once reserved.
  Status Reserve(uint64_t bytes);
  // Returns [offset, offset + bytes) to the OS: the pages read as zeros again.
  void Release(uint64_t offset, uint64_t bytes);

  uint8_t* data() const { return base_; }
  uint64_t size() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace aicore::sim
