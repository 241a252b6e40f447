// GPU kernels of sparse_softmax_cross_entropy, softmax_cross_entropy_with_logits
// and their _grad helpers (f32, f64): the host side of
// ops/nn/cross_entropy_cuda.cu. Shapes are checked by ops/nn/cross_entropy.h,
// as on the CPU; sparse labels are not (they are in device memory): a label
// out of range gives NaN instead of the CPU's error.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/nn/cross_entropy.h"
#include "ops/nn/cross_entropy_cuda.h"

namespace tfg {
namespace nn::cross_entropy_cuda {

// The operands' rows, checked, with the pointers of the launch.
struct Checked {
  nn::CrossEntropyRows rows;
  cuda::CrossEntropyArgs args;
};

Result<Checked> CheckedArgs(const OpKernelContext& ctx, bool sparse) {
  const std::string& op = ctx.info().op->name;
  const Tensor& logits = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  Checked c;
  TFG_ASSIGN_OR_RETURN(c.rows, sparse ? nn::SparseCrossEntropyRows(op, logits.shape(), labels.shape())
                                      : nn::DenseCrossEntropyRows(op, logits.shape(), labels.shape()));
  c.args.sparse = sparse;
  c.args.dtype = logits.dtype();
  c.args.label_dtype = labels.dtype();
  c.args.logits = logits.raw_data();
  c.args.labels = labels.raw_data();
  c.args.rows = c.rows.rows;
  c.args.classes = c.rows.classes;
  return c;
}

Status CheckDloss(const OpKernelContext& ctx, bool sparse) {
  const std::string& op = ctx.info().op->name;
  const TensorShape& dloss = ctx.input(2).shape();
  return sparse ? nn::CheckSparseCrossEntropyDloss(op, ctx.input(1).shape(), dloss)
                : nn::CheckDenseCrossEntropyDloss(op, ctx.input(0).shape(), dloss);
}

template <bool kSparse>
class LossKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    TFG_ASSIGN_OR_RETURN(Checked c, CheckedArgs(ctx, kSparse));
    const cuda::CrossEntropyArgs& args = c.args;
    TFG_ASSIGN_OR_RETURN(Tensor * loss, ctx.allocate_output(0, c.rows.loss));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchCrossEntropy(args, loss->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

template <bool kSparse>
class GradKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    TFG_ASSIGN_OR_RETURN(Checked c, CheckedArgs(ctx, kSparse));
    const cuda::CrossEntropyArgs& args = c.args;
    TFG_RETURN_IF_ERROR(CheckDloss(ctx, kSparse));
    const Tensor& logits = ctx.input(0);
    const Tensor& dloss = ctx.input(2);
    TFG_ASSIGN_OR_RETURN(Tensor * dlogits, ctx.allocate_output(0, logits.shape()));
    // Nothing to write; and without classes, dense dloss holds no values
    // (see nn::CheckDenseCrossEntropyDloss) for the kernel to read per row.
    if (dlogits->num_elements() == 0) return Status::OK();
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

}  // namespace nn::cross_entropy_cuda
}  // namespace tfg
