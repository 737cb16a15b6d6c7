// The GM allocator as DESIGN.md's device-memory model has it: every allocation at the start of its
// own allocator block, limits on requested bytes, access classification (inside a tensor,
// overrun into mapped memory or into the next tensor, out of mapped memory), host copies, reuse
// of freed blocks, and host memory committed only where bytes are touched.
#include "sim/mem/global_memory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

namespace aicore::sim {
namespace {

constexpr uint64_t kBlock = 2ull << 20;  // the preset's gm.alloc_block_bytes

TEST(GlobalMemory, EachAllocationStartsItsOwnBlock) {
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t a = *gm.Malloc(100);
  uint64_t b = *gm.Malloc(3 << 20);  // takes two blocks
  uint64_t c = *gm.Malloc(1);
  EXPECT_NE(a, 0u);
  EXPECT_EQ(a % kBlock, 0u);
  EXPECT_EQ(b, a + kBlock);
  EXPECT_EQ(c, b + 2 * kBlock);
  EXPECT_EQ(gm.bytes_allocated(), 100u + (3u << 20) + 1u);  // requested, not block bytes
}

TEST(GlobalMemory, AccessClassification) {
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t a = *gm.Malloc(100);
  uint64_t b = *gm.Malloc(100);
  EXPECT_EQ(gm.Check(a, 100).kind, GmAccessKind::kInside);
  EXPECT_EQ(gm.Check(a + 99, 1).kind, GmAccessKind::kInside);
  GmAccess tail = gm.Check(a + 96, 8);
  EXPECT_EQ(tail.kind, GmAccessKind::kOverrun);
  EXPECT_EQ(tail.allocation->base, a);
  EXPECT_EQ(tail.other, nullptr);
  EXPECT_EQ(gm.Check(a, kBlock).kind, GmAccessKind::kOverrun);
  EXPECT_EQ(gm.Check(a + 100, 4).kind, GmAccessKind::kOverrun);  // all past the tensor
  // Running off a's block lands in b's, which follows it directly: b's bytes, named.
  GmAccess into = gm.Check(a, kBlock + 4);
  EXPECT_EQ(into.kind, GmAccessKind::kOverrun);
  ASSERT_NE(into.other, nullptr);
  EXPECT_EQ(into.other->base, b);
  // Past b's block nothing is mapped.
  EXPECT_EQ(gm.Check(b, kBlock).kind, GmAccessKind::kOverrun);
  EXPECT_EQ(gm.Check(b, kBlock + 1).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(a - 1, 2).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(0, 4).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(a, std::numeric_limits<uint64_t>::max()).kind, GmAccessKind::kOutOfBounds);
  GmAccess inside = gm.Check(a + 4, 4);
  ASSERT_NE(inside.host, nullptr);
  EXPECT_EQ(inside.allocation->base, a);
  EXPECT_EQ(gm.Check(b, 4).host, inside.host - 4 + kBlock);  // neighbours contiguous on the host
}

TEST(GlobalMemory, AFreedNeighbourIsAGap) {
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t a = *gm.Malloc(100);
  uint64_t b = *gm.Malloc(100);
  ASSERT_TRUE(gm.Free(b).ok());
  EXPECT_EQ(gm.Check(a, kBlock).kind, GmAccessKind::kOverrun);
  EXPECT_EQ(gm.Check(a, kBlock + 4).kind, GmAccessKind::kOutOfBounds);
  EXPECT_EQ(gm.Check(b, 4).kind, GmAccessKind::kOutOfBounds);  // a stale pointer
}

TEST(GlobalMemory, HostReadWriteAndFree) {
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t a = *gm.Malloc(16);
  uint32_t v = 0xdeadbeef, back = 0;
  ASSERT_TRUE(gm.Write(a + 4, &v, 4).ok());
  ASSERT_TRUE(gm.Read(a + 4, &back, 4).ok());
  EXPECT_EQ(back, v);
  // A host copy stays inside the allocation (16 bytes), not its block (CANN's aclrtMemcpy).
  EXPECT_EQ(gm.Write(a + 14, &v, 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(gm.Read(a + 2000, &back, 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(gm.Write(a + kBlock - 2, &v, 4).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(gm.Free(a + 1).code(), StatusCode::kNotFound);
  EXPECT_TRUE(gm.Free(a).ok());
  EXPECT_EQ(gm.Free(a).code(), StatusCode::kNotFound);
  EXPECT_EQ(gm.Read(a, &back, 4).code(), StatusCode::kInvalidArgument);  // freed: unmapped
  EXPECT_EQ(gm.bytes_allocated(), 0u);
}

TEST(GlobalMemory, RequestedBytesAndBlocksAreBothLimited) {
  // Requested bytes: 1000 of capacity.
  GlobalMemory small(1000, 512, 512);
  EXPECT_TRUE(small.Malloc(600).ok());
  StatusOr<uint64_t> over = small.Malloc(600);
  EXPECT_EQ(over.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(over.status().message().find("600 of 1000 in use"), std::string::npos);
  EXPECT_EQ(small.Malloc(std::numeric_limits<uint64_t>::max()).status().code(),
            StatusCode::kResourceExhausted);
  // Blocks: two tiny tensors fill a two-block device although they request 2 bytes.
  GlobalMemory two(2 * kBlock, 512, kBlock);
  EXPECT_TRUE(two.Malloc(1).ok());
  EXPECT_TRUE(two.Malloc(1).ok());
  StatusOr<uint64_t> full = two.Malloc(1);
  EXPECT_EQ(full.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(full.status().message().find("gm.alloc_block_bytes"), std::string::npos)
      << full.status().message();
}

TEST(GlobalMemory, FreedBlocksAreReusedOnceTheSpaceIsUsedUpAndStartZeroed) {
  GlobalMemory gm(3 * kBlock, 512, kBlock);
  uint64_t a = *gm.Malloc(64);
  uint64_t b = *gm.Malloc(64);
  uint64_t c = *gm.Malloc(64);
  uint32_t v = 7;
  ASSERT_TRUE(gm.Write(b + 60, &v, 4).ok());
  ASSERT_TRUE(gm.Free(b).ok());
  uint64_t d = *gm.Malloc(64);
  EXPECT_EQ(d, b);
  EXPECT_GT(c, a);
  uint32_t back = 1;
  ASSERT_TRUE(gm.Read(d + 60, &back, 4).ok());
  EXPECT_EQ(back, 0u);
  EXPECT_EQ(gm.Unwritten(d, d + 64), std::make_pair(d, d + 64));
}

TEST(GlobalMemory, AHostWritePastItsAllocationIsRefusedAndTheNeighbourKeepsItsBytes) {
  // Issue 21's case: 2 MiB + 16 B into a 4 KiB buffer whose neighbour starts one block on.
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t small = *gm.Malloc(4096);
  uint64_t next = *gm.Malloc(64);
  std::vector<uint8_t> mark(64, 0x5a);
  ASSERT_TRUE(gm.Write(next, mark.data(), mark.size()).ok());
  std::vector<uint8_t> big(kBlock + 16, 0xff);
  Status refused = gm.Write(small, big.data(), big.size());
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("past the allocation it starts in"), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("copy at most 4096 bytes"), std::string::npos)
      << refused.message();
  std::vector<uint8_t> back(64, 0);
  ASSERT_TRUE(gm.Read(next, back.data(), back.size()).ok());
  EXPECT_EQ(back, mark);
  EXPECT_TRUE(gm.Write(small, big.data(), 4096).ok());
}

TEST(GlobalMemory, UnwrittenCountsOnlyTensorBytes) {
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t a = *gm.Malloc(64);
  std::vector<uint8_t> bytes(64, 1);
  ASSERT_TRUE(gm.Write(a, bytes.data(), 64).ok());
  // The block behind the tensor is no one's: reading it is an overrun, not an initcheck finding.
  EXPECT_EQ(gm.Unwritten(a, a + 4096), std::make_pair(uint64_t{0}, uint64_t{0}));
  uint64_t b = *gm.Malloc(64);
  EXPECT_EQ(gm.Unwritten(a, b + 32), std::make_pair(b, b + 32));
}

#ifdef __linux__
// Resident set size of this process in bytes, from /proc/self/statm.
uint64_t ResidentBytes() {
  uint64_t pages = 0, resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  int n = std::fscanf(f, "%" SCNu64 " %" SCNu64, &pages, &resident);
  std::fclose(f);
  return n == 2 ? resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) : 0;
}

TEST(GlobalMemory, HostMemoryOnlyWhereTouched) {
  // 256 tensors of 1000 bytes occupy 512 MiB of blocks; written, they commit a page or two each.
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t before = ResidentBytes();
  std::vector<uint8_t> bytes(1000, 3);
  uint64_t first = 0;
  for (int i = 0; i < 256; ++i) {
    uint64_t a = *gm.Malloc(1000);
    if (i == 0) first = a;
    ASSERT_TRUE(gm.Write(a, bytes.data(), bytes.size()).ok());
  }
  uint64_t grown = ResidentBytes() - before;
  EXPECT_LT(grown, 16ull << 20) << grown << " bytes resident for 256 KB of tensors";
  // The host mapping grew (64 MiB at first) and kept what was written.
  std::vector<uint8_t> back(1000, 0);
  ASSERT_TRUE(gm.Read(first, back.data(), back.size()).ok());
  EXPECT_EQ(back, bytes);
}

TEST(GlobalMemory, ALargeHostCopyCommitsItsOwnPagesOnly) {
  // A copy of 1 MiB or more has its pages faulted in by one call before it writes them: the
  // bytes arrive, the rest of the block stays zero and uncommitted, and a freed block's pages go.
  GlobalMemory gm(1ull << 30, 512, kBlock);
  uint64_t a = *gm.Malloc(3 * kBlock);
  std::vector<uint8_t> bytes((3 << 20) + 100);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 1);
  std::vector<uint8_t> back(bytes.size(), 1), edges(4000, 1);  // resident before measuring
  uint64_t before = ResidentBytes();
  ASSERT_TRUE(gm.Write(a + 4000, bytes.data(), bytes.size()).ok());
  uint64_t grown = ResidentBytes() - before;
  EXPECT_LT(grown, bytes.size() + (1ull << 20)) << grown << " bytes resident for a 3 MiB copy";
  ASSERT_TRUE(gm.Read(a + 4000, back.data(), back.size()).ok());
  EXPECT_EQ(back, bytes);
  ASSERT_TRUE(gm.Read(a, edges.data(), edges.size()).ok());
  EXPECT_EQ(edges, std::vector<uint8_t>(4000, 0));
  edges.assign(4000, 1);
  ASSERT_TRUE(gm.Read(a + 4000 + bytes.size(), edges.data(), edges.size()).ok());
  EXPECT_EQ(edges, std::vector<uint8_t>(4000, 0));
  ASSERT_TRUE(gm.Free(a).ok());
  EXPECT_LT(ResidentBytes(), before + (1ull << 20));
}
#endif

}  // namespace
}  // namespace aicore::sim
