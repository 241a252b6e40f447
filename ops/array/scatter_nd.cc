// scatter_nd(indices, updates, shape): tf.scatter_nd. A tensor of shape
// `shape` (a 1-D int input) that is zero except where the slices of
// `updates` are added at the index tuples of `indices` (shape [..., d],
// d <= len(shape)); repeated tuples add up. updates.shape must be
// indices.shape[:-1] + shape[d:]. An index out of range is an error.
#include <string>
#include <vector>

#include "ops/array/array_util.h"
#include "ops/array/gather_nd.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"

namespace tfg::array::scatter_nd {
namespace {

constexpr const char* kOp = "scatter_nd";

// The output shape held by the `shape` input.
Result<TensorShape> OutputShapeOf(const Tensor& shape) {
  if (shape.rank() != 1) {
    return InvalidArgument("{}: shape must be a 1-D tensor, got a tensor of shape {}", kOp, shape.shape().ToString());
  }
  std::vector<int64_t> dims(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < dims.size(); ++i) {
    dims[i] = shape.dtype() == DType::kI32 ? static_cast<int64_t>(shape.data<int32_t>()[i]) : shape.data<int64_t>()[i];
  }
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("{}: shape {} has a negative dimension", kOp, IntListToString(dims));
  }
  if (dims.empty()) return InvalidArgument("{}: shape must have at least one dimension, got []", kOp);
  return TensorShape(dims);
}

Status DepthError(const PartialShape& indices, const PartialShape& shape, int64_t depth) {
  return InvalidArgument(
      "{}: indices {} have index depth {} (their last dimension) but the output shape {} has rank {}", kOp,
      indices.ToString(), depth, shape.ToString(), shape.rank());
}

Status UpdatesShapeError(const std::string& updates, const std::string& indices, const std::string& shape,
                         const std::string& expected) {
  return InvalidArgument("{}: updates have shape {} but indices {} into output shape {} need updates of shape {}", kOp,
                         updates, indices, shape, expected);
}

Status ScatterNdShapeFn(ShapeContext& c) {
  const PartialShape& indices = c.input(0);
  const PartialShape& updates = c.input(1);
  const PartialShape& shape_in = c.input(2);
  if (indices.known_rank() && indices.rank() == 0) {
    return InvalidArgument("{}: indices must have rank >= 1, got a scalar", kOp);
  }
  if (shape_in.known_rank() && shape_in.rank() != 1) {
    return InvalidArgument("{}: shape must be a 1-D tensor, got a tensor of shape {}", kOp, shape_in.ToString());
  }
  PartialShape out = PartialShape::Unknown();
  if (const Tensor* value = c.input_value(2); value != nullptr) {
    TFG_ASSIGN_OR_RETURN(TensorShape s, OutputShapeOf(*value));
    out = PartialShape(s);
  } else if (shape_in.known_rank() && shape_in.dim(0) >= 0) {
    if (shape_in.dim(0) == 0) return InvalidArgument("{}: shape must have at least one dimension, got []", kOp);
    TFG_ASSIGN_OR_RETURN(int rank, checked::Rank(kOp, "the length of shape", shape_in.dim(0)));
    out = PartialShape::UnknownOfRank(rank);
  }
  if (indices.known_rank() && out.known_rank() && indices.dim(indices.rank() - 1) >= 0) {
    const int64_t depth = indices.dim(indices.rank() - 1);
    if (depth > out.rank()) return DepthError(indices, out, depth);
    const PartialShape expected(NdSlicesDims(indices.dims(), out.dims(), depth));
    if (updates.known_rank()) {
      if (!expected.CompatibleWith(updates)) {
        return UpdatesShapeError(updates.ToString(), indices.ToString(), out.ToString(), expected.ToString());
      }
      // The output's trailing dimensions are the updates' slice dimensions.
      std::vector<int64_t> dims = out.dims();
      for (int k = static_cast<int>(depth); k < out.rank(); ++k) {
        if (dims[k] == PartialShape::kUnknown) dims[k] = updates.dim(indices.rank() - 1 + k - static_cast<int>(depth));
      }
      out = PartialShape(dims);
    }
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

// out[slices[t] * width + k] += updates[t * width + k]. Threads own
// disjoint column ranges of the slices, so repeated tuples never race.
template <typename T>
void AccumulateNdSlices(const OpKernelContext& ctx, const std::vector<int64_t>& slices, const T* updates,
                        int64_t width, int64_t total, T* out) {
  std::fill(out, out + total, T(0));
  const int64_t n = static_cast<int64_t>(slices.size());
  if (width == 0 || n == 0) return;
  ctx.ParallelFor(width, n + 1, [&](int64_t s, int64_t e) {
    for (int64_t t = 0; t < n; ++t) {
      T* dst = out + slices[t] * width;
      const T* src = updates + t * width;
      for (int64_t k = s; k < e; ++k) dst[k] = functor::WrapAdd(dst[k], src[k]);
    }
  });
}

class ScatterNdKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& indices = ctx.input(0);
    const Tensor& updates = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(TensorShape shape, OutputShapeOf(ctx.input(2)));
    if (indices.rank() == 0) return InvalidArgument("{}: indices must have rank >= 1, got a scalar", kOp);
    const int64_t depth = indices.dim(indices.rank() - 1);
    if (depth > shape.rank()) return DepthError(indices.shape(), shape, depth);
    const TensorShape expected(NdSlicesDims(indices.shape().dims(), shape.dims(), depth));
    if (updates.shape() != expected) {
      return UpdatesShapeError(updates.shape().ToString(), indices.shape().ToString(), shape.ToString(),
                               expected.ToString());
    }
    const int64_t n = DimProduct(indices.shape().dims(), 0, indices.rank() - 1);
    if (n > 0 && shape.num_elements() == 0) {
      return InvalidArgument("{}: {} index tuples given for an empty output of shape {}", kOp, n, shape.ToString());
    }
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> slices,
                         NdSliceNumbers(kOp, indices, shape.dims(), "output shape " + shape.ToString()));
    const int64_t width = DimProduct(shape.dims(), static_cast<int>(depth), shape.rank());
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape));
    bool ok = TFG_DISPATCH_NUMBER(updates.dtype(), T,
                                  (AccumulateNdSlices<T>(ctx, slices, updates.data<T>(), width,
                                                         shape.num_elements(), out->data<T>())));
    if (!ok) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(updates.dtype()));
    return Status::OK();
  }
};

// scatter_nd is linear in updates; its adjoint is gather_nd (TensorFlow's
// _ScatterNdGrad). indices and shape get none.
Status ScatterNdGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[1], g.Op("gather_nd", {dy, g.input(0)}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("indices", "Tindices")
                    .Input("updates", "T")
                    .Input("shape", "Tshape")
                    .Output("output", "T")
                    .TypeAttr("T", NumberTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .TypeAttr("Tshape", {DType::kI32, DType::kI64})
                    .SetShapeFn(ScatterNdShapeFn)
                    .SetGradFn(ScatterNdGrad)
                    .Doc("tf.scatter_nd: zeros of shape `shape` (a 1-D int tensor) with the slices of `updates` "
                         "added at the index tuples of `indices` (shape [..., d], d <= len(shape)); repeated "
                         "tuples add up. updates.shape must be indices.shape[:-1] + shape[d:]. An index out of "
                         "range is an error. Gradient: gather_nd(dy, indices) for updates."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<ScatterNdKernel>());

}  // namespace tfg::array::scatter_nd
