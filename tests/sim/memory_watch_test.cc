// check_local_memory_ia's watch registers: the block range (start, end] in 32-byte units, the
// access kinds each register traps, strided ranges, and clearing.
#include "sim/check/memory_watch.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace aicore::sim {
namespace {

constexpr uint64_t kScalarRead = 1ull << 32, kVectorWrite = 1ull << 35, kMteRead = 1ull << 36;
constexpr uint64_t kEnable = 1ull << 42;

uint64_t Word(uint64_t reg, uint64_t start, uint64_t end, uint64_t kinds, bool enable) {
  return start | end << 16 | kinds | reg << 40 | (enable ? kEnable : 0);
}

MemRange Ub(uint64_t lo, uint64_t hi, bool write) {
  MemRange r;
  r.space = MemSpace::kUb;
  r.lo = lo;
  r.hi = hi;
  r.write = write;
  return r;
}

TEST(MemoryWatch, WatchesTheBlocksAfterStartUpToEnd) {
  MemoryWatch watch;
  watch.Apply(Word(2, 31, 39, kVectorWrite, true));  // bytes [1024, 1280)
  ASSERT_TRUE(watch.armed());
  MemRange below = Ub(992, 1024, true), first = Ub(1024, 1056, true), last = Ub(1248, 1280, true),
           above = Ub(1280, 1312, true);
  EXPECT_TRUE(watch.Check(PipeId::kV, &below, 1).empty());
  EXPECT_NE(watch.Check(PipeId::kV, &first, 1).find("register 2"), std::string::npos);
  EXPECT_FALSE(watch.Check(PipeId::kV, &last, 1).empty());
  EXPECT_TRUE(watch.Check(PipeId::kV, &above, 1).empty());
}

TEST(MemoryWatch, TrapsOnlyTheChosenKinds) {
  MemoryWatch watch;
  watch.Apply(Word(0, 0, 8, kScalarRead | kMteRead, true));
  MemRange read = Ub(64, 96, false), write = Ub(64, 96, true);
  EXPECT_NE(watch.Check(PipeId::kS, &read, 1).find("scalar read"), std::string::npos);
  EXPECT_TRUE(watch.Check(PipeId::kS, &write, 1).empty());
  EXPECT_TRUE(watch.Check(PipeId::kV, &read, 1).empty());
  EXPECT_NE(watch.Check(PipeId::kMte3, &read, 1).find("MTE read"), std::string::npos);
}

TEST(MemoryWatch, StridedRangesTrapOnlyWhereAChunkLands) {
  MemoryWatch watch;
  watch.Apply(Word(0, 1, 2, kVectorWrite, true));  // bytes [64, 96)
  MemRange gaps = Ub(0, 256, true);
  gaps.chunk = 32;
  gaps.pitch = 128;  // chunks at 0 and 128: both miss [64, 96)
  EXPECT_TRUE(watch.Check(PipeId::kV, &gaps, 1).empty());
  gaps.lo = 64;  // a chunk at 64
  EXPECT_FALSE(watch.Check(PipeId::kV, &gaps, 1).empty());
}

TEST(MemoryWatch, ClearingARegisterDisarmsIt) {
  MemoryWatch watch;
  watch.Apply(Word(1, 0, 8, kVectorWrite, true));
  watch.Apply(Word(1, 0, 0, 0, false));
  EXPECT_FALSE(watch.armed());
  MemRange r = Ub(32, 64, true);
  EXPECT_TRUE(watch.Check(PipeId::kV, &r, 1).empty());
}

}  // namespace
}  // namespace aicore::sim
