// Sets and waits of each intra-core flag in issue (program) order. A set issued while an earlier
// set of the same flag has no wait issued after it is two sets in a row, which the chip leaves
// undefined (FLAG_OVERFLOW). A set issued after the previous set's wait is fine even while that
// wait has not run yet: a TQue re-enqueue does exactly that (the set then waits for the clear,
// flag_set_waits_for_clear).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/isa/program.h"

namespace aicore::sim {

class FlagPairing {
 public:
  explicit FlagPairing(uint32_t flags) : balance_(flags, 0), last_set_(flags, nullptr) {}

  // Notes a set; returns the earlier set it follows with no wait issued between, or nullptr.
  const Instr* OnSet(uint32_t flag, const Instr* set) {
    const Instr* unmatched = balance_[flag] > 0 ? last_set_[flag] : nullptr;
    ++balance_[flag];
    last_set_[flag] = set;
    return unmatched;
  }
  // A wait may be issued before its set (on another pipe it waits for the set), hence signed.
  void OnWait(uint32_t flag) { --balance_[flag]; }

 private:
  std::vector<int32_t> balance_;  // sets issued minus waits issued, per flag
  std::vector<const Instr*> last_set_;
};

}  // namespace aicore::sim
