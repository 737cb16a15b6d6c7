// SparseStore over an anonymous mapping (see sparse_store.h). MAP_NORESERVE keeps untouched
// pages out of the commit charge; no huge pages, or the first touch of a block would commit
// all 2 MiB of it.
#include "sim/mem/sparse_store.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace aicore::sim {
namespace {

#ifndef MAP_NORESERVE
constexpr int kNoReserve = 0;
#else
constexpr int kNoReserve = MAP_NORESERVE;
#endif

uint64_t PageBytes() { return static_cast<uint64_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace

SparseStore::~SparseStore() {
  if (base_ != nullptr) munmap(base_, size_);
}

Status SparseStore::Reserve(uint64_t bytes) {
  if (base_ != nullptr) return Status::Ok();
  void* p =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | kNoReserve, -1, 0);
  if (p == MAP_FAILED) {
    return ResourceExhausted(
        "cannot reserve " + std::to_string(bytes) +
        " bytes of host address space for device memory (mmap: " + std::strerror(errno) +
        "). Fix: lower memory.hbm_bytes in the platform config, or allow "
        "overcommit (vm.overcommit_memory 0 or 1)");
  }
#ifdef MADV_NOHUGEPAGE
  madvise(p, bytes, MADV_NOHUGEPAGE);
#endif
  base_ = static_cast<uint8_t*>(p);
  size_ = bytes;
  return Status::Ok();
}

void SparseStore::Release(uint64_t offset, uint64_t bytes) {
  if (base_ == nullptr) return;
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

}  // namespace aicore::sim
