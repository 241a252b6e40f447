// The cuBLAS functions tfg calls, as a table of pointers that LoadCublas
// (devices/cuda/cublas_library.h) fills from the library at first use.
// Only cuBLAS's headers are used at build time, for its types.
#pragma once

#include <cublas_v2.h>

#include "devices/cuda/cublas_library.h"
#include "ops/core/status.h"

namespace tfg {

// The exported cublasGemmStridedBatchedEx: in C++ the header also has an
// inline overload (taking a cudaDataType compute type), so the name alone
// does not say which one decltype should take.
using CublasGemmStridedBatchedExFn = cublasStatus_t (*)(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void* alpha, const void* a, cudaDataType a_type, int lda, long long int stride_a, const void* b,
    cudaDataType b_type, int ldb, long long int stride_b, const void* beta, void* c, cudaDataType c_type, int ldc,
    long long int stride_c, int batch_count, cublasComputeType_t compute_type, cublasGemmAlgo_t algo);

struct CublasApi {
  decltype(&cublasCreate) create = nullptr;  // cublas_v2.h maps these three to their _v2 names
  decltype(&cublasDestroy) destroy = nullptr;
  decltype(&cublasSetStream) set_stream = nullptr;
  decltype(&cublasGetStatusString) get_status_string = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
  decltype(&cublasDgemmStridedBatched) dgemm_strided_batched = nullptr;
  CublasGemmStridedBatchedExFn gemm_strided_batched_ex = nullptr;
};

// "cuBLAS error in matmul: the GPU program failed to execute".
Status CublasError(cublasStatus_t status, const char* call);

}  // namespace tfg
