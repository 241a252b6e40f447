// GPU kernels of the elementwise ops: the host side (shapes, broadcasting
// layout, output allocation) for the device code in cwise_cuda.cu. f16 and
// the integer forms of div and pow have no GPU kernel yet (they run on the
// CPU). Shapes broadcast through BroadcastForOp (ops/math/cwise_common.h),
// as on the CPU.
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/math/broadcast.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_cuda.h"

namespace tfg {
namespace math::cwise_cuda {

Result<cuda::BroadcastIndex> MakeIndex(const TensorShape& out, const TensorShape& x, const TensorShape& y) {
  cuda::BroadcastIndex index;
  if (x == out && y == out) return index;  // rank 0: flat
  BroadcastPlan plan(out, {&x, &y});
  if (plan.rank() > cuda::BroadcastIndex::kMaxRank) {
    return Unimplemented("broadcasting {} with {} on a GPU: more than {} dimensions after merging is not supported yet",
                         x.ToString(), y.ToString(), cuda::BroadcastIndex::kMaxRank);
  }
  index.rank = plan.rank();
  for (int d = 0; d < plan.rank(); ++d) {
    index.dims[d] = plan.dims()[d];
    index.x_strides[d] = plan.stride(0, d);
    index.y_strides[d] = plan.stride(1, d);
  }
  return index;
}

template <cuda::BinaryOp kOp>
class BinaryKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(TensorShape shape, BroadcastForOp(ctx, x.shape(), y.shape()));
    TFG_ASSIGN_OR_RETURN(cuda::BroadcastIndex index, MakeIndex(shape, x.shape(), y.shape()));
    TFG_ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output(0, shape));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchBinary(kOp, x.dtype(), x.raw_data(), y.raw_data(), z->raw_data(),
                                                z->num_elements(), index, dev.compute_stream()));
    return Status::OK();
  }
};

template <cuda::UnaryOp kOp>
class UnaryKernel final : public CudaOpKernel {
 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.shape()));
    TFG_CUDA_RETURN_IF_ERROR(
        cuda::LaunchUnary(kOp, x.dtype(), x.raw_data(), y->raw_data(), x.num_elements(), dev.compute_stream()));
    return Status::OK();
  }
};

const DTypeSet kFloats = {DType::kF32, DType::kF64};
const DTypeSet kFloatsAndInts = {DType::kF32, DType::kF64, DType::kI32, DType::kI64};

#define TFG_CUDA_BINARY(name, op, types) \
  TFG_REGISTER_KERNEL(KernelDef(name, DeviceType::kGpu).TypeConstraint(types).Create<BinaryKernel<op>>())
TFG_CUDA_BINARY("add", cuda::BinaryOp::kAdd, kFloatsAndInts);
TFG_CUDA_BINARY("sub", cuda::BinaryOp::kSub, kFloatsAndInts);
TFG_CUDA_BINARY("mul", cuda::BinaryOp::kMul, kFloatsAndInts);
TFG_CUDA_BINARY("maximum", cuda::BinaryOp::kMaximum, kFloatsAndInts);
TFG_CUDA_BINARY("minimum", cuda::BinaryOp::kMinimum, kFloatsAndInts);
TFG_CUDA_BINARY("div", cuda::BinaryOp::kDiv, kFloats);
TFG_CUDA_BINARY("pow", cuda::BinaryOp::kPow, kFloats);
TFG_CUDA_BINARY("relu_grad", cuda::BinaryOp::kReluGrad, kFloats);
TFG_CUDA_BINARY("sigmoid_grad", cuda::BinaryOp::kSigmoidGrad, kFloats);
TFG_CUDA_BINARY("tanh_grad", cuda::BinaryOp::kTanhGrad, kFloats);
TFG_CUDA_BINARY("sqrt_grad", cuda::BinaryOp::kSqrtGrad, kFloats);
TFG_CUDA_BINARY("rsqrt_grad", cuda::BinaryOp::kRsqrtGrad, kFloats);
TFG_CUDA_BINARY("atan2", cuda::BinaryOp::kAtan2, kFloats);
#undef TFG_CUDA_BINARY

#define TFG_CUDA_UNARY(name, op) \
  TFG_REGISTER_KERNEL(KernelDef(name, DeviceType::kGpu).TypeConstraint(kFloats).Create<UnaryKernel<op>>())
TFG_CUDA_UNARY("neg", cuda::UnaryOp::kNeg);
TFG_CUDA_UNARY("abs", cuda::UnaryOp::kAbs);
TFG_CUDA_UNARY("square", cuda::UnaryOp::kSquare);
TFG_CUDA_UNARY("relu", cuda::UnaryOp::kRelu);
TFG_CUDA_UNARY("exp", cuda::UnaryOp::kExp);
TFG_CUDA_UNARY("log", cuda::UnaryOp::kLog);
TFG_CUDA_UNARY("sqrt", cuda::UnaryOp::kSqrt);
TFG_CUDA_UNARY("rsqrt", cuda::UnaryOp::kRsqrt);
TFG_CUDA_UNARY("tanh", cuda::UnaryOp::kTanh);
TFG_CUDA_UNARY("sigmoid", cuda::UnaryOp::kSigmoid);
TFG_CUDA_UNARY("sin", cuda::UnaryOp::kSin);
TFG_CUDA_UNARY("cos", cuda::UnaryOp::kCos);
TFG_CUDA_UNARY("erf", cuda::UnaryOp::kErf);
TFG_CUDA_UNARY("erfc", cuda::UnaryOp::kErfc);
TFG_CUDA_UNARY("asin", cuda::UnaryOp::kAsin);
TFG_CUDA_UNARY("acos", cuda::UnaryOp::kAcos);
TFG_CUDA_UNARY("atan", cuda::UnaryOp::kAtan);
TFG_CUDA_UNARY("sinh", cuda::UnaryOp::kSinh);
TFG_CUDA_UNARY("cosh", cuda::UnaryOp::kCosh);
TFG_CUDA_UNARY("tan", cuda::UnaryOp::kTan);
TFG_CUDA_UNARY("selu", cuda::UnaryOp::kSelu);
#undef TFG_CUDA_UNARY

}  // namespace math::cwise_cuda
}  // namespace tfg
