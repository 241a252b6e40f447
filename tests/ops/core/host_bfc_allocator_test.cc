#include "ops/core/host_bfc_allocator.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "ops/core/allocator.h"

namespace tfg {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// A budget the tests set: what else is in use, and the limit.
int64_t g_fake_in_use = 0;
int64_t g_fake_limit = int64_t{1} << 40;
int64_t FakeInUse() { return g_fake_in_use; }
int64_t FakeLimit() { return g_fake_limit; }

HostBfcAllocator::Options TestOptions(size_t cache_bound = 64 * kMiB) {
  HostBfcAllocator::Options o;
  o.cache_bound = cache_bound;
  o.memory_in_use = &FakeInUse;
  o.memory_limit = &FakeLimit;
  return o;
}

// Whether the page at `p` is mapped at all (mincore fails with ENOMEM on
// an unmapped address): how a test sees memory given back to the system.
bool IsMapped(const void* p) {
  unsigned char resident = 0;
  void* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~uintptr_t{4095});
  return mincore(page, 4096, &resident) == 0 || errno != ENOMEM;
}

uintptr_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// 1 MiB in a new 2 MiB region leaves 1 MiB free behind it: the next
// request that fits takes exactly that rest, and no region is added.
TEST(HostBfcAllocatorTest, SplitsARegionAndTakesTheRestForTheNextRequest) {
  HostBfcAllocator a(TestOptions());
  void* p = a.Allocate(1 * kMiB);
  void* q = a.Allocate(512 << 10);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(Addr(q), Addr(p) + kMiB);
  HostBfcAllocator::Stats s = a.GetStats();
  EXPECT_EQ(s.num_regions, 1u);
  EXPECT_EQ(s.bytes_mapped, 2 * kMiB);
  EXPECT_EQ(s.bytes_in_use, kMiB + (512 << 10));
  EXPECT_EQ(s.num_chunks, 3u);  // p, q and the free 512 KiB after them
  EXPECT_EQ(a.ChunkSize(p), kMiB);
  a.Deallocate(p);
  a.Deallocate(q);
}

// Freed neighbours merge back into one chunk covering the region, which
// then serves a request as large as the region.
TEST(HostBfcAllocatorTest, CoalescesFreedNeighbours) {
  HostBfcAllocator a(TestOptions());
  void* p = a.Allocate(kMiB);
  void* q = a.Allocate(kMiB);
  EXPECT_EQ(a.GetStats().num_chunks, 2u);
  a.Deallocate(q);
  a.Deallocate(p);
  EXPECT_EQ(a.GetStats().num_chunks, 1u);
  void* whole = a.Allocate(2 * kMiB);
  EXPECT_EQ(whole, p);
  EXPECT_EQ(a.GetStats().regions_mapped, 1);
  a.Deallocate(whole);
}

// The smallest free chunk that fits is taken, not the first or largest.
TEST(HostBfcAllocatorTest, TakesTheBestFit) {
  HostBfcAllocator a(TestOptions());
  void* big = a.Allocate(8 * kMiB);
  void* small = a.Allocate(3 * kMiB);
  void* mid = a.Allocate(5 * kMiB);
  a.Deallocate(big);
  a.Deallocate(small);
  a.Deallocate(mid);
  void* p = a.Allocate(3 * kMiB - 4096);
  EXPECT_EQ(p, small);
  void* r = a.Allocate(4 * kMiB);
  EXPECT_EQ(r, mid);  // 5 MiB is the best fit; 8 MiB would also do
  a.Deallocate(p);
  a.Deallocate(r);
}

