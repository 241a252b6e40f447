// GPU kernels of gather (every dtype but string) and gather_grad (f32,
// f64, i32, i64): the host side of ops/array/gather_cuda.cu. Shapes are
// checked by ops/array/gather.h, as on the CPU; indices are not (they are
// in device memory): an index out of range gathers zeros, and adds nothing
// in gather_grad, where the CPU kernels fail.
#include "devices/cuda/cuda_kernel.h"
#include "ops/array/array_util.h"
#include "ops/array/gather.h"
#include "ops/array/gather_cuda.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace array::gather_cuda {

cuda::GatherArgs Args(const array::GatherLayout& l, const Tensor& indices) {
  cuda::GatherArgs a;
  a.outer = l.outer;
  a.limit = l.limit;
  a.inner = l.inner;
  a.n = indices.num_elements();
  a.index_dtype = indices.dtype();
  a.indices = indices.raw_data();
  return a;
}

class AxisKernel : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(axis_, array::RequiredAttr<int64_t>(*c.attrs, c.op->name, "axis"));
    return Status::OK();
  }

 protected:
  int64_t axis_ = 0;
};

class GatherKernel final : public AxisKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(array::GatherLayout l, array::GatherLayoutOf(params.shape(), indices.shape(), axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, l.gathered));
    const int size = static_cast<int>(DTypeSize(params.dtype()));
    TFG_CUDA_RETURN_IF_ERROR(
        cuda::LaunchGather(Args(l, indices), size, params.raw_data(), out->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

class GatherGradKernel final : public AxisKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& values = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& params = ctx.input(2);
    TFG_ASSIGN_OR_RETURN(array::GatherLayout l,
                         array::GatherGradLayoutOf(values.shape(), indices.shape(), params.shape(), axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, params.shape()));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchGatherGrad(Args(l, indices), values.dtype(), values.raw_data(),
                                                    out->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

TFG_REGISTER_KERNEL(KernelDef("gather", DeviceType::kGpu).TypeConstraint(RealTypes(), "T").Create<GatherKernel>());
TFG_REGISTER_KERNEL(KernelDef("gather_grad", DeviceType::kGpu)
                        .TypeConstraint({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, "T")
                        .Create<GatherGradKernel>());

}  // namespace array::gather_cuda
}  // namespace tfg
