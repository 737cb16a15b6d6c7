// SparseStore over an anonymous mapping (see sparse_store.h). MAP_NORESERVE keeps untouched
// pages out of the commit charge; no huge pages, or the first touch of a block would commit all
// 2 MiB of it. The mapping grows with mremap, which moves page tables, not bytes; where there
// is no mremap the whole limit is mapped at once.
#include "sim/mem/sparse_store.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace aicore::sim {
namespace {

#ifdef MAP_NORESERVE
constexpr int kNoReserve = MAP_NORESERVE;
#else
constexpr int kNoReserve = 0;
#endif

// The first mapping: 32 blocks of 2 MiB, enough for most sessions without a remap.
constexpr uint64_t kInitialBytes = 64ull << 20;

uint64_t PageBytes() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

void NoHugePages(void* p, uint64_t bytes) {
#ifdef MADV_NOHUGEPAGE
  madvise(p, bytes, MADV_NOHUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Below this a copy's traps cost less than the call.
constexpr uint64_t kPopulateMinBytes = 1ull << 20;

Status MapFailed(uint64_t bytes) {
  return ResourceExhausted("cannot map " + std::to_string(bytes) +
                           " bytes of host address space for device memory (" +
                           std::strerror(errno) +
                           "). Fix: free device buffers, lower memory.hbm_bytes in the platform "
                           "config, or raise the process's address-space limit (ulimit -v)");
}

}  // namespace

SparseStore::~SparseStore() {
  if (base_ != nullptr) munmap(base_, size_);
}

Status SparseStore::Reserve(uint64_t bytes, uint64_t limit) {
  if (bytes <= size_) return Status::Ok();
  if (bytes > limit) return MapFailed(bytes);
#ifdef __linux__
  uint64_t want = std::min(limit, std::max({bytes, 2 * size_, kInitialBytes}));
#else
  uint64_t want = limit;
#endif
  void* p = MAP_FAILED;
  if (base_ == nullptr) {
    p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | kNoReserve, -1,
             0);
  } else {
#ifdef __linux__
    p = mremap(base_, size_, want, MREMAP_MAYMOVE);
#endif
  }
  if (p == MAP_FAILED) return MapFailed(want);
  NoHugePages(p, want);
  base_ = static_cast<uint8_t*>(p);
  size_ = want;
  return Status::Ok();
}

void SparseStore::Release(uint64_t offset, uint64_t bytes) {
  if (base_ == nullptr || offset >= size_) return;
  bytes = std::min(bytes, size_ - offset);
  // Only whole pages can be dropped; the partial pages at the ends are zeroed instead.
  uint64_t page = PageBytes();
  uint64_t lo = (offset + page - 1) / page * page;
  uint64_t hi = (offset + bytes) / page * page;
  if (hi > lo) {
    std::memset(base_ + offset, 0, lo - offset);
    madvise(base_ + lo, hi - lo, MADV_DONTNEED);
    std::memset(base_ + hi, 0, offset + bytes - hi);
  } else {
    std::memset(base_ + offset, 0, bytes);
  }
}

void SparseStore::WillWriteWhole(uint64_t offset, uint64_t bytes) {
#ifdef MADV_POPULATE_WRITE  // Linux 5.14 on; older kernels refuse it with EINVAL, harmlessly
  if (base_ == nullptr || offset >= size_ || bytes < kPopulateMinBytes) return;
  bytes = std::min(bytes, size_ - offset);
  uint64_t page = PageBytes();
  uint64_t lo = (offset + page - 1) / page * page;
  uint64_t hi = (offset + bytes) / page * page;
  if (hi > lo) madvise(base_ + lo, hi - lo, MADV_POPULATE_WRITE);
#else
  (void)offset;
  (void)bytes;
#endif
}

}  // namespace aicore::sim