// A freed block is reused across "steps": the same pages come back for the
// next tensor of its size, with no new mapping.
TEST(HostBfcAllocatorTest, ReusesFreedBlocksWithoutMapping) {
  HostBfcAllocator a(TestOptions(/*cache_bound=*/256 * kMiB));
  std::vector<void*> first;
  for (int step = 0; step < 5; ++step) {
    void* x = a.Allocate(64 * kMiB);
    void* y = a.Allocate(64 * kMiB);
    ASSERT_NE(x, nullptr);
    ASSERT_NE(y, nullptr);
    std::memset(x, step, 4096);
    if (step == 0) first = {x, y};
    // The same two blocks, in either order (equal sizes go lowest address first).
    EXPECT_TRUE((x == first[0] && y == first[1]) || (x == first[1] && y == first[0])) << step;
    a.Deallocate(x);
    a.Deallocate(y);
  }
  HostBfcAllocator::Stats s = a.GetStats();
  EXPECT_EQ(s.regions_mapped, 2);
  EXPECT_EQ(s.num_allocs, 10);
  EXPECT_EQ(s.num_reused, 8);
  EXPECT_EQ(s.bytes_cached, 128 * kMiB);
  EXPECT_EQ(s.bytes_in_use, 0u);
}

// Wholly free regions beyond the bound go back to the system: their pages
// are no longer mapped.
TEST(HostBfcAllocatorTest, BoundGivesFreeRegionsBackToTheSystem) {
  HostBfcAllocator a(TestOptions(/*cache_bound=*/4 * kMiB));
  void* p = a.Allocate(4 * kMiB);
  void* q = a.Allocate(4 * kMiB);
  void* r = a.Allocate(4 * kMiB);
  a.Deallocate(p);
  a.Deallocate(q);
  a.Deallocate(r);
  HostBfcAllocator::Stats s = a.GetStats();
  EXPECT_EQ(s.bytes_mapped, 4 * kMiB);
  EXPECT_EQ(s.regions_released, 2);
  int mapped = IsMapped(p) + IsMapped(q) + IsMapped(r);
  EXPECT_EQ(mapped, 1);
  EXPECT_EQ(a.ReleaseCached(), 4 * kMiB);
  EXPECT_FALSE(IsMapped(p) || IsMapped(q) || IsMapped(r));
  EXPECT_EQ(a.GetStats().bytes_mapped, 0u);
}

// A bound of 0 keeps nothing: each region goes back as soon as it is free.
TEST(HostBfcAllocatorTest, ZeroBoundReturnsEveryRegionAtOnce) {
  HostBfcAllocator a(TestOptions(0));
  void* p = a.Allocate(3 * kMiB);
  a.Deallocate(p);
  EXPECT_FALSE(IsMapped(p));
  EXPECT_EQ(a.GetStats().bytes_mapped, 0u);
  a.SetCacheBound(16 * kMiB);
  p = a.Allocate(3 * kMiB);
  a.Deallocate(p);
  EXPECT_EQ(a.GetStats().bytes_mapped, 3 * kMiB);
  a.SetCacheBound(0);  // lowering the bound trims at once
  EXPECT_EQ(a.GetStats().bytes_mapped, 0u);
}

// A new region that would take the process past its budget, counting what
// is cached, first gives the cache back.
TEST(HostBfcAllocatorTest, CacheIsGivenBackBeforeTheBudgetIsExceeded) {
  HostBfcAllocator a(TestOptions());
  g_fake_in_use = 0;
  g_fake_limit = 16 * kMiB;
  void* p = a.Allocate(8 * kMiB);
  a.Deallocate(p);
  EXPECT_EQ(a.GetStats().bytes_cached, 8 * kMiB);
  g_fake_in_use = 10 * kMiB;  // with 8 cached and 9 more: 27 > 16
  void* q = a.Allocate(9 * kMiB);
  ASSERT_NE(q, nullptr);
  HostBfcAllocator::Stats s = a.GetStats();
  EXPECT_EQ(s.regions_released, 1);
  EXPECT_EQ(s.bytes_mapped, 9 * kMiB);
  a.Deallocate(q);
  g_fake_in_use = 0;
  g_fake_limit = int64_t{1} << 40;
}

