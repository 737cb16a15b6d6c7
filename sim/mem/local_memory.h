// A core-local buffer (UB, L1, L0A, L0B, L0C, BT, FB): a flat byte array of the configured
// capacity, with the start alignment its instruction operands need. Instructions address it
// directly, not through tensor views, as the chip does (asc-api.md 4.1), so only the physical
// capacity bounds an access.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace aicore::sim {

class LocalMemory {
 public:
  LocalMemory(std::string name, uint64_t capacity_bytes, uint32_t alignment_bytes)
      : name_(std::move(name)), alignment_(alignment_bytes), bytes_(capacity_bytes, 0) {}

  const std::string& name() const { return name_; }
  uint32_t alignment() const { return alignment_; }
  uint64_t capacity() const { return bytes_.size(); }
  uint8_t* data() { return bytes_.data(); }
  const uint8_t* data() const { return bytes_.data(); }

  // True if [address, address + length) lies inside the buffer (overflow-safe).
  bool InBounds(uint64_t address, uint64_t length) const {
    return address <= bytes_.size() && length <= bytes_.size() - address;
  }

 private:
  std::string name_;
  uint32_t alignment_;
  std::vector<uint8_t> bytes_;
};

}  // namespace aicore::sim
