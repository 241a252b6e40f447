// What every oneDNN-backed CPU kernel shares (conv2d_onednn.cc,
// pool_onednn.cc): one engine, OpenMP kept to one thread per slice, the
// batch split into one or two slices per intra-op thread, and scratch memory per
// thread. Only files compiled with oneDNN's headers (cmake/onednn.cmake)
// include this.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <vector>

#include "ops/core/kernel.h"

namespace tfg::nn::onednn {

// The process's CPU engine.
dnnl::engine& Engine();

// oneDNN's OpenMP runtime would start a team of every core's threads on
// each executor thread that runs a primitive; slices run on tfg's pool
// instead, so each call gets `threads` (1 but for a batch smaller than
// the pool).
void SetOmpThreads(int threads);

// The batch in `count` slices of `size` images (the last may be smaller),
// one or two per intra-op thread; `omp_threads` is what each slice's
// primitive gets (the whole pool when there is a single slice).
struct Slices {
  int64_t size = 0, count = 0;
  int omp_threads = 1;
  int64_t begin(int64_t i) const { return i * size; }
  int64_t images(int64_t i, int64_t n) const { return std::min(size, n - i * size); }
};
Slices SliceBatch(const OpKernelContext& ctx, int64_t n);

// Runs fn(slice, stream) for every slice, one per pool thread; false when
// oneDNN failed on any (an exception must not leave a pool thread) or fn
// returned false for one.
template <typename Fn>
bool ForEachSlice(const OpKernelContext& ctx, const Slices& s, Fn&& fn) {
  // A cost this high makes ParallelFor hand each slice to its own thread.
  constexpr int64_t kSliceCost = int64_t{1} << 40;
  std::atomic<bool> failed{false};
  ctx.ParallelFor(s.count, kSliceCost, [&](int64_t b, int64_t e) {
    try {
      SetOmpThreads(s.omp_threads);
      thread_local dnnl::stream stream(Engine());
      for (int64_t i = b; i < e; ++i) {
        if (!fn(i, stream)) failed = true;
      }
    } catch (const dnnl::error&) {
      failed = true;
    }
  });
  return !failed;
}

// fn() returns whether every slice ran; false too when oneDNN throws (a
// shape it has no implementation for: the caller runs the reference).
template <typename Fn>
bool Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const dnnl::error&) {
    return false;
  }
}

// Caller-owned memory of layout `md` at `data` (read-only use when const).
inline dnnl::memory Memory(const dnnl::memory::desc& md, const float* data) {
  return dnnl::memory(md, Engine(), const_cast<float*>(data));
}

// A thread's reusable buffer of at least `md`'s size, as memory of layout
// `md`. `slot` tells apart buffers one call needs at the same time.
enum class Buffer { kScratchpad, kFirstInput, kSecondInput, kOutput };
inline constexpr size_t kBufferSlots = 4;
dnnl::memory ThreadBuffer(const dnnl::memory::desc& md, Buffer slot);

// oneDNN's "ref:" implementations are plain loops, far slower than tfg's
// own kernels: a shape that gets one runs tfg's instead.
bool IsJitted(const char* impl);

}  // namespace tfg::nn::onednn
