// GPU kernels of bias_add (f32, f64, i32, i64) and bias_add_grad (f32,
// f64), with no device code of their own: bias_add is the elementwise add
// of ops/math/cwise_cuda.cu with the bias broadcast along the rows, and
// bias_add_grad the column sum of ops/math/reduce_cuda.cu. Operands are
// checked by ops/nn/bias_add.h, as on the CPU.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_cuda.h"
#include "ops/math/reduce_cuda.h"
#include "ops/nn/bias_add.h"

namespace tfg {
namespace nn::bias_add_cuda {

class BiasAddKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& bias = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(nn::BiasAddRows l, nn::BiasAddLayout(x.shape(), bias.shape()));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    const int64_t c = l.channels;
    // [rows, c] + [c]: the bias stays put along the rows.
    cuda::BroadcastIndex index;
    index.rank = 2;
    index.dims[0] = l.rows;
    index.dims[1] = c;
    index.x_strides[0] = c;
    index.x_strides[1] = 1;
    index.y_strides[0] = 0;
    index.y_strides[1] = 1;
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchBinary(cuda::BinaryOp::kAdd, x.dtype(), x.raw_data(), bias.raw_data(),
                                                out->raw_data(), out->num_elements(), index, dev.compute_stream()));
    return Status::OK();
  }
};

class BiasAddGradKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& dy = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(nn::BiasAddRows l, nn::BiasAddGradLayout(dy.shape()));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({l.channels})));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchReduce(cuda::ReduceOp::kSum, dy.dtype(), dy.raw_data(), out->raw_data(),
                                                /*outer=*/1, l.rows, /*inner=*/l.channels, dev.compute_stream()));
    return Status::OK();
  }
};

TFG_REGISTER_KERNEL(KernelDef("bias_add", DeviceType::kGpu)
                        .TypeConstraint({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, "T")
                        .Create<BiasAddKernel>());
TFG_REGISTER_KERNEL(KernelDef("bias_add_grad", DeviceType::kGpu)
                        .TypeConstraint({DType::kF32, DType::kF64}, "T")
                        .Create<BiasAddGradKernel>());

}  // namespace nn::bias_add_cuda
}  // namespace tfg
