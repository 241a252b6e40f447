// GPU kernels of sum, mean, max, min (f32, f64) and softmax, log_softmax
// (f32, f64): the host side of ops/math/reduce_cuda.cu. Reductions over
// axes that are not next to each other (e.g. axes 0 and 2 of a rank-3
// input) are not supported on the GPU yet.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/math/reduce_cuda.h"
#include "ops/math/reduction.h"
#include "ops/math/softmax.h"

namespace tfg {
namespace math::reduce_cuda {

template <cuda::ReduceOp kOp>
class ReduceKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = ReadReductionAttrs(*c.attrs);
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(ReductionPlan plan, PlanReduction(op, attrs_, x.shape()));
    const ReductionLayout& l = plan.layout;
    // Over an empty set the kernel writes its starting value: -inf for max,
    // +inf for min, 0 for sum and 0/0 = NaN for mean, as TensorFlow does.
    if (!l.simple) {
      return Unimplemented("{} on a GPU over axes that are not adjacent (input shape {}) is not supported yet", op,
                           x.shape().ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, plan.out));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchReduce(kOp, x.dtype(), x.raw_data(), y->raw_data(), l.outer, l.reduce,
                                                l.inner, dev.compute_stream()));
    return Status::OK();
  }

 private:
  ReductionAttrs attrs_;
};

template <bool kLog>
class SoftmaxKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    axis_ = SoftmaxAxisAttr(*c.attrs);
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(SoftmaxLayout l, MakeSoftmaxLayout(ctx.info().op->name, x.shape(), axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.shape()));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchSoftmax(kLog, x.dtype(), x.raw_data(), y->raw_data(), l.outer, l.n, l.inner,
                                                 dev.compute_stream()));
    return Status::OK();
  }

 private:
  int64_t axis_ = -1;
};

const DTypeSet kFloats = {DType::kF32, DType::kF64};

TFG_REGISTER_KERNEL(KernelDef("sum", DeviceType::kGpu).TypeConstraint(kFloats).Create<ReduceKernel<cuda::ReduceOp::kSum>>());
TFG_REGISTER_KERNEL(KernelDef("mean", DeviceType::kGpu).TypeConstraint(kFloats).Create<ReduceKernel<cuda::ReduceOp::kMean>>());
TFG_REGISTER_KERNEL(KernelDef("max", DeviceType::kGpu).TypeConstraint(kFloats).Create<ReduceKernel<cuda::ReduceOp::kMax>>());
TFG_REGISTER_KERNEL(KernelDef("min", DeviceType::kGpu).TypeConstraint(kFloats).Create<ReduceKernel<cuda::ReduceOp::kMin>>());
TFG_REGISTER_KERNEL(KernelDef("softmax", DeviceType::kGpu).TypeConstraint(kFloats).Create<SoftmaxKernel<false>>());
TFG_REGISTER_KERNEL(KernelDef("log_softmax", DeviceType::kGpu).TypeConstraint(kFloats).Create<SoftmaxKernel<true>>());

}  // namespace math::reduce_cuda
}  // namespace tfg
