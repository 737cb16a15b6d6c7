// The state of every byte of one memory held as runs: [lo, hi) -> state, covering [0, size),
// neighbours of equal state merged. Marking or testing a contiguous range costs a map search and
// the runs it crosses, not a byte each: a timing-only launch marks whole L1 and L0 tiles per
// instruction (sim/mem/unknown_bytes.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace aicore::sim {

class StateRuns {
 public:
  // Every byte of [0, size) in `state`.
  void Reset(uint64_t size, uint8_t state);
  uint64_t size() const { return size_; }
  size_t runs() const { return runs_.size(); }

  // Every byte of [lo, hi) (clipped to the memory) becomes `state`.
  void Assign(uint64_t lo, uint64_t hi, uint8_t state);
  // Whether every byte of [lo, hi) is in `state` / some byte is (clipped; empty: All true).
  bool All(uint64_t lo, uint64_t hi, uint8_t state) const;
  bool Any(uint64_t lo, uint64_t hi, uint8_t state) const;

 private:
  struct Run {
    uint64_t hi;
    uint8_t state;
  };
  using Map = std::map<uint64_t, Run>;
  // The run holding byte `at` (< size_).
  Map::const_iterator Holding(uint64_t at) const;

  uint64_t size_ = 0;
  Map runs_;  // by first byte
};

}  // namespace aicore::sim
