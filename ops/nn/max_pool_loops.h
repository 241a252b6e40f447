// The CPU loops of max_pool, max_pool_grad (and max_pool_relu_grad) and
// max_pool_grad_grad, compiled twice: for the baseline instruction set
// (max_pool_loops.cc) and for AVX-512 (max_pool_avx512.cc), whose wider
// vectors take 16 floats per instruction. BestMaxPoolLoops picks the AVX-512 copy when the CPU has it.
// Both copies compute every element bit for bit alike: each lane runs the
// same comparisons in the same order, only more lanes at once.
#pragma once

#include <cstdint>

#include "ops/nn/window.h"

namespace tfg::nn::max_pool_loops {

// Each loop runs units [s, e) of a ParallelFor.
template <typename T>
struct Loops {
  // y = each window's maximum; units are rows of output (n * oh).
  void (*forward)(const Geometry& g, const T* x, T* y, int64_t s, int64_t e);
  // dx = dy routed to each window's argmax; units are images (n), since
  // the windows of one image may overlap.
  void (*backward)(const Geometry& g, const T* x, const T* dy, T* dx, int64_t s, int64_t e);
  // backward with relu_grad folded in: routed only where the window's
  // maximum is > 0 (max_pool_relu_grad). Also sums what it routes per
  // channel, image by image: sums[b * c + k] for each image b in [s, e)
  // (the bias gradient of the convolution below, bias_add_grad(dx),
  // without reading dx again).
  void (*backward_relu)(const Geometry& g, const T* x, const T* dy, T* dx, T* sums, int64_t s, int64_t e);
  // out = grad read at each window's argmax; units are rows of output.
  void (*gather)(const Geometry& g, const T* x, const T* grad, T* out, int64_t s, int64_t e);
  // forward, keeping each window's argmax as a TapCode, a byte per element
  // of y; units as forward's. Windows of at most kMaxTapWindow pixels.
  void (*forward_taps)(const Geometry& g, const T* x, T* y, uint8_t* taps, int64_t s, int64_t e);
  // backward_relu from those codes, without the image; units as its.
  void (*backward_relu_taps)(const Geometry& g, const uint8_t* taps, const T* dy, T* dx, T* sums, int64_t s,
                             int64_t e);
};

// A TapCode, a window's argmax as forward_taps keeps it: its index among
// the window's valid pixels in row-major order, plus kTapNotPositive where
// the maximum is not > 0 (so also where it is NaN), which is all
// relu_grad asks of it.
inline constexpr int kTapNotPositive = 0x80;
inline constexpr int64_t kMaxTapWindow = kTapNotPositive;

struct LoopSet {
  const char* isa;  // "baseline" or "avx512", for tests and benchmarks
  Loops<float> f32;
  Loops<double> f64;
};

const LoopSet& BaselineLoops();
// Defined in max_pool_avx512.cc: its copy, or null where the compiler
// cannot target AVX-512. It does not check the CPU: Avx512Loops does.
const LoopSet* Avx512LoopsIfCompiled();
// Null where the build has no AVX-512 copy or the CPU lacks AVX-512.
const LoopSet* Avx512Loops();
// The AVX-512 copy where it runs, the baseline otherwise.
const LoopSet& BestMaxPoolLoops();

template <typename T>
const Loops<T>& LoopsFor(const LoopSet& set) {
  if constexpr (sizeof(T) == 4) {
    return set.f32;
  } else {
    return set.f64;
  }
}

}  // namespace tfg::nn::max_pool_loops
