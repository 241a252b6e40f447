// GPU kernels of sparse_softmax_cross_entropy, softmax_cross_entropy_with_logits
// and their _grad helpers (f32, f64): the host side of
// ops/nn/cross_entropy_cuda.cu. Shapes are checked as the CPU kernels check
// them; sparse labels are not (they are in device memory): a label out of
// range gives NaN instead of the CPU's error.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/nn/cross_entropy_cuda.h"

namespace tfg {
namespace cross_entropy_cuda_impl {

// logits [..., classes] against labels of shape logits.shape[:-1] (sparse)
// or logits.shape (dense); fills in everything but the pointers' targets.
Result<cuda::CrossEntropyArgs> CheckedArgs(const OpKernelContext& ctx, bool sparse) {
  const std::string& op = ctx.info().op->name;
  const Tensor& logits = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (logits.rank() < 1) return InvalidArgument("{}: logits must have rank >= 1 [..., classes], got a scalar", op);
  const std::vector<int64_t>& dims = logits.shape().dims();
  const TensorShape rows_shape(std::vector<int64_t>(dims.begin(), dims.end() - 1));
  if (labels.shape() != (sparse ? rows_shape : logits.shape())) {
    return InvalidArgument("{}: labels must have shape {}: logits {}, labels {}", op,
                           sparse ? "logits.shape[:-1]" : "the shape of logits", logits.shape().ToString(),
                           labels.shape().ToString());
  }
  cuda::CrossEntropyArgs a;
  a.sparse = sparse;
  a.dtype = logits.dtype();
  a.label_dtype = labels.dtype();
  a.logits = logits.raw_data();
  a.labels = labels.raw_data();
  a.rows = rows_shape.num_elements();
  a.classes = dims.back();
  return a;
}

TensorShape RowsShape(const Tensor& logits) {
  const std::vector<int64_t>& dims = logits.shape().dims();
  return TensorShape(std::vector<int64_t>(dims.begin(), dims.end() - 1));
}

template <bool kSparse>
class LossKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    TFG_ASSIGN_OR_RETURN(cuda::CrossEntropyArgs args, CheckedArgs(ctx, kSparse));
    TFG_ASSIGN_OR_RETURN(Tensor * loss, ctx.allocate_output(0, RowsShape(ctx.input(0))));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchCrossEntropy(args, loss->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

template <bool kSparse>
class GradKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    TFG_ASSIGN_OR_RETURN(cuda::CrossEntropyArgs args, CheckedArgs(ctx, kSparse));
    const Tensor& logits = ctx.input(0);
    const Tensor& dloss = ctx.input(2);
    if (dloss.shape() != RowsShape(logits)) {
      return InvalidArgument("{}: dloss has shape {} but logits {} give losses of shape {}", ctx.info().op->name,
                             dloss.shape().ToString(), logits.shape().ToString(), RowsShape(logits).ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * dlogits, ctx.allocate_output(0, logits.shape()));
    TFG_CUDA_RETURN_IF_ERROR(
        cuda::LaunchCrossEntropyGrad(args, dloss.raw_data(), dlogits->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

const DTypeSet kFloats = {DType::kF32, DType::kF64};

TFG_REGISTER_KERNEL(KernelDef("sparse_softmax_cross_entropy", DeviceType::kGpu)
                        .TypeConstraint(kFloats, "T")
                        .Create<LossKernel<true>>());
TFG_REGISTER_KERNEL(KernelDef("sparse_softmax_cross_entropy_grad", DeviceType::kGpu)
                        .TypeConstraint(kFloats, "T")
                        .Create<GradKernel<true>>());
TFG_REGISTER_KERNEL(KernelDef("softmax_cross_entropy_with_logits", DeviceType::kGpu)
                        .TypeConstraint(kFloats, "T")
                        .Create<LossKernel<false>>());
TFG_REGISTER_KERNEL(KernelDef("softmax_cross_entropy_grad", DeviceType::kGpu)
                        .TypeConstraint(kFloats, "T")
                        .Create<GradKernel<false>>());

}  // namespace cross_entropy_cuda_impl
}  // namespace tfg
