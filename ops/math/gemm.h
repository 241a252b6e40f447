// Row-major matrix products for the matmul kernel:
//   c[m, n] = op(a) @ op(b),  op(a) = a or aᵀ (stored [k, m] when transposed),
//                             op(b) = b or bᵀ (stored [n, k] when transposed).
// On CPUs that have AVX-512, f32 goes to tfg's own kernels (sgemm.h) and
// f64 to Eigen's AVX-512 ones (gemm_avx512.h); elsewhere both go to
// OpenBLAS, except for tiny products, where a plain loop beats the
// library's per-call overhead; integers always use the plain loop.
// Safe to call from several threads at once.
#pragma once

#include <cstdint>

namespace tfg {

class OpKernelContext;

struct GemmShape {
  bool transpose_a = false;
  bool transpose_b = false;
  int64_t m = 0, n = 0, k = 0;
};

// True when a product is too small for BLAS to use several threads, so a
// caller with many of them should run them in parallel itself.
bool IsSmallGemm(const GemmShape& g);

// c must not alias a or b. k == 0 yields zeros. With a kernel context, a
// large product is split over its intra-op threads (when the library doing
// it does not thread on its own).
void Gemm(const GemmShape& g, const float* a, const float* b, float* c, const OpKernelContext* ctx = nullptr);
void Gemm(const GemmShape& g, const double* a, const double* b, double* c, const OpKernelContext* ctx = nullptr);

// c[m, n] = op(a) @ op(b) + beta * c with leading dimensions in elements,
// for operands inside larger matrices (convolution patches). beta == 0
// ignores c's old contents. Sizes and strides must fit BLAS's 32-bit ints.
struct Strides {
  int64_t lda, ldb, ldc;
};
void Gemm(const GemmShape& g, const float* a, const float* b, float beta, float* c, Strides ld,
          const OpKernelContext* ctx = nullptr);
void Gemm(const GemmShape& g, const double* a, const double* b, double beta, double* c, Strides ld,
          const OpKernelContext* ctx = nullptr);
void Gemm(const GemmShape& g, const int32_t* a, const int32_t* b, int32_t* c, const OpKernelContext* ctx = nullptr);
void Gemm(const GemmShape& g, const int64_t* a, const int64_t* b, int64_t* c, const OpKernelContext* ctx = nullptr);

}  // namespace tfg
