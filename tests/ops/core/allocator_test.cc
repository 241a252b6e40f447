#include "ops/core/allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace tfg {
namespace {

// Every size, cached class or not, comes back 64-byte aligned and usable
// to its last byte, and the statistics count what was asked for.
TEST(CpuAllocatorTest, BlocksAreAlignedAndCounted) {
  CpuAllocator a;
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, size_t{1024},
                       size_t{4095}, size_t{4096}, size_t{4097}, size_t{1} << 20}) {
    void* p = a.Allocate(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CpuAllocator::kAlignment, 0u) << bytes;
    std::memset(p, 0xab, bytes);
    blocks.emplace_back(p, bytes);
  }
  EXPECT_EQ(a.bytes_in_use(), 0 + 1 + 63 + 64 + 65 + 1000 + 1024 + 4095 + 4096 + 4097 + (1 << 20));
  for (auto [p, bytes] : blocks) a.Deallocate(p, bytes);
  EXPECT_EQ(a.bytes_in_use(), 0);
}

#if !defined(__SANITIZE_ADDRESS__)
// A freed small block is handed out again on the same thread for any
// request of its power-of-two class (under ASan blocks go back to malloc,
// so that a use after free is still caught).
TEST(CpuAllocatorTest, SmallBlocksAreReusedWithinTheirClass) {
  CpuAllocator a;
  void* p = a.Allocate(1000);
  a.Deallocate(p, 1000);
  void* q = a.Allocate(600);  // 513..1024 bytes share a class
  EXPECT_EQ(q, p);
  a.Deallocate(q, 600);
  void* r = a.Allocate(1500);  // the next class up
  EXPECT_NE(r, p);
  a.Deallocate(r, 1500);
}
#endif

}  // namespace
}  // namespace tfg
