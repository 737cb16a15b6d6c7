// Bank-conflict beats of vector repeats (see ub_banks.h). O(blocks) per repeat, cheaper than
// the arithmetic of the repeat itself.
#include "sim/mem/ub_banks.h"

#include <algorithm>

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

uint64_t UbBankModel::Beats(const uint64_t* srcs, int num_srcs, uint64_t dst, uint64_t bytes) {
  const uint64_t block = banks_.block_bytes;
  const uint64_t groups = banks_.groups;
  if (bytes == 0 || block == 0 || groups == 0 || repeat_bytes_ == 0) return 0;
  uint64_t repeats = (bytes + repeat_bytes_ - 1) / repeat_bytes_;
  uint64_t total = 0;
  auto bank_of = [&](uint64_t addr) {
    uint64_t b = banks_.bank_bytes == 0 ? 0 : addr / banks_.bank_bytes;
    return std::min<uint64_t>(b, banks_per_group_ - 1);
  };
  for (uint64_t r = 0; r < repeats; ++r) {
    uint64_t offset = r * repeat_bytes_;
    uint64_t blocks = (std::min<uint64_t>(repeat_bytes_, bytes - offset) + block - 1) / block;
    std::fill(reads_.begin(), reads_.end(), 0);
    std::fill(writes_.begin(), writes_.end(), 0);
    std::fill(bank_reads_.begin(), bank_reads_.end(), 0);
    std::fill(bank_writes_.begin(), bank_writes_.end(), 0);
    uint32_t worst = 1;
    for (int s = 0; s < num_srcs; ++s) {
      for (uint64_t k = 0; k < blocks; ++k) {
        uint64_t a = srcs[s] + offset + k * block;
        uint64_t g = (a / block) % groups;
        worst = std::max(worst, ++reads_[g]);
        ++bank_reads_[g * banks_per_group_ + bank_of(a)];
      }
    }
    for (uint64_t k = 0; k < blocks; ++k) {
      uint64_t a = dst + offset + k * block;
      uint64_t g = (a / block) % groups;
      worst = std::max(worst, ++writes_[g]);
      uint64_t b = g * banks_per_group_ + bank_of(a);
      ++bank_writes_[b];
      // A write meeting reads in its own bank: they share the bank's single port.
      if (bank_reads_[b] > 0) worst = std::max(worst, bank_reads_[b] + bank_writes_[b]);
    }
    total += worst;
  }
  return total;
}

}  // namespace aicore::sim
