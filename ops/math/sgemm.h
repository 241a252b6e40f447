// tfg's own f32 matrix product for CPUs with AVX-512 (gemm.cc calls it
// after avx512::Available()), blocked for the caches around the register
// tiles of sgemm_tiles_avx512.h:
//   for each chunk of c's rows: pack op(a) once, its row panels shared out
//   over the threads; then each thread takes a band of c's columns (or of
//   its rows, when c is narrow) and, per depth block, packs the matching
//   block of op(b) and multiplies every tile of its band.
// Sharing packed op(a) is what keeps two threads ahead of OpenBLAS at
// 2048^3: bands of rows would each pack all of op(b) again.
#pragma once

#include <cstdint>

#include "ops/math/gemm.h"

namespace tfg {

// c[m, n] = op(a) @ op(b) + beta * c with leading dimensions in elements,
// for k > 0 (gemm.cc handles k == 0); beta == 0 ignores c's old contents. With a kernel context, the work is
// cut into at most `threads` pieces run by its ParallelFor; without one it
// runs on this thread.
void TiledSgemm(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld,
                const OpKernelContext* ctx, int64_t threads);

}  // namespace tfg
