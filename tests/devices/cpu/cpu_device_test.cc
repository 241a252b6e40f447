#include "devices/cpu/cpu_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include <unsupported/Eigen/CXX11/Tensor>

namespace tfg {
namespace {

TEST(CpuDeviceTest, NameTypeAndAllocator) {
  CpuDevice d(2);
  EXPECT_EQ(d.name(), "/job:localhost/task:0/device:cpu:0");
  EXPECT_EQ(d.type(), DeviceType::kCpu);
  EXPECT_EQ(d.allocator(), HostAllocator());
  EXPECT_EQ(d.num_threads(), 2);
  ASSERT_NE(d.eigen_cpu_device(), nullptr);
  EXPECT_EQ(d.eigen_cpu_device()->numThreads(), 2);
}

TEST(CpuDeviceTest, ZeroThreadsMeansOnePerCore) {
  CpuDevice d(0);
  EXPECT_EQ(d.num_threads(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST(CpuDeviceTest, SmallWorkRunsInlineOnTheCaller) {
  CpuDevice d(4);
  std::vector<std::pair<int64_t, int64_t>> calls;
  std::thread::id caller = std::this_thread::get_id(), ran_on;
  d.ParallelFor(100, 10, [&](int64_t b, int64_t e) {
    calls.emplace_back(b, e);
    ran_on = std::this_thread::get_id();
  });
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(int64_t{0}, int64_t{100}));
  EXPECT_EQ(ran_on, caller);
}

TEST(CpuDeviceTest, LargeWorkCoversEveryIndexExactlyOnce) {
  CpuDevice d(4);
  const int64_t n = 100000;
  std::vector<std::atomic<int>> hits(n);
  std::atomic<int> blocks{0};
  d.ParallelFor(n, 100, [&](int64_t b, int64_t e) {
    ++blocks;
    for (int64_t i = b; i < e; ++i) hits[i].fetch_add(1);
  });
  EXPECT_GT(blocks.load(), 1);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
}

TEST(CpuDeviceTest, NestedParallelForDoesNotDeadlock) {
  CpuDevice d(2);
  std::atomic<int64_t> total{0};
  d.ParallelFor(64, 100000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      d.ParallelFor(1000, 1000, [&](int64_t b2, int64_t e2) { total += e2 - b2; });
    }
  });
  EXPECT_EQ(total.load(), 64 * 1000);
}

TEST(CpuDeviceTest, EmptyRangeCallsNothing) {
  CpuDevice d(2);
  bool called = false;
  d.ParallelFor(0, 1000000, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(CpuDeviceTest, ConcurrentCallersShareThePool) {
  CpuDevice d(2);
  std::atomic<int64_t> sum{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int k = 0; k < 20; ++k) {
        d.ParallelFor(10000, 100, [&](int64_t b, int64_t e) { sum += e - b; });
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(sum.load(), 4 * 20 * 10000);
}

TEST(CpuDeviceTest, EigenDeviceEvaluatesExpressions) {
  CpuDevice d(2);
  Eigen::Tensor<float, 1> a(1000), b(1000), c(1000);
  a.setConstant(1.5f);
  b.setConstant(2.0f);
  c.device(*d.eigen_cpu_device()) = a * b;
  EXPECT_EQ(c(0), 3.0f);
  EXPECT_EQ(c(999), 3.0f);
}

}  // namespace
}  // namespace tfg
