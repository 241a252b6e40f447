// f64 matrix products by Eigen's kernels compiled for AVX-512 (gemm_avx512.cc
// is built with -mavx512*; f32 has tfg's own tiles, sgemm.h). gemm.cc calls
// them only when the CPU has AVX-512: the OpenBLAS that Debian 12 ships runs
// its AVX2 (Haswell) kernels on current Xeons, at half the speed of Eigen's
// AVX-512 ones.
#pragma once

#include <cstdint>

namespace tfg::avx512 {

// Whether this CPU runs the functions below and those of
// sgemm_tiles_avx512.h (defined in gemm.cc, which is compiled for plain
// x86-64, so asking is safe on any CPU).
bool Available();

// Row-major c[m, n] = op(a) @ op(b) + beta * c with leading dimensions in
// elements (op(a) = aᵀ when ta: a is stored [k, m]). beta == 0 ignores c's
// old contents, NaNs included.
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda, const double* b,
          int64_t ldb, double beta, double* c, int64_t ldc);

}  // namespace tfg::avx512
