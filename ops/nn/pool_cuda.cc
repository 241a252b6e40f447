// GPU kernels of max_pool, avg_pool, max_pool_grad and avg_pool_grad (f32,
// f64): the host side of ops/nn/pool_cuda.cu. Written directly rather than
// through cuDNN, whose symmetric padding cannot express TensorFlow's SAME
// padding with the extra row or column after. Operands are checked by
// ops/nn/pool.h, as on the CPU. max_pool_grad_grad runs on the CPU.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/nn/pool.h"
#include "ops/nn/pool_cuda.h"

namespace tfg {
namespace nn::pool_cuda {

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
    const Tensor& x = ctx.input(0);
    const TensorShape* dy_shape = kGrad ? &ctx.input(1).shape() : nullptr;
    TFG_ASSIGN_OR_RETURN(nn::PoolRun run, Plan(ctx.info().op->name, x.shape(), dy_shape));
    const nn::Geometry& g = run.g;
    const void* dy = kGrad ? ctx.input(1).raw_data() : nullptr;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
    const cuda::PoolGeometry pg{g.n, g.h, g.w, g.c, g.kh, g.kw, g.sh, g.sw, g.oh, g.ow, g.pad_top, g.pad_left};
    TFG_CUDA_RETURN_IF_ERROR(
        cuda::LaunchPool(kOp, x.dtype(), pg, x.raw_data(), dy, out->raw_data(), dev.compute_stream()));
    return Status::OK();
  }

 private:
  // Each pool's own checks: max_pool_grad and avg_pool_grad word a bad
  // out_backprop differently.
  Result<nn::PoolRun> Plan(std::string_view op, const TensorShape& x, const TensorShape* dy) const {
    switch (kOp) {
      case cuda::PoolOp::kMaxForward: return nn::PlanMaxPool(op, nn::MaxPoolMode::kForward, attrs_, x, nullptr);
      case cuda::PoolOp::kMaxGrad: return nn::PlanMaxPool(op, nn::MaxPoolMode::kGrad, attrs_, x, dy);
      case cuda::PoolOp::kAvgForward:
      case cuda::PoolOp::kAvgGrad: return nn::PlanAvgPool(op, attrs_, x, dy);
    }
    return Internal("{}: no pool plan", op);
  }

  nn::WindowAttrs attrs_;
};

const DTypeSet kFloats = {DType::kF32, DType::kF64};

TFG_REGISTER_KERNEL(KernelDef("max_pool", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kMaxForward>>());
TFG_REGISTER_KERNEL(KernelDef("avg_pool", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kAvgForward>>());
TFG_REGISTER_KERNEL(KernelDef("max_pool_grad", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kMaxGrad>>());
TFG_REGISTER_KERNEL(KernelDef("avg_pool_grad", DeviceType::kGpu).TypeConstraint(kFloats, "T").Create<PoolKernel<cuda::PoolOp::kAvgGrad>>());

}  // namespace nn::pool_cuda
}  // namespace tfg
