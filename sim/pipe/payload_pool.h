// Per-family operands of issued instructions too large to travel in every queue entry (a
// rearrangement's MoveArgs, about 430 bytes): the issue stage writes them once into a slot of
// the core's pool, the pipe reads them when the instruction starts and frees the slot. The
// slot's index rides in the IssuedInstr. A launch that stops leaves slots taken; the pool goes
// with its core.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/invariant.h"

namespace aicore::sim {

template <typename T>
class PayloadPool {
 public:
  // A fresh slot for the instruction being issued; its index goes to `*slot`.
  T& Acquire(uint32_t* slot) {
    if (free_.empty()) {
      *slot = static_cast<uint32_t>(items_.size());
      items_.emplace_back();
    } else {
      *slot = free_.back();
      free_.pop_back();
      items_[*slot] = T{};
    }
    return items_[*slot];
  }
  const T& Get(uint32_t slot) const {
    SIM_CHECK(slot < items_.size(), "an issued instruction names a payload slot it never took");
    return items_[slot];
  }
  void Release(uint32_t slot) { free_.push_back(slot); }

 private:
  std::vector<T> items_;
  std::vector<uint32_t> free_;
};

}  // namespace aicore::sim
