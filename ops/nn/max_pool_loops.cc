// The baseline copy of the max_pool loops and the pick between copies.
#include "ops/nn/max_pool_loops.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#define TFG_POOL_NS baseline
#define TFG_POOL_WIDEST 16
#include "ops/nn/max_pool_loops_impl.h"
#undef TFG_POOL_NS
#undef TFG_POOL_WIDEST

namespace tfg::nn::max_pool_loops {

const LoopSet& BaselineLoops() {
  static const LoopSet set = baseline::MakeLoopSet("baseline");
  return set;
}

const LoopSet* Avx512Loops() {
#if defined(__x86_64__) && defined(__GNUC__)
  // The copy uses AVX-512F/VL/BW/DQ vectors (compare to mask, blend).
  static const bool runs = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return runs ? Avx512LoopsIfCompiled() : nullptr;
#else
  return nullptr;
#endif
}

const LoopSet& BestMaxPoolLoops() {
  static const LoopSet& best = Avx512Loops() ? *Avx512Loops() : BaselineLoops();
  return best;
}

}  // namespace tfg::nn::max_pool_loops
