// matmul on the GPU through cuBLAS (loaded at the first GPU matmul, see
// devices/cuda/cublas_library.h): f32, f64, and f16 with f32
// accumulation. Batches are one strided-batched call; a side without batch
// dimensions (or with a batch of 1) is reused for every batch (stride 0).
// Other batch broadcasts (e.g. [2, 1, m, k] @ [3, k, n]) are not supported
// on the GPU yet.
//
// cuBLAS is column-major: a row-major C = A B is computed as the
// column-major C^T = B^T A^T, i.e. with the operands swapped.
#include <algorithm>
#include <numeric>

#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace matmul_cuda_impl {

int64_t Product(const std::vector<int64_t>& dims, int drop_last) {
  return std::accumulate(dims.begin(), dims.end() - drop_last, int64_t{1}, std::multiplies<>());
}

struct Gemm {
  int64_t m, n, k, batch;
  int64_t stride_a, stride_b;  // 0: shared by every batch
  bool ta, tb;
  std::vector<int64_t> out_dims;
};

Result<Gemm> PlanGemm(const TensorShape& a, const TensorShape& b, bool ta, bool tb) {
  if (a.rank() < 2 || b.rank() < 2) {
    return InvalidArgument("matmul: inputs must have rank >= 2: a is {}, b is {}", a.ToString(), b.ToString());
  }
  Gemm g{};
  g.ta = ta, g.tb = tb;
  const int ra = a.rank(), rb = b.rank();
  g.m = ta ? a.dim(ra - 1) : a.dim(ra - 2);
  g.k = ta ? a.dim(ra - 2) : a.dim(ra - 1);
  int64_t kb = tb ? b.dim(rb - 1) : b.dim(rb - 2);
  g.n = tb ? b.dim(rb - 2) : b.dim(rb - 1);
  if (g.k != kb) return InvalidArgument("matmul: inner dimensions differ: a is {}, b is {}", a.ToString(), b.ToString());
  std::vector<int64_t> a_batch(a.dims().begin(), a.dims().end() - 2), b_batch(b.dims().begin(), b.dims().end() - 2);
  int64_t na = Product(a.dims(), 2), nb = Product(b.dims(), 2);
  if (a_batch == b_batch || nb == 1) {
    g.out_dims = a_batch;
  } else if (na == 1) {
    g.out_dims = b_batch;
  } else {
    return Unimplemented("matmul on a GPU: batch dimensions of {} and {} that broadcast against each other are not "
                         "supported yet",
                         a.ToString(), b.ToString());
  }
  g.batch = std::max(na, nb);
  g.stride_a = na == 1 ? 0 : g.m * g.k;
  g.stride_b = nb == 1 ? 0 : g.k * g.n;
  g.out_dims.push_back(g.m);
  g.out_dims.push_back(g.n);
  return g;
}

Status RunGemm(CudaDevice& dev, DType dtype, const Gemm& g, const void* a, const void* b, void* c) {
  const cublasOperation_t op_a = g.ta ? CUBLAS_OP_T : CUBLAS_OP_N, op_b = g.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  // Leading dimensions of the row-major operands as stored.
  const int lda = static_cast<int>(g.ta ? g.m : g.k), ldb = static_cast<int>(g.tb ? g.k : g.n);
  const int m = static_cast<int>(g.m), n = static_cast<int>(g.n), k = static_cast<int>(g.k);
  const int batch = static_cast<int>(g.batch);
  std::lock_guard<std::mutex> lock(dev.cublas_mutex());
  TFG_ASSIGN_OR_RETURN(CudaDevice::Cublas blas, dev.cublas());
  cublasStatus_t st = CUBLAS_STATUS_NOT_SUPPORTED;
  if (dtype == DType::kF32) {
    const float one = 1, zero = 0;
    st = blas.api->sgemm_strided_batched(blas.handle, op_b, op_a, n, m, k, &one, static_cast<const float*>(b),
                                         ldb, g.stride_b, static_cast<const float*>(a), lda, g.stride_a, &zero,
                                         static_cast<float*>(c), n, g.m * g.n, batch);
  } else if (dtype == DType::kF64) {
    const double one = 1, zero = 0;
    st = blas.api->dgemm_strided_batched(blas.handle, op_b, op_a, n, m, k, &one, static_cast<const double*>(b),
                                         ldb, g.stride_b, static_cast<const double*>(a), lda, g.stride_a, &zero,
                                         static_cast<double*>(c), n, g.m * g.n, batch);
  } else if (dtype == DType::kF16) {
    const float one = 1, zero = 0;  // f16 storage, f32 accumulation
    st = blas.api->gemm_strided_batched_ex(blas.handle, op_b, op_a, n, m, k, &one, b, CUDA_R_16F, ldb, g.stride_b,
                                           a, CUDA_R_16F, lda, g.stride_a, &zero, c, CUDA_R_16F, n, g.m * g.n,
                                           batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (st != CUBLAS_STATUS_SUCCESS) return CublasError(st, "matmul");
  return Status::OK();
}

class MatMulKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const bool* ta = c.attr<bool>("transpose_a");
    const bool* tb = c.attr<bool>("transpose_b");
    transpose_a_ = ta && *ta;
    transpose_b_ = tb && *tb;
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(Gemm g, PlanGemm(a.shape(), b.shape(), transpose_a_, transpose_b_));
    TFG_ASSIGN_OR_RETURN(Tensor * c, ctx.allocate_output(0, TensorShape(g.out_dims)));
    if (c->num_elements() == 0) return Status::OK();
    if (g.k == 0) {
      // An empty sum: cuBLAS would leave C unset.
      TFG_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(c->raw_data(), 0, c->bytes(), dev.compute_stream()));
      return Status::OK();
    }
    return RunGemm(dev, a.dtype(), g, a.raw_data(), b.raw_data(), c->raw_data());
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

TFG_REGISTER_KERNEL(KernelDef("matmul", DeviceType::kGpu)
                        .TypeConstraint({DType::kF16, DType::kF32, DType::kF64})
                        .Create<MatMulKernel>());

}  // namespace matmul_cuda_impl
}  // namespace tfg
