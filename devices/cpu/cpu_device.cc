#include "devices/cpu/cpu_device.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS
#endif
#include <unsupported/Eigen/CXX11/Tensor>
#include <unsupported/Eigen/CXX11/ThreadPool>

namespace tfg {

struct CpuDevice::Pool {
  explicit Pool(int n) : pool(n), device(&pool, n) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

namespace {

int ResolveThreads(int requested) {
  if (requested > 0) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

// Blocks are claimed from a shared counter by the caller and the helpers
// alike; a helper that starts late finds nothing left and returns. The
// state is shared because helpers may outlive the call by a few cycles.
struct ForState {
  const std::function<void(int64_t, int64_t)>* fn = nullptr;
  int64_t total = 0;
  int64_t block_size = 0;
  int64_t num_blocks = 0;
  std::atomic<int64_t> next_block{0};
  std::atomic<int64_t> blocks_done{0};
  std::mutex mu;
  std::condition_variable cv;
};

void RunBlocks(ForState& s) {
  int64_t ran = 0;
  for (;;) {
    int64_t b = s.next_block.fetch_add(1, std::memory_order_relaxed);
    if (b >= s.num_blocks) break;
    int64_t begin = b * s.block_size;
    (*s.fn)(begin, std::min(s.total, begin + s.block_size));
    ++ran;
  }
  if (ran == 0) return;
  if (s.blocks_done.fetch_add(ran, std::memory_order_acq_rel) + ran == s.num_blocks) {
    std::lock_guard<std::mutex> lock(s.mu);
    s.cv.notify_all();
  }
}

}  // namespace

CpuDevice::CpuDevice(int intra_op_threads)
    : Device(kName, DeviceType::kCpu),
      num_threads_(ResolveThreads(intra_op_threads)),
      pool_(std::make_unique<Pool>(num_threads_)) {}

CpuDevice::~CpuDevice() = default;

const Eigen::ThreadPoolDevice* CpuDevice::eigen_cpu_device() const { return &pool_->device; }

void CpuDevice::ParallelFor(int64_t total, int64_t cost_per_unit,
                            const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  // Saturating: total * cost can overflow for huge tensors.
  double cycles = static_cast<double>(total) * static_cast<double>(std::max<int64_t>(cost_per_unit, 1));
  bool nested = pool_->pool.CurrentThreadId() != -1;
  if (num_threads_ <= 1 || total == 1 || nested || cycles < 2.0 * kParallelForMinCycles) {
    fn(0, total);
    return;
  }
  int64_t max_blocks = 4 * static_cast<int64_t>(num_threads_);
  int64_t blocks = std::min<int64_t>({total, max_blocks, static_cast<int64_t>(cycles / kParallelForMinCycles)});
  auto state = std::make_shared<ForState>();
  state->fn = &fn;
  state->total = total;
  state->block_size = (total + blocks - 1) / blocks;
  state->num_blocks = (total + state->block_size - 1) / state->block_size;
  // The caller runs blocks too: num_threads_ runners in all, one per core.
  int64_t helpers = std::min<int64_t>(state->num_blocks - 1, num_threads_ - 1);
  for (int64_t i = 0; i < helpers; ++i) {
    pool_->pool.Schedule([state] { RunBlocks(*state); });
  }
  RunBlocks(*state);
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->blocks_done.load(std::memory_order_acquire) == state->num_blocks; });
}

}  // namespace tfg
