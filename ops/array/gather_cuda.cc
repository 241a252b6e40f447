// GPU kernels of gather (every dtype but string) and gather_grad (f32,
// f64, i32, i64): the host side of ops/array/gather_cuda.cu. Shapes are
// checked as on the CPU; indices are not (they are in device memory): an
// index out of range gathers zeros, and adds nothing in gather_grad,
// where the CPU kernels fail.
#include "devices/cuda/cuda_kernel.h"
#include "ops/array/array_util.h"
#include "ops/array/gather_cuda.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace gather_cuda_impl {

// params[:axis] + indices.shape + params[axis+1:].
std::vector<int64_t> GatheredDims(const Tensor& params, const Tensor& indices, int ax) {
  const std::vector<int64_t>& pdims = params.shape().dims();
  std::vector<int64_t> dims(pdims.begin(), pdims.begin() + ax);
  dims.insert(dims.end(), indices.shape().dims().begin(), indices.shape().dims().end());
  dims.insert(dims.end(), pdims.begin() + ax + 1, pdims.end());
  return dims;
}

Result<int> AxisOf(const std::string& op, const Tensor& params, int64_t axis) {
  if (params.rank() == 0) return InvalidArgument("{}: params must have rank >= 1, got a scalar", op);
  return array::NormalizeAxis(op, axis, params.rank());
}

cuda::GatherArgs Layout(const Tensor& params, const Tensor& indices, int ax) {
  const std::vector<int64_t>& pdims = params.shape().dims();
  cuda::GatherArgs a;
  a.outer = array::DimProduct(pdims, 0, ax);
  a.limit = params.dim(ax);
  a.inner = array::DimProduct(pdims, ax + 1, params.rank());
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
    TFG_ASSIGN_OR_RETURN(int ax, AxisOf("gather", params, axis_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(GatheredDims(params, indices, ax))));
    const int size = static_cast<int>(DTypeSize(params.dtype()));
    TFG_CUDA_RETURN_IF_ERROR(
        cuda::LaunchGather(Layout(params, indices, ax), size, params.raw_data(), out->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

class GatherGradKernel final : public AxisKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& values = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& params = ctx.input(2);
    TFG_ASSIGN_OR_RETURN(int ax, AxisOf("gather_grad", params, axis_));
    const TensorShape expected(GatheredDims(params, indices, ax));
    if (values.shape() != expected) {
      return InvalidArgument("gather_grad: values have shape {} but gathering indices {} from params {} gives {}",
                             values.shape().ToString(), indices.shape().ToString(), params.shape().ToString(),
                             expected.ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, params.shape()));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchGatherGrad(Layout(params, indices, ax), values.dtype(), values.raw_data(),
                                                    out->raw_data(), dev.compute_stream()));
    return Status::OK();
  }
};

TFG_REGISTER_KERNEL(KernelDef("gather", DeviceType::kGpu).TypeConstraint(RealTypes(), "T").Create<GatherKernel>());
TFG_REGISTER_KERNEL(KernelDef("gather_grad", DeviceType::kGpu)
                        .TypeConstraint({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, "T")
                        .Create<GatherGradKernel>());

}  // namespace gather_cuda_impl
}  // namespace tfg
