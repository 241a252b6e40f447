// gather_nd(params, indices): tf.gather_nd. indices of shape [..., d]
// (d <= rank(params)) hold index tuples into params' first d dimensions;
// each picks the slice params[i0, ..., id-1, :, ...]. Output shape
// indices.shape[:-1] + params.shape[d:]. An index out of range is an error
// (as TensorFlow's CPU kernel), never a zero fill.
#include "ops/array/gather_nd.h"

#include <string>

#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg::array {

namespace {

template <typename I>
Result<std::vector<int64_t>> NdSliceNumbersOf(std::string_view op, const Tensor& indices,
                                              const std::vector<int64_t>& dims, std::string_view target) {
  const int depth_axis = indices.rank() - 1;
  const int64_t depth = indices.dim(depth_axis);
  const std::vector<int64_t> batch(indices.shape().dims().begin(), indices.shape().dims().end() - 1);
  const int64_t n = DimProduct(batch, 0, static_cast<int>(batch.size()));
  if (depth == 0) {
    // Every tuple is the whole tensor. An empty one has nothing to select,
    // and n may then be any number the shapes allow (2**62 tuples of an
    // empty index): refused, as TensorFlow does, before a vector of n.
    if (n > 0 && DimProduct(dims, 0, static_cast<int>(dims.size())) == 0) {
      return InvalidArgument("{}: {} index tuples select from the empty {}", op, n, target);
    }
    return std::vector<int64_t>(static_cast<size_t>(n), 0);
  }
  // Strides of dims[:depth] in slices.
  std::vector<int64_t> strides(static_cast<size_t>(depth), 1);
  for (int64_t k = depth - 2; k >= 0; --k) strides[k] = strides[k + 1] * dims[k + 1];
  const I* idx = indices.data<I>();
  std::vector<int64_t> out(static_cast<size_t>(n), 0);
  for (int64_t t = 0; t < n; ++t) {
    const I* tuple = idx + t * depth;
    int64_t slice = 0;
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t v = static_cast<int64_t>(tuple[k]);
      if (v < 0 || v >= dims[k]) {
        std::vector<int64_t> pos(batch.size());
        const std::vector<int64_t> batch_strides = RowMajorStrides(batch);
        for (size_t b = 0; b < batch.size(); ++b) pos[b] = (t / batch_strides[b]) % batch[b];
        std::vector<int64_t> values(tuple, tuple + depth);
        return InvalidArgument("{}: index tuple {} at position {} of indices is out of range for {}: entry {} is {}, "
                               "not in [0, {})",
                               op, IntListToString(values), IntListToString(pos), target, k, v, dims[k]);
      }
      slice += v * strides[k];
    }
    out[t] = slice;
  }
  return out;
}

}  // namespace

Result<std::vector<int64_t>> NdSliceNumbers(std::string_view op, const Tensor& indices,
                                            const std::vector<int64_t>& dims, std::string_view target) {
  if (indices.rank() < 1 || indices.dim(indices.rank() - 1) > static_cast<int64_t>(dims.size())) {
    return Internal("{}: indices {} do not fit {}", op, indices.shape().ToString(), target);
  }
  if (indices.dtype() == DType::kI32) return NdSliceNumbersOf<int32_t>(op, indices, dims, target);
  if (indices.dtype() == DType::kI64) return NdSliceNumbersOf<int64_t>(op, indices, dims, target);
  return InvalidArgument("{}: indices must be i32 or i64, got {}", op, DTypeName(indices.dtype()));
}

std::vector<int64_t> NdSlicesDims(const std::vector<int64_t>& indices, const std::vector<int64_t>& dims,
                                  int64_t depth) {
  std::vector<int64_t> out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), dims.begin() + depth, dims.end());
  return out;
}

}  // namespace tfg::array

namespace tfg::array::gather_nd {
namespace {

constexpr const char* kOp = "gather_nd";

// The rank checks the shape function and the kernel share; `params` and
// `indices` have known ranks. Returns the index depth d, or -1 when
// indices' last dimension is unknown.
Result<int64_t> IndexDepth(const PartialShape& params, const PartialShape& indices) {
  if (params.rank() == 0) return InvalidArgument("{}: params must have rank >= 1, got a scalar", kOp);
  if (indices.rank() == 0) return InvalidArgument("{}: indices must have rank >= 1, got a scalar", kOp);
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth > params.rank()) {
    return InvalidArgument("{}: indices {} have index depth {} (their last dimension) but params {} have rank {}",
                           kOp, indices.ToString(), depth, params.ToString(), params.rank());
  }
  return depth;
}

Status GatherNdShapeFn(ShapeContext& c) {
  const PartialShape& params = c.input(0);
  const PartialShape& indices = c.input(1);
  if (params.known_rank() && params.rank() == 0) {
    return InvalidArgument("{}: params must have rank >= 1, got a scalar", kOp);
  }
  if (indices.known_rank() && indices.rank() == 0) {
    return InvalidArgument("{}: indices must have rank >= 1, got a scalar", kOp);
  }
  if (!params.known_rank() || !indices.known_rank() || indices.dim(indices.rank() - 1) < 0) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(int64_t depth, IndexDepth(params, indices));
  c.set_output(0, PartialShape(NdSlicesDims(indices.dims(), params.dims(), depth)));
  return Status::OK();
}

class GatherNdKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(int64_t depth, IndexDepth(PartialShape(params.shape()), PartialShape(indices.shape())));
    const std::vector<int64_t>& pdims = params.shape().dims();
    const TensorShape out_shape(NdSlicesDims(indices.shape().dims(), pdims, depth));
    const int64_t n = DimProduct(indices.shape().dims(), 0, indices.rank() - 1);
    const int64_t slice = DimProduct(pdims, static_cast<int>(depth), params.rank());
    if (n > 0 && params.num_elements() == 0) {
      return InvalidArgument("{}: requested {} index tuples but params {} are empty", kOp, n, params.DebugString());
    }
    // The output first: it bounds the number of tuples the slice numbers
    // below are computed for.
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, out_shape));
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> slices,
                         NdSliceNumbers(kOp, indices, pdims, "params " + params.DebugString()));
    // With no tuples, slice may be a product of dims only an empty params
    // allows (up to 2**63 - 1): no work estimate may be formed from it.
    if (slice == 0 || n == 0) return Status::OK();
    ctx.ParallelFor(n, slice + 20, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        CopyElements(params.dtype(), ElementPtr(*out, t * slice), ElementPtr(params, slices[t] * slice), slice);
      }
    });
    return Status::OK();
  }
};

// TensorFlow's _GatherNdGrad: dparams = scatter_nd(indices, dy, shape(params))
// (repeated index tuples add up); indices get none.
Status GatherNdGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output shape, g.Op("shape", {g.input(0)}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("scatter_nd", {g.input(1), dy, shape}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("params", "T")
                    .Input("indices", "Tindices")
                    .Output("output", "T")
                    .TypeAttr("T", AllTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .SetShapeFn(GatherNdShapeFn)
                    .SetGradFn(GatherNdGrad)
                    .Doc("tf.gather_nd: indices of shape [..., d] (d <= rank(params)) hold index tuples into "
                         "params' first d dimensions; output[i...] = params[indices[i...]], a slice of shape "
                         "params.shape[d:]. Output shape: indices.shape[:-1] + params.shape[d:]. An index out "
                         "of range is an error. Gradient: scatter_nd(indices, dy, shape(params))."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<GatherNdKernel>());

}  // namespace tfg::array::gather_nd
