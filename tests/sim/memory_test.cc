// Local memory bounds (overflow-safe) and the timing units of sim/mem: bandwidth channels, L2
// tags, the GM path through L2/HBM and UB bank-conflict beats. The GM allocator has its own file
// (global_memory_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "sim/mem/gm_path.h"
#include "sim/mem/hbm.h"
#include "sim/mem/l2_cache.h"
#include "sim/mem/local_memory.h"
#include "sim/mem/ub_banks.h"

namespace aicore::sim {
namespace {

TEST(LocalMemory, BoundsAreOverflowSafe) {
  LocalMemory ub("UB", 196608, 32);
  EXPECT_TRUE(ub.InBounds(0, 196608));
  EXPECT_TRUE(ub.InBounds(196608, 0));
  EXPECT_FALSE(ub.InBounds(196608 - 32, 64));
  EXPECT_FALSE(ub.InBounds(32, std::numeric_limits<uint64_t>::max()));
  EXPECT_FALSE(ub.InBounds(std::numeric_limits<uint64_t>::max(), 2));
  EXPECT_EQ(ub.capacity(), 196608u);
}

TEST(BandwidthChannel, GrantsAreFirstComeFirstServed) {
  BandwidthChannel hbm(10.0);
  EXPECT_DOUBLE_EQ(hbm.Grant(0, 100), 10.0);
  EXPECT_DOUBLE_EQ(hbm.Grant(0, 100), 20.0);   // queued behind the first
  EXPECT_DOUBLE_EQ(hbm.Grant(50, 100), 60.0);  // idle gap: starts at its own time
}

TEST(BandwidthChannel, EveryTransferAddsItsOverhead) {
  // occupancy = bytes / rate + per_transfer: two 100-byte transfers at 10 B/cycle with 2.5
  // cycles each end at 12.5 and 25.
  BandwidthChannel ch(10.0, 2.5);
  EXPECT_DOUBLE_EQ(ch.Grant(0, 100), 12.5);
  EXPECT_DOUBLE_EQ(ch.Grant(0, 100), 25.0);
}

// The first three line indices from `from` on that share `set`.
std::vector<uint64_t> LinesOfSet(const L2Cache& l2, uint64_t set, uint64_t from = 0) {
  std::vector<uint64_t> lines;
  for (uint64_t line = from; lines.size() < 3; ++line) {
    if (l2.SetOf(line) == set) lines.push_back(line);
  }
  return lines;
}

TEST(L2Cache, HitsAfterFillAndLruEviction) {
  // 2 sets x 2 ways of 512 B lines; p, q and r are three lines of one set.
  L2Cache l2(2 * 2 * 512, 512, 2);
  std::vector<uint64_t> same = LinesOfSet(l2, 0);
  uint64_t p = same[0] * 512, q = same[1] * 512, r = same[2] * 512;
  L2Cache::Access a;
  l2.Touch(p, 512, false, &a);
  EXPECT_EQ(a.misses, 1u);
  EXPECT_EQ(a.hits, 0u);
  a = {};
  l2.Touch(p, 512, true, &a);  // p again: hit, now dirty and most recent
  EXPECT_EQ(a.hits, 1u);
  a = {};
  l2.Touch(q, 512, false, &a);  // the set has a free way
  EXPECT_EQ(a.misses, 1u);
  EXPECT_EQ(a.dirty_evictions, 0u);
  a = {};
  l2.Touch(r, 512, false, &a);  // evicts the LRU of {p (t=2), q (t=3)}: dirty p
  EXPECT_EQ(a.misses, 1u);
  EXPECT_EQ(a.dirty_evictions, 1u);
  a = {};
  l2.Touch(q, 512, false, &a);  // q survived
  EXPECT_EQ(a.hits, 1u);
  a = {};
  l2.Touch(p + 32, 64, false, &a);  // a partial line is a whole line: p was evicted
  EXPECT_EQ(a.misses, 1u);
}

TEST(L2Cache, ANewCacheIsColdAlthoughItReusesTheLastOnesTags) {
  // The tag arrays pass from one L2 to the next on a thread; the next must still start cold,
  // its LRU order and dirty bits included, over a footprint wider than one run of sets.
  const uint64_t line = 512, ways = 4, sets = 512, bytes = 3 * L2Cache::kRunLines * line;
  L2Cache::Access first;
  {
    L2Cache warm(sets * ways * line, line, ways);
    warm.Touch(0, bytes, true, &first);  // every line installed and dirty
    L2Cache::Access again;
    warm.Touch(0, bytes, false, &again);
    EXPECT_EQ(again.hits, bytes / line);
  }
  L2Cache cold(sets * ways * line, line, ways);
  L2Cache::Access a;
  cold.Touch(0, bytes, false, &a);
  EXPECT_EQ(a.misses, first.misses);
  EXPECT_EQ(a.hits, first.hits);
  EXPECT_EQ(a.dirty_evictions, 0u);
  // Two caches alive at once on one thread do not share their tags.
  L2Cache other(sets * ways * line, line, ways);
  L2Cache::Access b;
  other.Touch(0, bytes, false, &b);
  EXPECT_EQ(b.misses, bytes / line);
}

TEST(L2Cache, AStridedTouchIsOneTouchPerPiece) {
  // Same hits, misses and write-backs, and the same state after (a second pass agrees too), for
  // pitches across runs of sets and set counts below a run's 64 lines.
  std::mt19937_64 rng(3);
  for (uint64_t sets : {3u, 64u, 1000u}) {
    const uint64_t ways = 4, line = 512;
    L2Cache strided(sets * ways * line, line, ways), single(sets * ways * line, line, ways);
    for (int step = 0; step < 200; ++step) {
      uint64_t addr = rng() % (1u << 22), chunk = 1 + rng() % 2048;
      uint64_t pitch = chunk + rng() % 40000, chunks = rng() % 40;
      bool write = rng() % 2 == 0;
      L2Cache::Access a, b;
      strided.TouchStrided(addr, chunk, pitch, chunks, write, &a);
      for (uint64_t c = 0; c < chunks; ++c) single.Touch(addr + c * pitch, chunk, write, &b);
      ASSERT_EQ(a.hits, b.hits) << sets << " sets, step " << step;
      ASSERT_EQ(a.misses, b.misses) << sets << " sets, step " << step;
      ASSERT_EQ(a.dirty_evictions, b.dirty_evictions) << sets << " sets, step " << step;
    }
  }
}

TEST(L2Cache, SetsAreHashedSoStridesSpreadAndNearlyFullFootprintsLoseLines) {
  // 1024 sets x 16 ways x 512 B = 8 MiB.
  const uint64_t sets = 1024, ways = 16, line = 512;
  L2Cache l2(sets * ways * line, line, ways);
  // A 16 KiB row pitch (32 lines) would use 1 set in 32 under `line % sets`; hashed, 1024 rows
  // of it reach about two thirds of the sets, as 1024 random draws would.
  std::vector<bool> used(sets, false);
  for (uint64_t row = 0; row < sets; ++row) used[l2.SetOf(row * 32)] = true;
  EXPECT_GT(std::count(used.begin(), used.end(), true), 500);
  // A second pass over a contiguous footprint: half of capacity stays whole; at 95% the sets
  // that drew more than 16 of its lines have lost some (all would stay under `line % sets`).
  auto second_pass_misses = [&](double fraction) {
    L2Cache cache(sets * ways * line, line, ways);
    auto lines = static_cast<uint64_t>(fraction * static_cast<double>(sets * ways));
    L2Cache::Access first, second;
    cache.Touch(0, lines * line, false, &first);
    cache.Touch(0, lines * line, false, &second);
    return static_cast<double>(second.misses) / static_cast<double>(lines);
  };
  EXPECT_LT(second_pass_misses(0.5), 0.005);
  EXPECT_GT(second_pass_misses(0.95), 0.05);
}

SocConfig PathConfig() {
  SocConfig c;
  c.hbm_read_bytes_per_cycle = 100;
  c.hbm_write_bytes_per_cycle = 50;
  c.hbm_transfer_overhead_cycles = 0;
  c.gm_request_bytes = 512;
  c.gm_misaligned_efficiency = 0.5;
  c.gm_latency_cycles = 400;
  c.l2_bytes = 1 << 20;
  c.l2 = L2Config{512, 4, 1000, 200, true};
  return c;
}

TEST(GmPath, ReadMissThenHit) {
  SocConfig c = PathConfig();
  GmPath path(c);
  GmTransfer t{4096, 8192, 8192, 1, false, CacheMode::kNormal};
  GmTiming miss = path.Grant(t, 0);
  // Cold: 16 lines from HBM at 100 B/cycle (82 cycles) after L2's 8.2; HBM latency.
  EXPECT_DOUBLE_EQ(miss.done, 81.92);
  EXPECT_EQ(miss.latency, 400u);
  EXPECT_EQ(miss.hbm_read_bytes, 8192u);
  EXPECT_EQ(miss.l2_hit_bytes, 0u);
  GmTiming hit = path.Grant(t, 1000);
  EXPECT_DOUBLE_EQ(hit.done, 1000 + 8.192);  // L2 bandwidth only
  EXPECT_EQ(hit.latency, 200u);
  EXPECT_EQ(hit.hbm_read_bytes, 0u);
  EXPECT_EQ(hit.l2_hit_bytes, 8192u);
}

TEST(GmPath, NormalWriteAllocatesBypassWriteDoesNot) {
  SocConfig c = PathConfig();
  GmPath path(c);
  GmTransfer w{0, 8192, 8192, 1, true, CacheMode::kNormal};
  GmTiming normal = path.Grant(w, 0);
  EXPECT_EQ(normal.hbm_read_bytes, 8192u);  // write-allocate fills every missing line
  EXPECT_EQ(normal.hbm_write_bytes, 0u);    // the data stays dirty in L2
  EXPECT_DOUBLE_EQ(normal.done, 8.192);     // the write only waits for L2
  c.l2.write_allocate = false;
  GmPath no_alloc(c);
  EXPECT_EQ(no_alloc.Grant(w, 0).hbm_read_bytes, 0u);
  GmPath bypass_path(PathConfig());
  GmTransfer b = w;
  b.mode = CacheMode::kDisable;
  GmTiming bypass = bypass_path.Grant(b, 0);
  EXPECT_EQ(bypass.hbm_read_bytes, 0u);
  EXPECT_EQ(bypass.hbm_write_bytes, 8192u);
  EXPECT_DOUBLE_EQ(bypass.done, 8192.0 / 50);  // the HBM write channel
}

TEST(GmPath, ReadAndWriteChannelsOverlap) {
  // A bypass read and a bypass write granted at the same cycle do not queue behind each other.
  GmPath path(PathConfig());
  GmTiming r = path.Grant({0, 10000, 10000, 1, false, CacheMode::kDisable}, 0);
  GmTiming w = path.Grant({1 << 20, 5000, 5000, 1, true, CacheMode::kDisable}, 0);
  EXPECT_DOUBLE_EQ(r.done, 100);
  EXPECT_DOUBLE_EQ(w.done, 100);
  GmTiming r2 = path.Grant({0, 10000, 10000, 1, false, CacheMode::kDisable}, 0);
  EXPECT_DOUBLE_EQ(r2.done, 200);  // a second read does queue
}

TEST(GmPath, MisalignedTransfersMoveAtTheConfiguredEfficiency) {
  GmPath path(PathConfig());
  EXPECT_DOUBLE_EQ(path.Efficiency(1024, 0, 1), 1.0);
  EXPECT_DOUBLE_EQ(path.Efficiency(1024 + 32, 0, 1), 0.5);
  EXPECT_DOUBLE_EQ(path.Efficiency(1024, 1024 + 32, 2), 0.5);  // rows off the 512 B grid
  GmTiming t = path.Grant({32, 1000, 1000, 1, false, CacheMode::kDisable}, 0);
  EXPECT_DOUBLE_EQ(t.done, 1000 / 0.5 / 100);
}

TEST(UbBanks, TutorialLayoutConflictsShiftedLayoutDoesNot) {
  UbBankModel banks(UbBankConfig{32, 16, 65536}, 196608, 256);
  // x and y 8 KB apart: every repeat reads each of 8 groups twice -> 2 beats per repeat. The
  // destination is in another bank (64 KB third), so it adds nothing.
  uint64_t tutorial[2] = {0, 8192};
  EXPECT_EQ(banks.Beats(tutorial, 2, 65536, 4096), 2u * 16);
  // y shifted by 256 B: x uses groups 0-7 and y 8-15 in every repeat -> 1 beat.
  uint64_t shifted[2] = {0, 8192 + 256};
  EXPECT_EQ(banks.Beats(shifted, 2, 65536, 4096), 16u);
  // Shifted by one block only: 7 of 8 groups still collide.
  uint64_t by32[2] = {0, 8192 + 32};
  EXPECT_EQ(banks.Beats(by32, 2, 65536, 4096), 2u * 16);
  // In place (dst = src0): a read and a write in the same bank -> 2 beats.
  uint64_t one[1] = {1024};
  EXPECT_EQ(banks.Beats(one, 1, 1024, 256), 2u);
  // Same groups but different banks for the read and the write: no conflict.
  EXPECT_EQ(banks.Beats(one, 1, 65536 + 1024, 256), 1u);
  // All three in one bank and group window: 2 reads + 1 write in one bank -> 3 beats.
  EXPECT_EQ(banks.Beats(tutorial, 2, 16384, 256), 3u);
  // A partial last repeat counts only its blocks: 64 B = 2 blocks, still one beat.
  EXPECT_EQ(banks.Beats(shifted, 2, 65536, 256 + 64), 2u);
}

// The counting of hardware-910b.md 2.1, repeat by repeat, written out plainly: what the model's
// remembered repeats must always reproduce.
uint64_t CountedBeats(const UbBankConfig& c, uint64_t ub_bytes, uint64_t repeat_bytes,
                      const std::vector<uint64_t>& srcs, uint64_t dst, uint64_t bytes) {
  const uint64_t banks = (ub_bytes + c.bank_bytes - 1) / c.bank_bytes;
  auto bank_of = [&](uint64_t a) { return std::min<uint64_t>(a / c.bank_bytes, banks - 1); };
  uint64_t total = 0;
  for (uint64_t offset = 0; offset < bytes; offset += repeat_bytes) {
    uint64_t blocks = (std::min(repeat_bytes, bytes - offset) + c.block_bytes - 1) / c.block_bytes;
    std::vector<uint32_t> reads(c.groups), writes(c.groups), bank_reads(c.groups * banks),
        bank_writes(c.groups * banks);
    uint32_t worst = 1;
    for (uint64_t s : srcs) {
      for (uint64_t k = 0; k < blocks; ++k) {
        uint64_t a = s + offset + k * c.block_bytes, g = a / c.block_bytes % c.groups;
        worst = std::max(worst, ++reads[g]);
        ++bank_reads[g * banks + bank_of(a)];
      }
    }
    for (uint64_t k = 0; k < blocks; ++k) {
      uint64_t a = dst + offset + k * c.block_bytes, g = a / c.block_bytes % c.groups;
      worst = std::max(worst, ++writes[g]);
      uint64_t b = g * banks + bank_of(a);
      ++bank_writes[b];
      if (bank_reads[b] > 0) worst = std::max(worst, bank_reads[b] + bank_writes[b]);
    }
    total += worst;
  }
  return total;
}

TEST(UbBanks, RememberedRepeatsCountWhatCountingEachRepeatDoes) {
  const UbBankConfig config{32, 16, 65536};
  const uint64_t ub = 196608;
  UbBankModel banks(config, ub, 256);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 3000; ++i) {
    // Operands near the 64 KB bank boundaries half of the time, unaligned now and then.
    auto addr = [&] {
      uint64_t a = rng() % 2 ? 65536 * (1 + rng() % 2) - rng() % 2048 : rng() % (ub - 8192);
      return rng() % 8 == 0 ? a + rng() % 32 : a / 32 * 32;
    };
    std::vector<uint64_t> srcs(rng() % 3);
    for (uint64_t& s : srcs) s = addr();
    uint64_t dst = addr(), bytes = 32 + rng() % 4096;
    ASSERT_EQ(banks.Beats(srcs.data(), static_cast<int>(srcs.size()), dst, bytes),
              CountedBeats(config, ub, 256, srcs, dst, bytes))
        << "case " << i;
  }
}

}  // namespace
}  // namespace aicore::sim
