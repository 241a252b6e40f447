// GPU kernels of sum, mean, max, min (f32, f64) and softmax, log_softmax
// (f32, f64): the host side of ops/math/reduce_cuda.cu. Reductions over
// axes that are not next to each other (e.g. axes 0 and 2 of a rank-3
// input) are not supported on the GPU yet.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/math/reduce_cuda.h"
#include "ops/math/reduction.h"

namespace tfg {
namespace reduce_cuda_impl {

template <cuda::ReduceOp kOp>
class ReduceKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    auto it = c.attrs->find("axis");
    if (it != c.attrs->end()) axis_ = it->second;
    const bool* keep = c.attr<bool>("keepdims");
    keepdims_ = keep && *keep;
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReductionAxes(op, &axis_, PartialShape(x.shape())));
    TensorShape out_shape(ReducedDims(x.shape().dims(), reduced, keepdims_));
    const ReductionLayout l = MakeReductionLayout(x.shape(), reduced);
    bool is_extremum = kOp == cuda::ReduceOp::kMax || kOp == cuda::ReduceOp::kMin;
    if (l.reduce_count == 0 && is_extremum && out_shape.num_elements() > 0) {
      return InvalidArgument("{}: cannot reduce an empty set of {} values (input shape {})", op,
                             DTypeName(x.dtype()), x.shape().ToString());
    }
    if (!l.simple) {
      return Unimplemented("{} on a GPU over axes that are not adjacent (input shape {}) is not supported yet", op,
                           x.shape().ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, out_shape));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchReduce(kOp, x.dtype(), x.raw_data(), y->raw_data(), l.outer, l.reduce,
                                                l.inner, dev.compute_stream()));
    return Status::OK();
  }

 private:
  AttrValue axis_ = AttrValue(std::monostate{});
  bool keepdims_ = false;
};

template <bool kLog>
class SoftmaxKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const int64_t* axis = c.attr<int64_t>("axis");
    axis_ = axis ? *axis : -1;
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    const int rank = x.rank();
    if (rank == 0 || axis_ < -rank || axis_ >= rank) {
      return InvalidArgument("{}: axis {} is out of range for input shape {}", ctx.info().op->name, axis_,
                             x.shape().ToString());
    }
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int d = axis + 1; d < rank; ++d) inner *= x.dim(d);
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.shape()));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchSoftmax(kLog, x.dtype(), x.raw_data(), y->raw_data(), outer, x.dim(axis),
                                                 inner, dev.compute_stream()));
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

}  // namespace reduce_cuda_impl
}  // namespace tfg
