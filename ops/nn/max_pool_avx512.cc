// The max_pool loops again, compiled for AVX-512 with vectors of up to 64
// bytes, and picked at run time where the CPU has it (max_pool_loops.cc).
// Only comparisons, blends and (for overlapping windows) one addition per
// element, as in the baseline copy, so results are the same bit for bit.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>  // TapCode narrowing and widening (max_pool_loops_impl.h)
#endif

#include "ops/nn/max_pool_loops.h"

#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq")
#define TFG_POOL_NS avx512
#define TFG_POOL_WIDEST 64
#include "ops/nn/max_pool_loops_impl.h"
#undef TFG_POOL_NS
#undef TFG_POOL_WIDEST
#pragma GCC pop_options

namespace tfg::nn::max_pool_loops {
const LoopSet* Avx512LoopsIfCompiled() {
  static const LoopSet set = avx512::MakeLoopSet("avx512");
  return &set;
}
}  // namespace tfg::nn::max_pool_loops
#else
namespace tfg::nn::max_pool_loops {
const LoopSet* Avx512LoopsIfCompiled() { return nullptr; }
}  // namespace tfg::nn::max_pool_loops
#endif
