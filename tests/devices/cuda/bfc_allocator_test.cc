#include "devices/cuda/bfc_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <vector>

namespace tfg {
namespace {

// Host memory in place of device memory; counts what it hands out.
class HostSubAllocator final : public SubAllocator {
 public:
  void* Alloc(size_t bytes) override {
    if (fail_) return nullptr;
    ++regions;
    return std::aligned_alloc(BfcAllocator::kMinChunk, bytes);
  }
  void Free(void* ptr, size_t) override { std::free(ptr); }
  void set_fail(bool fail) { fail_ = fail; }
  int regions = 0;

 private:
  bool fail_ = false;
};

struct Fixture {
  explicit Fixture(size_t limit, size_t initial = 64 * 1024) {
    auto owned = std::make_unique<HostSubAllocator>();
    sub = owned.get();
    alloc = std::make_unique<BfcAllocator>("test", std::move(owned), BfcAllocator::Options{limit, initial});
  }
  char* Alloc(size_t bytes) { return static_cast<char*>(alloc->Allocate(bytes)); }
  HostSubAllocator* sub;
  std::unique_ptr<BfcAllocator> alloc;
};

TEST(BfcAllocatorTest, RoundsUpToChunksAndAligns) {
  Fixture f(1 << 20);
  char* a = f.Alloc(1);
  char* b = f.Alloc(300);
  char* z = f.Alloc(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u);
  EXPECT_EQ(f.alloc->ChunkSize(a), 256u);
  EXPECT_EQ(f.alloc->ChunkSize(b), 512u);
  EXPECT_EQ(f.alloc->ChunkSize(z), 256u);
  EXPECT_EQ(f.alloc->GetStats().bytes_in_use, 1024u);
  EXPECT_EQ(f.alloc->bytes_in_use(), 301);  // the base class counts requested bytes
}

// Carving a region in order: chunks follow each other (split), and the
// region's rest stays one free chunk.
TEST(BfcAllocatorTest, SplitsARegionIntoAdjacentChunks) {
  Fixture f(1 << 20, 64 * 1024);
  char* a = f.Alloc(1024);
  char* b = f.Alloc(2048);
  EXPECT_EQ(b, a + 1024);
  auto s = f.alloc->GetStats();
  EXPECT_EQ(s.num_regions, 1u);
  EXPECT_EQ(s.num_chunks, 3u);
  EXPECT_EQ(s.largest_free_chunk, 64u * 1024 - 3072);
}

TEST(BfcAllocatorTest, TakesTheSmallestFreeChunkThatFits) {
  Fixture f(1 << 20, 64 * 1024);
  char* a = f.Alloc(1024);
  char* big = f.Alloc(4096);
  char* b = f.Alloc(1024);
  char* mid = f.Alloc(2048);
  char* c = f.Alloc(1024);
  f.alloc->Deallocate(big, 4096);
  f.alloc->Deallocate(mid, 2048);
  // Holes of 4096 and 2048 bytes (and the region's large rest): 2048 fits best.
  EXPECT_EQ(f.Alloc(2000), mid);
  // 1024 fits only in the 4096 hole (besides the rest): its front is used...
  EXPECT_EQ(f.Alloc(1024), big);
  // ...and the split-off 3072 bytes after it are the best fit for 3000.
  EXPECT_EQ(f.Alloc(3000), big + 1024);
  (void)a, (void)b, (void)c;
}

TEST(BfcAllocatorTest, CoalescesFreedNeighbours) {
  Fixture f(1 << 20, 64 * 1024);
  char* a = f.Alloc(1024);
  char* b = f.Alloc(1024);
  char* c = f.Alloc(1024);
  char* d = f.Alloc(1024);
  f.alloc->Deallocate(b, 1024);
  f.alloc->Deallocate(c, 1024);  // merges with b (before it)
  EXPECT_EQ(f.alloc->GetStats().num_chunks, 4u);  // a, b+c, d, rest
  EXPECT_EQ(f.Alloc(2048), b);
  f.alloc->Deallocate(b, 2048);
  f.alloc->Deallocate(a, 1024);  // merges with b+c (after it)
  EXPECT_EQ(f.Alloc(3072), a);
  f.alloc->Deallocate(a, 3072);
  f.alloc->Deallocate(d, 1024);  // merges with both sides: the whole region
  auto s = f.alloc->GetStats();
  EXPECT_EQ(s.num_chunks, 1u);
  EXPECT_EQ(s.largest_free_chunk, 64u * 1024);
  EXPECT_EQ(s.fragmentation, 0.0);
}

TEST(BfcAllocatorTest, ReportsPeakUseAndFragmentation) {
  Fixture f(1 << 20, 8 * 1024);
  std::vector<char*> blocks;
  for (int i = 0; i < 8; ++i) blocks.push_back(f.Alloc(1024));  // fills the region
  for (int i = 0; i < 8; i += 2) f.alloc->Deallocate(blocks[i], 1024);
  auto s = f.alloc->GetStats();
  EXPECT_EQ(s.peak_bytes_in_use, 8u * 1024);
  EXPECT_EQ(s.bytes_in_use, 4u * 1024);
  EXPECT_EQ(s.largest_free_chunk, 1024u);
  // 4 KiB free in four 1 KiB pieces: 1 - 1/4.
  EXPECT_DOUBLE_EQ(s.fragmentation, 0.75);
  EXPECT_EQ(f.alloc->peak_bytes_in_use(), 8 * 1024);
}

TEST(BfcAllocatorTest, GrowsByDoublingRegionsUpToTheLimit) {
  Fixture f(7 * 4096, 4096);
  EXPECT_NE(f.Alloc(4096), nullptr);  // region 1: 4096
  EXPECT_NE(f.Alloc(4096), nullptr);  // region 2: 8192
  EXPECT_NE(f.Alloc(8192), nullptr);  // does not fit the rest of region 2: region 3 gets the 16 KiB left
  auto s = f.alloc->GetStats();
  EXPECT_EQ(s.num_regions, 3u);
  EXPECT_EQ(s.bytes_reserved, 7u * 4096);
  EXPECT_EQ(f.Alloc(16 * 1024), nullptr);  // over the limit
  EXPECT_NE(f.Alloc(4096), nullptr);       // still fits region 2's rest
  EXPECT_EQ(f.sub->regions, 3);
}

TEST(BfcAllocatorTest, SubAllocatorOutOfMemoryIsNull) {
  Fixture f(1 << 20);
  f.sub->set_fail(true);
  EXPECT_EQ(f.Alloc(100), nullptr);
  EXPECT_EQ(f.alloc->GetStats().bytes_reserved, 0u);
  f.sub->set_fail(false);
  EXPECT_NE(f.Alloc(100), nullptr);
}

TEST(BfcAllocatorTest, IgnoresPointersItDidNotHandOut) {
  Fixture f(1 << 20);
  char* a = f.Alloc(512);
  f.alloc->Deallocate(a + 256, 256);  // inside a chunk, not its start
  f.alloc->Deallocate(a, 512);
  f.alloc->Deallocate(a, 512);  // twice
  EXPECT_EQ(f.alloc->GetStats().bytes_in_use, 0u);
  EXPECT_EQ(f.alloc->GetStats().num_chunks, 1u);
}

// Random allocations and frees, checked against a model of the live
// blocks: blocks never overlap and stay inside what was reserved, the bytes
// in use are the sum of the live blocks' rounded sizes, and once everything
// is freed each region is one free chunk again.
TEST(BfcAllocatorTest, RandomSequencesMatchAModel) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 20; ++round) {
    Fixture f(size_t{64} << 20, 16 * 1024);
    std::map<char*, size_t> live;  // address -> rounded size
    size_t model_in_use = 0, model_peak = 0;
    for (int op = 0; op < 400; ++op) {
      bool do_alloc = live.empty() || rng() % 3 != 0;
      if (do_alloc) {
        size_t bytes = rng() % 2 == 0 ? rng() % 512 : rng() % 40000;
        char* p = f.Alloc(bytes);
        ASSERT_NE(p, nullptr);
        size_t rounded = std::max<size_t>((bytes + 255) / 256, 1) * 256;
        ASSERT_EQ(f.alloc->ChunkSize(p), rounded);
        auto next = live.lower_bound(p);
        if (next != live.end()) {
          ASSERT_LE(p + rounded, next->first) << "overlaps the next block";
        }
        if (next != live.begin()) {
          auto prev = std::prev(next);
          ASSERT_LE(prev->first + prev->second, p) << "overlaps the previous block";
        }
        live[p] = rounded;
        model_in_use += rounded;
        model_peak = std::max(model_peak, model_in_use);
      } else {
        auto it = std::next(live.begin(), rng() % live.size());
        f.alloc->Deallocate(it->first, it->second);
        model_in_use -= it->second;
        live.erase(it);
      }
      auto s = f.alloc->GetStats();
      ASSERT_EQ(s.bytes_in_use, model_in_use);
      ASSERT_LE(s.bytes_in_use, s.bytes_reserved);
    }
    EXPECT_EQ(f.alloc->GetStats().peak_bytes_in_use, model_peak);
    for (auto& [p, size] : live) f.alloc->Deallocate(p, size);
    auto s = f.alloc->GetStats();
    EXPECT_EQ(s.bytes_in_use, 0u);
    EXPECT_EQ(s.num_chunks, s.num_regions) << "freed memory was not merged back into whole regions";
  }
}

}  // namespace
}  // namespace tfg
