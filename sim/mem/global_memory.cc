// Block allocation and access classification for GM (see global_memory.h).
#include "sim/mem/global_memory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace aicore::sim {
namespace {

// Device addresses start here so that 0 (a null GlobalAddress) never maps. Blocks are handed out
// at increasing addresses and reused only once the address space is used up, so a stale pointer
// to a freed buffer is usually reported (its block is unmapped) instead of reading another's data.
constexpr uint64_t kBaseAddress = 1ull << 32;

uint64_t RoundUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

GlobalMemory::GlobalMemory(uint64_t capacity_bytes, uint64_t alignment_bytes, uint64_t block_bytes)
    : capacity_(capacity_bytes) {
  // A block that is not a whole number of alignments would misalign the next allocation.
  uint64_t alignment = alignment_bytes == 0 ? 1 : alignment_bytes;
  block_ = RoundUp(block_bytes == 0 ? alignment : block_bytes, alignment);
  space_ = RoundUp(capacity_ == 0 ? 1 : capacity_, block_);
}

bool GlobalMemory::Place(uint64_t bytes, uint64_t* offset) const {
  if (next_ <= space_ && bytes <= space_ - next_) {
    *offset = next_;
    return true;
  }
  // First fit among the holes freed blocks left.
  uint64_t at = 0;
  for (const auto& [base, a] : allocations_) {
    uint64_t lo = base - kBaseAddress;
    if (lo - at >= bytes) break;
    at = lo + a.block;
  }
  if (at > space_ || bytes > space_ - at) return false;
  *offset = at;
  return true;
}

StatusOr<uint64_t> GlobalMemory::Malloc(uint64_t bytes) {
  if (bytes > capacity_ || bytes_allocated_ > capacity_ - bytes) {
    return ResourceExhausted("device memory exhausted: " + std::to_string(bytes) +
                             " bytes requested, " + std::to_string(bytes_allocated_) + " of " +
                             std::to_string(capacity_) + " in use");
  }
  uint64_t block = RoundUp(bytes == 0 ? 1 : bytes, block_);
  uint64_t offset = 0;
  if (bytes > space_ || !Place(block, &offset)) {
    return ResourceExhausted("device memory exhausted: " + std::to_string(allocations_.size()) +
                             " live allocations fill the " + std::to_string(space_) +
                             "-byte device address space in " + std::to_string(block_) +
                             "-byte allocator blocks (each allocation takes whole blocks, " +
                             "gm.alloc_block_bytes); no free run of " + std::to_string(block) +
                             " bytes is left for a " + std::to_string(bytes) +
                             "-byte allocation. Fix: free buffers, "
                             "or allocate fewer, larger ones");
  }
  Status reserved = store_.Reserve(offset + block, space_);
  if (!reserved.ok()) return reserved;
  GmAllocation a;
  a.base = kBaseAddress + offset;
  a.size = bytes;
  a.block = block;
  next_ = std::max(next_, offset + block);
  bytes_allocated_ += bytes;
  allocations_.emplace(a.base, a);
  return a.base;
}

Status GlobalMemory::Free(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end()) {
    return NotFound("Free(" + Hex(address) + "): not the start of a live device allocation");
  }
  const GmAllocation& a = it->second;
  bytes_allocated_ -= a.size;
  // A later allocation of this block starts zeroed and unwritten, and the host gets its pages back.
  store_.Release(a.base - kBaseAddress, a.block);
  written_.Visit(a.base, a.block_end(), [](uint64_t, uint64_t, bool& w) { w = false; });
  allocations_.erase(it);
  return Status::Ok();
}

std::map<uint64_t, GmAllocation>::const_iterator GlobalMemory::BlockAt(uint64_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return allocations_.end();
  --it;
  return address < it->second.block_end() ? it : allocations_.end();
}

bool GlobalMemory::Mapped(uint64_t address, uint64_t bytes) const {
  if (address + bytes < address) return false;
  auto it = BlockAt(address);
  if (it == allocations_.end()) return false;
  // Neighbouring blocks are contiguous mapped memory; a freed or never-used block is a gap.
  uint64_t end = address + bytes;
  uint64_t mapped = it->second.block_end();
  while (end > mapped) {
    ++it;
    if (it == allocations_.end() || it->first != mapped) return false;
    mapped = it->second.block_end();
  }
  return true;
}

