#include "interp/runtime/run_stats.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <thread>

#include "ops/core/allocator.h"
#include "ops/core/host_bfc_allocator.h"

namespace tfg {
namespace {

TEST(RunStatsTest, RowsByTotalTimeThenName) {
  RunStats stats;
  stats.Record("matmul", 3000);
  stats.Record("add", 500);
  stats.Record("matmul", 1000);
  stats.Record("relu", 500);
  std::vector<RunStats::Row> rows = stats.Rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].op, "matmul");
  EXPECT_EQ(rows[0].count, 2);
  EXPECT_EQ(rows[0].total_ns, 4000);
  EXPECT_EQ(rows[1].op, "add");  // ties by name
  EXPECT_EQ(rows[2].op, "relu");
}

TEST(RunStatsTest, ConcurrentRecordsAreAllCounted) {
  RunStats stats;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) stats.Record("op", 1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(stats.Rows().at(0).count, 4000);
  EXPECT_EQ(stats.Rows().at(0).total_ns, 4000);
}

TEST(RunStatsTest, TableShowsMeansSharesAndMemory) {
  RunStats stats;
  stats.Record("conv2d", 3'000'000);  // 3 ms
  stats.Record("conv2d", 1'000'000);
  stats.Record("relu", 1'000'000);
  CpuAllocator cpu;
  void* p = cpu.Allocate(2 << 20);
  cpu.Deallocate(p, 2 << 20);
  void* q = cpu.Allocate(1 << 20);
  std::string table = stats.Format({&cpu});
  cpu.Deallocate(q, 1 << 20);
  // conv2d: 2 runs, 4 ms in all, 2000 us each, 80% of 5 ms.
  EXPECT_NE(table.find("conv2d               2        4.000     2000.00   80.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("relu                 1        1.000     1000.00   20.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("all kernels" + std::string(19, ' ') + "5.000"), std::string::npos) << table;
  EXPECT_NE(table.find("memory cpu: 3.0 MiB allocated in all, peak 2.0 MiB in use"), std::string::npos) << table;
}

}  // namespace
}  // namespace tfg

namespace tfg {
namespace {

// Touching 4 MiB of fresh pages faults each 4 KiB page in once: the table
// counts at least those 1024 minor faults since the stats began, and the
// host allocator's line says what its block cache holds.
TEST(RunStatsTest, TableCountsPageFaultsAndCachedBytes) {
  RunStats stats;
  constexpr size_t kBytes = size_t{4} << 20;
  void* fresh = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(fresh, MAP_FAILED);
  for (size_t i = 0; i < kBytes; i += 4096) static_cast<volatile char*>(fresh)[i] = 1;
  munmap(fresh, kBytes);
  void* block = HostAllocator()->Allocate(kBytes);
  HostAllocator()->Deallocate(block, kBytes);
  std::string table = stats.Format({HostAllocator()});
  auto at = table.find("page faults: ");
  ASSERT_NE(at, std::string::npos) << table;
  EXPECT_GE(std::stoll(table.substr(at + 13)), 1024) << table;
  EXPECT_NE(table.find(" major; outputs written in place of an input: "), std::string::npos) << table;
  if (HostBlockCacheEnabled()) {
    EXPECT_NE(table.find("MiB cached for reuse\n"), std::string::npos) << table;
  }
}

}  // namespace
}  // namespace tfg
