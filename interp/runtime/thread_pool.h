// The inter-op thread pool that runs ready nodes. A thin wrapper so Eigen's
// pool headers stay in one translation unit.
#pragma once

#include <functional>
#include <memory>

namespace tfg {

class ThreadPool {
 public:
  // `num_threads` <= 0: one per hardware core.
  explicit ThreadPool(int num_threads);
  // Runs every task already scheduled, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> task);
  int num_threads() const;
  // True on one of this pool's threads.
  bool InPool() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tfg
