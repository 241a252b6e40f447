#include "ops/core/memory_budget.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include "ops/core/allocator.h"
#include "ops/core/tensor.h"

namespace tfg::memory_budget_test {
namespace {

// Sets a budget for one test and restores the machine's default after.
class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(int64_t bytes) { SetMemoryLimit(bytes); }
  ~ScopedMemoryLimit() { SetMemoryLimit(0); }
};

TEST(ParseByteSizeTest, PlainBytesAndPowersOf1024) {
  EXPECT_EQ(*ParseByteSize("4096"), 4096);
  EXPECT_EQ(*ParseByteSize("512K"), 512 * 1024);
  EXPECT_EQ(*ParseByteSize("64M"), 64 * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("64m"), 64 * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("2G"), int64_t{2} * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("2GB"), int64_t{2} * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("2GiB"), int64_t{2} * 1024 * 1024 * 1024);
  EXPECT_EQ(*ParseByteSize("1T"), int64_t{1} << 40);
  EXPECT_EQ(*ParseByteSize("100B"), 100);
}

TEST(ParseByteSizeTest, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "M", "12Q", "-5", "1.5G", "5 M", "0", "0K", "99999999999T"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
  EXPECT_EQ(ParseByteSize("12Q").status().message(),
            "'12Q' is not a size: give bytes, or a number with K, M, G or T (e.g. 512M, 4G)");
}

TEST(FormatByteSizeTest, WholeUnitsOrBytes) {
  EXPECT_EQ(FormatByteSize(64 << 20), "64 MiB");
  EXPECT_EQ(FormatByteSize(int64_t{3} << 30), "3 GiB");
  EXPECT_EQ(FormatByteSize(1536), "1536 bytes");  // 1.5 KiB is not whole
  EXPECT_EQ(FormatByteSize(2048), "2 KiB");
}

// The default is the machine's memory, or ulimit -v when lower.
TEST(MemoryLimitTest, DefaultIsPhysicalMemoryOrAddressSpaceLimit) {
  const int64_t physical = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  struct rlimit rl {};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &rl), 0);
  int64_t expected = physical;
  if (rl.rlim_cur != RLIM_INFINITY && static_cast<int64_t>(rl.rlim_cur) < expected) {
    expected = static_cast<int64_t>(rl.rlim_cur);
  }
  EXPECT_EQ(DefaultMemoryLimit(), expected);
  SetMemoryLimit(0);
  EXPECT_EQ(MemoryLimit(), expected);
}

TEST(MemoryLimitTest, AllocatorRefusesBeyondTheBudget) {
  CpuAllocator a;
  const int64_t before = MemoryInUse();
  ScopedMemoryLimit limit(before + (1 << 20));  // 1 MiB more than is used now
  void* half = a.Allocate(512 << 10);
  ASSERT_NE(half, nullptr);
  EXPECT_EQ(MemoryInUse(), before + (512 << 10));
  EXPECT_EQ(a.Allocate(600 << 10), nullptr);  // 512 + 600 KiB > 1 MiB
  EXPECT_EQ(MemoryInUse(), before + (512 << 10));  // the refused request counts nothing
  void* rest = a.Allocate(512 << 10);  // exactly up to the budget
  EXPECT_NE(rest, nullptr);
  a.Deallocate(rest, 512 << 10);
  a.Deallocate(half, 512 << 10);
  EXPECT_EQ(MemoryInUse(), before);
}

TEST(MemoryLimitTest, TensorAllocateBeyondTheBudgetIsResourceExhausted) {
  ScopedMemoryLimit limit(MemoryInUse() + (1 << 20));
  Result<Tensor> big = Tensor::Allocate(HostAllocator(), DType::kF32, TensorShape({1024, 1024}));  // 4 MiB
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), Code::kResourceExhausted);
  Result<Tensor> small = Tensor::Allocate(HostAllocator(), DType::kF32, TensorShape({1024}));  // 4 KiB
  EXPECT_TRUE(small.ok()) << small.status().ToString();
}

}  // namespace
}  // namespace tfg::memory_budget_test
