// Row-major matrix products for the matmul kernel:
//   c[m, n] = op(a) @ op(b),  op(a) = a or aᵀ (stored [k, m] when transposed),
//                             op(b) = b or bᵀ (stored [n, k] when transposed).
// f32/f64 go to OpenBLAS except for tiny products, where a plain loop beats
// the library's per-call overhead; integers always use the plain loop.
// Safe to call from several threads at once.
#pragma once

#include <cstdint>

namespace tfg {

struct GemmShape {
  bool transpose_a = false;
  bool transpose_b = false;
  int64_t m = 0, n = 0, k = 0;
};

// True when a product is too small for BLAS to use several threads, so a
// caller with many of them should run them in parallel itself.
bool IsSmallGemm(const GemmShape& g);

// c must not alias a or b. k == 0 yields zeros.
void Gemm(const GemmShape& g, const float* a, const float* b, float* c);
void Gemm(const GemmShape& g, const double* a, const double* b, double* c);
void Gemm(const GemmShape& g, const int32_t* a, const int32_t* b, int32_t* c);
void Gemm(const GemmShape& g, const int64_t* a, const int64_t* b, int64_t* c);

}  // namespace tfg
