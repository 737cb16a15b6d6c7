// Allocation bookkeeping and access classification for GM (see global_memory.h).
#include "sim/mem/global_memory.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace aicore::sim {
namespace {

// Device virtual addresses start here so that 0 (a null GlobalAddress) never maps, and
// consecutive allocations are separated by an unmapped guard so that running off the end of
// one never lands silently in the next. Addresses are never reused, so a stale pointer to a
// freed buffer is reported instead of reading someone else's data.
constexpr uint64_t kBaseAddress = 1ull << 32;
constexpr uint64_t kGuardBytes = 1ull << 20;

uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

GlobalMemory::GlobalMemory(uint64_t capacity_bytes, uint64_t alignment_bytes, uint64_t slack_bytes)
    : capacity_(capacity_bytes),
      alignment_(alignment_bytes == 0 ? 1 : alignment_bytes),
      slack_(slack_bytes),
      next_address_(kBaseAddress) {}

StatusOr<uint64_t> GlobalMemory::Malloc(uint64_t bytes) {
  if (bytes > capacity_ || bytes_allocated_ > capacity_ - bytes) {
    return ResourceExhausted("device memory exhausted: " + std::to_string(bytes) +
                             " bytes requested, " + std::to_string(bytes_allocated_) + " of " +
                             std::to_string(capacity_) + " in use");
  }
  uint64_t base = AlignUp(next_address_, alignment_);
  GmAllocation a;
  a.base = base;
  a.size = bytes;
  a.slack = slack_;
  a.data.assign(bytes + slack_, 0);
  next_address_ = base + bytes + slack_ + kGuardBytes;
  bytes_allocated_ += bytes;
  allocations_.emplace(base, std::move(a));
  return base;
}

Status GlobalMemory::Free(uint64_t address) {
  auto it = allocations_.find(address);
  if (it == allocations_.end()) {
    return NotFound("Free(" + Hex(address) + "): not the start of a live device allocation");
  }
  bytes_allocated_ -= it->second.size;
  // A later allocation at these addresses starts unwritten.
  written_.Visit(it->second.base, it->second.base + it->second.size + it->second.slack,
                 [](uint64_t, uint64_t, bool& w) { w = false; });
  allocations_.erase(it);
  return Status::Ok();
}

const GmAllocation* GlobalMemory::Containing(uint64_t address, uint64_t bytes) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  const GmAllocation& a = it->second;
  uint64_t limit = a.size + a.slack;
  uint64_t offset = address - a.base;
  if (offset > limit || bytes > limit - offset) return nullptr;
  return &a;
}

Status GlobalMemory::Write(uint64_t address, const void* src, uint64_t bytes) {
  if (bytes == 0) return Status::Ok();
  const GmAllocation* a = Containing(address, bytes);
  if (a == nullptr) {
    return InvalidArgument("Write of " + std::to_string(bytes) + " bytes at " + Hex(address) +
                           " is not inside one device allocation");
  }
  std::memcpy(const_cast<uint8_t*>(a->data.data()) + (address - a->base), src, bytes);
  MarkWritten(address, address + bytes);
  return Status::Ok();
}

void GlobalMemory::MarkWritten(uint64_t lo, uint64_t hi) {
  written_.Visit(lo, hi, [](uint64_t, uint64_t, bool& w) { w = true; });
}

std::pair<uint64_t, uint64_t> GlobalMemory::Unwritten(uint64_t lo, uint64_t hi) const {
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

Status GlobalMemory::Read(uint64_t address, void* dst, uint64_t bytes) const {
  if (bytes == 0) return Status::Ok();
  const GmAllocation* a = Containing(address, bytes);
  if (a == nullptr) {
    return InvalidArgument("Read of " + std::to_string(bytes) + " bytes at " + Hex(address) +
                           " is not inside one device allocation");
  }
  std::memcpy(dst, a->data.data() + (address - a->base), bytes);
  return Status::Ok();
}

GmAccess GlobalMemory::Check(uint64_t address, uint64_t bytes) {
  GmAccess r;
  auto* a = const_cast<GmAllocation*>(Containing(address, bytes));
  if (a == nullptr) return r;
  r.allocation = a;
  r.host = a->data.data() + (address - a->base);
  uint64_t end_offset = address - a->base + bytes;
  r.kind = end_offset <= a->size ? GmAccessKind::kInside : GmAccessKind::kSlack;
  return r;
}

const GmAllocation* GlobalMemory::Nearest(uint64_t address) const {
  auto it = allocations_.upper_bound(address);
  if (it == allocations_.begin()) return nullptr;
  --it;
  return &it->second;
}

}  // namespace aicore::sim
