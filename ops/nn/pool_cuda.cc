// GPU kernels of max_pool, avg_pool, max_pool_grad and avg_pool_grad (f32,
// f64): the host side of ops/nn/pool_cuda.cu. Written directly rather than
// through cuDNN, whose symmetric padding cannot express TensorFlow's SAME
// padding with the extra row or column after. max_pool_grad_grad runs on
// the CPU.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/nn/pool_cuda.h"
#include "ops/nn/window.h"

namespace tfg {
namespace pool_cuda_impl {

template <cuda::PoolOp kOp>
class PoolKernel final : public CudaOpKernel {
  static constexpr bool kGrad = kOp == cuda::PoolOp::kMaxGrad || kOp == cuda::PoolOp::kAvgGrad;

 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, nn::ReadWindowAttrs(c.op->name, *c.attrs));
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const std::string& op = ctx.info().op->name;
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(nn::Geometry g, nn::ComputeGeometry(op, x.shape(), attrs_.ksize[0], attrs_.ksize[1], attrs_));
    const TensorShape pooled({g.n, g.oh, g.ow, g.c});
    const void* dy = nullptr;
    if constexpr (kGrad) {
      if (ctx.input(1).shape() != pooled) {
        return InvalidArgument("{}: out_backprop has shape {} but pooling {} gives {}", op,
                               ctx.input(1).shape().ToString(), x.shape().ToString(), pooled.ToString());
      }
      dy = ctx.input(1).raw_data();
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, kGrad ? x.shape() : pooled));
    const cuda::PoolGeometry pg{g.n, g.h, g.w, g.c, g.kh, g.kw, g.sh, g.sw, g.oh, g.ow, g.pad_top, g.pad_left};
    TFG_CUDA_RETURN_IF_ERROR(
        cuda::LaunchPool(kOp, x.dtype(), pg, x.raw_data(), dy, out->raw_data(), dev.compute_stream()));
    return Status::OK();
  }

 private:
  nn::WindowAttrs attrs_;
};

const DTypeSet kFloats = {DType::kF32, DType::kF64};

TFG_REGISTER_KERNEL(KernelDef("max_pool", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kMaxForward>>());
TFG_REGISTER_KERNEL(KernelDef("avg_pool", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kAvgForward>>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_grad", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kMaxGrad>>());
TFG_REGISTER_KERNEL(KernelDef("avg_pool_grad", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kAvgGrad>>());

}  // namespace pool_cuda_impl
}  // namespace tfg
