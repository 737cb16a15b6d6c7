// UB bank-group conflicts of vector instructions (hardware-910b.md 2.1): per cycle the vector
// unit reads or writes one 32-byte block per bank group; within one repeat, reads that share a
// group, writes that share a group, or a read and a write in the same bank queue behind each
// other. A repeat therefore takes as many beats as its worst N-way conflict, which is also how
// msprof counts conflicts.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/config.h"

namespace aicore::sim {

class UbBankModel {
 public:
  UbBankModel(const UbBankConfig& banks, uint64_t ub_bytes, uint32_t repeat_bytes);

  // Total beats of a contiguous vector instruction of `bytes` per operand: the sum over its
  // repeats of each repeat's worst conflict (1 = conflict-free). `srcs` holds `num_srcs` UB
  // offsets.
  uint64_t Beats(const uint64_t* srcs, int num_srcs, uint64_t dst, uint64_t bytes);

 private:
  // What decides one repeat's beats: its block count, its source count and, per operand
  // (sources, then dst), the bank group of its first block, that block's bank and how many
  // blocks stay in that bank. Repeats of the same shape recur (a contiguous operand's group
  // pattern repeats every groups * block_bytes), so their beats are remembered, not recounted.
  static constexpr int kMaxOperands = 3;  // two sources and dst
  struct RepeatKey {
    std::array<uint8_t, 2 + 3 * kMaxOperands> fields{};
    bool operator==(const RepeatKey&) const = default;
  };
  // False when a field exceeds a byte (then the repeat is counted, not remembered).
  bool KeyOf(const uint64_t* addrs, int num_srcs, uint64_t blocks, RepeatKey* key) const;
  // The worst conflict of one repeat of `blocks` blocks at these addresses (sources, then dst).
  uint32_t CountRepeat(const uint64_t* addrs, int num_srcs, uint64_t blocks);

  struct MemoEntry {
    RepeatKey key;
    uint32_t beats = 0;  // 0: empty
  };
  std::vector<MemoEntry> memo_;  // direct-mapped by a hash of the key

  UbBankConfig banks_;
  uint32_t repeat_bytes_;
  uint32_t banks_per_group_;
  std::vector<uint32_t> reads_, writes_;            // per group
  std::vector<uint32_t> bank_reads_, bank_writes_;  // per (group, bank)
};

}  // namespace aicore::sim
