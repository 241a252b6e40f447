// The timing the benchmarks share (scripts/bench).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>

namespace tfg {

// Best of `reps` timings of fn(), in seconds: the minimum filters out noise
// from other processes on a shared machine.
inline double BestSeconds(int reps, const std::function<void()>& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace tfg
