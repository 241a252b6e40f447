// The machine's measured f32 FMA peak, so GEMM figures can be given as a
// fraction of it (scripts/bench): `threads` threads each run a loop of
// independent fused multiply-adds on the widest vectors the CPU has
// (AVX-512, else AVX2), the best of a few tries. Measured rather than
// computed from a clock rate: shared and throttled machines run below
// their nominal rate, and a measured peak includes that.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace tfg::bench {

// Independent accumulators: enough to cover the FMA latency on both pipes.
constexpr int kFmaChains = 12;
// About 0.15 s a try: a loop of ~15 ms ran before the core had reached its
// boost clock, and measured a "peak" that the GEMMs after it beat by 20%.
constexpr long kFmaIterations = 40000000;

__attribute__((target("avx512f"))) inline float FmaLoop512() {
  __m512 acc[kFmaChains];
  for (int i = 0; i < kFmaChains; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 x = _mm512_set1_ps(0.9999999f), y = _mm512_set1_ps(1e-7f);
  for (long it = 0; it < kFmaIterations; ++it) {
    for (int i = 0; i < kFmaChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  for (int i = 1; i < kFmaChains; ++i) acc[0] = _mm512_add_ps(acc[0], acc[i]);
  float lanes[16];  // not _mm512_reduce_add_ps: GCC 12 warns inside it
  _mm512_storeu_ps(lanes, acc[0]);
  return lanes[0];
}

__attribute__((target("avx2,fma"))) inline float FmaLoop256() {
  __m256 acc[kFmaChains];
  for (int i = 0; i < kFmaChains; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 x = _mm256_set1_ps(0.9999999f), y = _mm256_set1_ps(1e-7f);
  for (long it = 0; it < kFmaIterations; ++it) {
    for (int i = 0; i < kFmaChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  for (int i = 1; i < kFmaChains; ++i) acc[0] = _mm256_add_ps(acc[0], acc[i]);
  float lanes[8];
  _mm256_storeu_ps(lanes, acc[0]);
  return lanes[0];
}

struct FmaPeak {
  const char* isa;   // "AVX-512" or "AVX2"
  double gflops;     // f32 GFLOP/s (an FMA is 2 flops), all threads together
};

inline FmaPeak MeasureFmaPeak(int threads) {
  __builtin_cpu_init();
  const bool wide = __builtin_cpu_supports("avx512f");
  const double lanes = wide ? 16 : 8;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<float> sink(static_cast<size_t>(threads));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&sink, t, wide] { sink[static_cast<size_t>(t)] = wide ? FmaLoop512() : FmaLoop256(); });
    }
    for (auto& w : workers) w.join();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const double flops = 2.0 * lanes * kFmaChains * static_cast<double>(kFmaIterations) * threads;
  return {wide ? "AVX-512" : "AVX2", flops / best / 1e9};
}

}  // namespace tfg::bench