// Every block is 64-byte aligned (whole pages in fact), and 2 MiB aligned
// with huge pages asked for.
TEST(HostBfcAllocatorTest, BlocksAreAligned) {
  HostBfcAllocator::Options o = TestOptions();
  o.huge_pages = true;
  HostBfcAllocator a(o);
  std::vector<void*> blocks;
  for (size_t bytes : {size_t{256} << 10, size_t{300001}, 3 * kMiB + 1, 17 * kMiB}) {
    void* p = a.Allocate(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(Addr(p) % CpuAllocator::kAlignment, 0u);
    EXPECT_EQ(Addr(p) % 4096, 0u);
    std::memset(p, 1, bytes);
    blocks.push_back(p);
  }
  EXPECT_EQ(Addr(blocks[3]) % HostBfcAllocator::kHugePage, 0u);  // a region of its own
  for (void* p : blocks) a.Deallocate(p);
}

// What is not an allocated chunk is ignored, not freed twice.
TEST(HostBfcAllocatorTest, ForeignAndDoubleFreesAreIgnored) {
  HostBfcAllocator a(TestOptions());
  void* p = a.Allocate(kMiB);
  int local = 0;
  a.Deallocate(&local);
  a.Deallocate(static_cast<char*>(p) + 4096);
  EXPECT_EQ(a.GetStats().bytes_in_use, kMiB);
  a.Deallocate(p);
  a.Deallocate(p);
  EXPECT_EQ(a.GetStats().bytes_in_use, 0u);
  EXPECT_EQ(a.Allocate(SIZE_MAX - 100), nullptr);
}

// Threads allocating and freeing at once never get overlapping blocks:
// each fills its block with its own byte and finds it intact at free.
TEST(HostBfcAllocatorTest, ThreadsGetDisjointBlocks) {
  HostBfcAllocator a(TestOptions(32 * kMiB));
  std::vector<std::thread> threads;
  std::vector<int> corrupted(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<unsigned char*, size_t>> live;
      for (int i = 0; i < 300; ++i) {
        if (live.size() < 4 && (rng() & 1)) {
          size_t bytes = (256 << 10) + rng() % (3 * kMiB);
          auto* p = static_cast<unsigned char*>(a.Allocate(bytes));
          if (p == nullptr) continue;
          std::memset(p, t + 1, bytes);
          live.emplace_back(p, bytes);
        } else if (!live.empty()) {
          auto [p, bytes] = live.back();
          live.pop_back();
          for (size_t k = 0; k < bytes; k += 997) corrupted[t] += p[k] != t + 1;
          corrupted[t] += p[bytes - 1] != t + 1;
          a.Deallocate(p);
        }
      }
      for (auto [p, bytes] : live) a.Deallocate(p);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(corrupted, std::vector<int>(4, 0));
  HostBfcAllocator::Stats s = a.GetStats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_LE(s.bytes_cached, 32 * kMiB);  // every region ended wholly free, and was trimmed to the bound
  a.ReleaseCached();
  EXPECT_EQ(a.GetStats().bytes_mapped, 0u);
}

// CpuAllocator sends large requests to the process's block cache: a freed
// 1 MiB tensor's block is cached, and the next one is served without a
// new mapping; the budget counts requested bytes.
TEST(HostBfcAllocatorTest, CpuAllocatorReusesLargeBlocks) {
  if (!HostBlockCacheEnabled()) GTEST_SKIP() << "TFG_HOST_ALLOCATOR=malloc";
  CpuAllocator cpu;
  void* p = cpu.Allocate(kMiB);
  EXPECT_EQ(HostBlockCache().ChunkSize(p), kMiB);
  cpu.Deallocate(p, kMiB);
  const HostBfcAllocator::Stats before = HostBlockCache().GetStats();
  void* q = cpu.Allocate(kMiB - 100);
  const HostBfcAllocator::Stats after = HostBlockCache().GetStats();
  EXPECT_EQ(after.num_reused, before.num_reused + 1);
  EXPECT_EQ(after.regions_mapped, before.regions_mapped);
  EXPECT_EQ(HostBlockCache().ChunkSize(q), kMiB);
  EXPECT_EQ(cpu.bytes_in_use(), static_cast<int64_t>(kMiB - 100));
  cpu.Deallocate(q, kMiB - 100);
}

}  // namespace
}  // namespace tfg
