#include "interp/runtime/thread_pool.h"

#include <thread>

#include <unsupported/Eigen/CXX11/ThreadPool>

namespace tfg {

struct ThreadPool::Impl {
  explicit Impl(int n) : pool(n) {}
  Eigen::ThreadPool pool;
};

namespace {
int ResolveThreads(int requested) {
  if (requested > 0) return requested;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) : impl_(std::make_unique<Impl>(ResolveThreads(num_threads))) {}
ThreadPool::~ThreadPool() = default;

void ThreadPool::Schedule(std::function<void()> task) { impl_->pool.Schedule(std::move(task)); }
int ThreadPool::num_threads() const { return impl_->pool.NumThreads(); }
bool ThreadPool::InPool() const { return impl_->pool.CurrentThreadId() != -1; }

}  // namespace tfg
