// Host memory behind a device address space: a range of host address space backed by the OS
// page by page on first write, so a 2 MiB allocator block costs host memory only where a kernel
// or the host touched it, and bytes of neighbouring blocks are contiguous on the host as they
// are on the device. The range grows as allocations need it (and may move then: host pointers
// into it must not outlive a launch, during which nothing allocates).
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

  // Makes at least `bytes` (at most `limit`) of zeroed host address space available, growing
  // geometrically so that a session's allocations remap it a few times only.
  Status Reserve(uint64_t bytes, uint64_t limit);
  // Returns [offset, offset + bytes) to the OS: the pages read as zeros again.
  void Release(uint64_t offset, uint64_t bytes);
  // [offset, offset + bytes) is about to be written whole (a host copy): its pages are faulted
  // in by one call instead of one trap each (a 128 MiB copy takes 32,768 traps otherwise).
  // Only an optimisation: where the OS cannot, the copy faults them in as it writes.
  void WillWriteWhole(uint64_t offset, uint64_t bytes);

  uint8_t* data() const { return base_; }
  uint64_t size() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace aicore::sim
