// matmul on the GPU through cuBLAS (loaded at the first GPU matmul, see
// devices/cuda/cublas_library.h): f32, f64, and f16 with f32
// accumulation. Batches are one strided-batched call; a side without batch
// dimensions (or with a batch of 1) is reused for every batch (stride 0).
// Other batch broadcasts (e.g. [2, 1, m, k] @ [3, k, n]) are not supported
// on the GPU yet. Operands are checked by ops/math/matmul.h, as on the CPU.
//
// cuBLAS is column-major: a row-major C = A B is computed as the
// column-major C^T = B^T A^T, i.e. with the operands swapped.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/math/matmul.h"

namespace tfg {
namespace math::matmul_cuda {

struct Gemm {
  int64_t m, n, k, batch;
  int64_t stride_a, stride_b;  // 0: shared by every batch
  bool ta, tb;
};

// One strided-batched call covers a side whose batch is the whole output
// batch (laid out as it is, since it broadcasts to it) or a single matrix.
Result<Gemm> PlanGemm(const TensorShape& a, const TensorShape& b, const MatMulAttrs& attrs, const MatMulGeometry& d) {
  const int64_t batch = d.out_batch.num_elements();
  const int64_t na = d.a_batch.num_elements(), nb = d.b_batch.num_elements();
  if ((na != batch && na != 1) || (nb != batch && nb != 1)) {
    return Unimplemented("matmul on a GPU: batch dimensions of {} and {} that broadcast against each other are not "
                         "supported yet",
                         a.ToString(), b.ToString());
  }
  Gemm g{};
  g.ta = attrs.transpose_a, g.tb = attrs.transpose_b;
  g.m = d.m, g.n = d.n, g.k = d.k, g.batch = batch;
  g.stride_a = na == 1 ? 0 : g.m * g.k;
  g.stride_b = nb == 1 ? 0 : g.k * g.n;
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
    attrs_ = ReadMatMulAttrs(*c.attrs);
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    const std::string& op = ctx.info().op ? ctx.info().op->name : ctx.info().node_name;
    TFG_ASSIGN_OR_RETURN(MatMulGeometry d, ComputeMatMulGeometry(op, a.shape(), b.shape(), attrs_));
    TFG_ASSIGN_OR_RETURN(Tensor * c, ctx.allocate_output(0, d.out));
    if (c->num_elements() == 0) return Status::OK();
    TFG_ASSIGN_OR_RETURN(Gemm g, PlanGemm(a.shape(), b.shape(), attrs_, d));
    if (g.k == 0) {
      // An empty sum: cuBLAS would leave C unset.
      TFG_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(c->raw_data(), 0, c->bytes(), dev.compute_stream()));
      return Status::OK();
    }
    return RunGemm(dev, a.dtype(), g, a.raw_data(), b.raw_data(), c->raw_data());
  }

 private:
  MatMulAttrs attrs_;
};

TFG_REGISTER_KERNEL(KernelDef("matmul", DeviceType::kGpu)
                        .TypeConstraint({DType::kF16, DType::kF32, DType::kF64})
                        .Create<MatMulKernel>());

}  // namespace math::matmul_cuda
}  // namespace tfg