Status GlobalMemory::HostCopyInside(const char* what, uint64_t call_start, uint64_t address,
                                    uint64_t bytes) const {
  if (call_start == kThisCopy) call_start = address;
  auto it = BlockAt(call_start);
  if (it == allocations_.end() || call_start >= it->second.end() || address < it->first ||
      address >= it->second.end()) {
    return InvalidArgument(std::string(what) + " of " + std::to_string(bytes) + " bytes at " +
                           Hex(address) + " is not inside a live allocation");
  }
  const GmAllocation& a = it->second;
  if (bytes > a.end() - address) {
    return InvalidArgument(std::string(what) + " of " + std::to_string(bytes) + " bytes at " +
                           Hex(address) + " runs " + std::to_string(bytes - (a.end() - address)) +
                           " bytes past the allocation it starts in ([" + Hex(a.base) + ", " +
                           Hex(a.end()) + "), " + std::to_string(a.size) +
                           " bytes). A host copy stays inside one allocation, as CANN's "
                           "aclrtMemcpy does; copy at most " +
                           std::to_string(a.end() - address) + " bytes there");
  }
  return Status::Ok();
}

Status GlobalMemory::Write(uint64_t address, const void* src, uint64_t bytes, uint64_t call_start) {
  if (bytes == 0) return Status::Ok();
  if (Status inside = HostCopyInside("Write", call_start, address, bytes); !inside.ok()) {
    return inside;
  }
  store_.WillWriteWhole(address - kBaseAddress, bytes);
  std::memcpy(store_.data() + (address - kBaseAddress), src, bytes);
  MarkWritten(address, address + bytes);
  return Status::Ok();
}

Status GlobalMemory::Read(uint64_t address, void* dst, uint64_t bytes, uint64_t call_start) const {
  if (bytes == 0) return Status::Ok();
  if (Status inside = HostCopyInside("Read", call_start, address, bytes); !inside.ok()) {
    return inside;
  }
  std::memcpy(dst, store_.data() + (address - kBaseAddress), bytes);
  return Status::Ok();
}

void GlobalMemory::MarkWritten(uint64_t lo, uint64_t hi) {
  written_.Visit(lo, hi, [](uint64_t, uint64_t, bool& w) { w = true; });
}

std::pair<uint64_t, uint64_t> GlobalMemory::UnwrittenIn(uint64_t lo, uint64_t hi) const {
  uint64_t at = lo;
  std::pair<uint64_t, uint64_t> gap{0, 0};
  written_.ForEach(lo, hi, [&](uint64_t a, uint64_t b, const bool& w) {
    if (gap.second != 0) return;
    if (a > at) gap = {at, a};
    if (!w && gap.second == 0) gap = {a, b};
    at = b;
  });
  if (gap.second == 0 && at < hi) gap = {at, hi};
  return gap;
}

std::pair<uint64_t, uint64_t> GlobalMemory::Unwritten(uint64_t lo, uint64_t hi) const {
  auto it = allocations_.upper_bound(lo);
  if (it != allocations_.begin()) --it;
  for (; it != allocations_.end() && it->first < hi; ++it) {
    uint64_t tlo = std::max(lo, it->second.base), thi = std::min(hi, it->second.end());
    if (tlo >= thi) continue;
    if (auto gap = UnwrittenIn(tlo, thi); gap.second > gap.first) return gap;
  }
  return {0, 0};
}

uint64_t GlobalMemory::first_address() { return kBaseAddress; }

GmAccess GlobalMemory::Check(uint64_t address, uint64_t bytes) {
  GmAccess r;
  if (!Mapped(address, bytes)) return r;
  auto it = BlockAt(address);
  r.allocation = &it->second;
  r.host = store_.data() + (address - kBaseAddress);
  if (address + bytes <= it->second.end()) {
    r.kind = GmAccessKind::kInside;
    return r;
  }
  r.kind = GmAccessKind::kOverrun;
  // Mapped: a block the access runs into follows directly, and its tensor starts its block.
  ++it;
  if (it != allocations_.end() && address + bytes > it->first) r.other = &it->second;
  return r;
}

const GmAllocation* GlobalMemory::Nearest(uint64_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  return &it->second;
}

}  // namespace aicore::sim
