// Bank-conflict beats of vector repeats (see ub_banks.h). O(blocks) per repeat, cheaper than
// the arithmetic of the repeat itself.
#include "sim/mem/ub_banks.h"

#include <algorithm>
#include <string>

#include "sim/core/invariant.h"

namespace aicore::sim {

UbBankModel::UbBankModel(const UbBankConfig& banks, uint64_t ub_bytes, uint32_t repeat_bytes)
    : banks_(banks), repeat_bytes_(repeat_bytes) {
  uint64_t n = banks.bank_bytes == 0 ? 1 : (ub_bytes + banks.bank_bytes - 1) / banks.bank_bytes;
  banks_per_group_ = static_cast<uint32_t>(std::max<uint64_t>(n, 1));
  reads_.assign(banks.groups, 0);
  writes_.assign(banks.groups, 0);
  bank_reads_.assign(static_cast<size_t>(banks.groups) * banks_per_group_, 0);
  bank_writes_.assign(bank_reads_.size(), 0);
}

bool UbBankModel::KeyOf(const uint64_t* addrs, int num_srcs, uint64_t blocks,
                        RepeatKey* key) const {
  const uint64_t block = banks_.block_bytes;
  if (blocks > 0xff || banks_.groups > 0xff || banks_per_group_ > 0xff) return false;
  // At most one bank boundary inside a repeat, so a bank and a count describe its blocks.
  if (banks_.bank_bytes != 0 && banks_.bank_bytes < blocks * block) return false;
  key->fields = {};
  key->fields[0] = static_cast<uint8_t>(blocks);
  key->fields[1] = static_cast<uint8_t>(num_srcs);
  for (int i = 0; i <= num_srcs; ++i) {
    const uint64_t a = addrs[i];
    uint64_t bank = 0;
    uint64_t in_bank = blocks;  // blocks before the bank changes
    if (banks_.bank_bytes != 0) {
      bank = std::min<uint64_t>(a / banks_.bank_bytes, banks_per_group_ - 1);
      if (bank < banks_per_group_ - 1) {
        const uint64_t next = (bank + 1) * banks_.bank_bytes;
        in_bank = std::min(blocks, (next - a + block - 1) / block);
      }
    }
    key->fields[2 + 3 * i] = static_cast<uint8_t>((a / block) % banks_.groups);
    key->fields[3 + 3 * i] = static_cast<uint8_t>(bank);
    key->fields[4 + 3 * i] = static_cast<uint8_t>(in_bank);
  }
  return true;
}

uint32_t UbBankModel::CountRepeat(const uint64_t* addrs, int num_srcs, uint64_t blocks) {
  const uint64_t block = banks_.block_bytes;
  const uint64_t groups = banks_.groups;
  auto bank_of = [&](uint64_t addr) {
    uint64_t b = banks_.bank_bytes == 0 ? 0 : addr / banks_.bank_bytes;
    return std::min<uint64_t>(b, banks_per_group_ - 1);
  };
  std::fill(reads_.begin(), reads_.end(), 0);
  std::fill(writes_.begin(), writes_.end(), 0);
  std::fill(bank_reads_.begin(), bank_reads_.end(), 0);
  std::fill(bank_writes_.begin(), bank_writes_.end(), 0);
  uint32_t worst = 1;
  for (int s = 0; s < num_srcs; ++s) {
    for (uint64_t k = 0; k < blocks; ++k) {
      uint64_t a = addrs[s] + k * block;
      uint64_t g = (a / block) % groups;
      worst = std::max(worst, ++reads_[g]);
      ++bank_reads_[g * banks_per_group_ + bank_of(a)];
    }
  }
  const uint64_t dst = addrs[num_srcs];
  for (uint64_t k = 0; k < blocks; ++k) {
    uint64_t a = dst + k * block;
    uint64_t g = (a / block) % groups;
    worst = std::max(worst, ++writes_[g]);
    uint64_t b = g * banks_per_group_ + bank_of(a);
    ++bank_writes_[b];
    // A write meeting reads in its own bank: they share the bank's single port.
    if (bank_reads_[b] > 0) worst = std::max(worst, bank_reads_[b] + bank_writes_[b]);
  }
  return worst;
}

uint64_t UbBankModel::Beats(const uint64_t* srcs, int num_srcs, uint64_t dst, uint64_t bytes) {
  const uint64_t block = banks_.block_bytes;
  if (bytes == 0 || block == 0 || banks_.groups == 0 || repeat_bytes_ == 0) return 0;
  const uint64_t repeats = (bytes + repeat_bytes_ - 1) / repeat_bytes_;
  SIM_CHECK(num_srcs >= 0 && num_srcs + 1 <= kMaxOperands,
            "a vector instruction with " + std::to_string(num_srcs) + " UB sources");
  if (memo_.empty()) memo_.resize(64);
  uint64_t total = 0;
  uint64_t addrs[kMaxOperands];
  for (uint64_t r = 0; r < repeats; ++r) {
    const uint64_t offset = r * repeat_bytes_;
    const uint64_t blocks = (std::min<uint64_t>(repeat_bytes_, bytes - offset) + block - 1) / block;
    for (int s = 0; s < num_srcs; ++s) addrs[s] = srcs[s] + offset;
    addrs[num_srcs] = dst + offset;
    RepeatKey key;
    if (!KeyOf(addrs, num_srcs, blocks, &key)) {
      total += CountRepeat(addrs, num_srcs, blocks);
      continue;
    }
    uint64_t hash = 0;
    for (uint8_t f : key.fields) hash = (hash ^ f) * 0x100000001b3ULL;  // FNV-1a's step
    MemoEntry& e = memo_[hash % memo_.size()];
    if (e.beats == 0 || !(e.key == key)) {
      e.key = key;
      e.beats = CountRepeat(addrs, num_srcs, blocks);
    }
    total += e.beats;
  }
  return total;
}

}  // namespace aicore::sim
