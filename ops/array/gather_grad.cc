// gather_grad(values, indices, params, axis=0): the gradient of
// gather(params, indices, axis) — a tensor of params' shape that is zero
// except where `values` rows are added at `indices` (duplicates add up);
// `params` is used only for its shape.
//
// This node is the sparse gradient of an embedding lookup (OSDI §4.2): an
// optimizer applying it to a variable may take (indices, values) from the
// node's inputs and call scatter_sub directly instead of running it, so the
// dense tensor is never materialised.
#include <fmt/ranges.h>

#include <vector>

#include "ops/array/gather.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg::array::gather_grad {
namespace {

constexpr const char* kOp = "gather_grad";

Result<int> NormalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("{}: axis {} is out of range for params of rank {}", kOp, axis, rank);
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Status ValuesShapeError(const std::string& values, const std::string& indices, const std::string& params,
                        const std::string& expected) {
  return InvalidArgument("{}: values have shape {} but gathering indices {} from params {} gives {}", kOp, values,
                         indices, params, expected);
}

Status GatherGradShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t axis, nn::GetAttr<int64_t>(c.attrs(), kOp, "axis"));
  const PartialShape& params = c.input(2);
  if (params.known_rank() && c.input(1).known_rank()) {
    if (params.rank() == 0) return InvalidArgument("{}: params must have rank >= 1, got a scalar", kOp);
    TFG_ASSIGN_OR_RETURN(int ax, NormalizeAxis(axis, params.rank()));
    const PartialShape expected(array::GatheredDims(params.dims(), c.input(1).dims(), ax));
    if (!expected.CompatibleWith(c.input(0))) {
      return ValuesShapeError(c.input(0).ToString(), c.input(1).ToString(), params.ToString(), expected.ToString());
    }
  }
  c.set_output(0, params);
  return Status::OK();
}

}  // namespace
}  // namespace tfg::array::gather_grad

namespace tfg::array {

Result<GatherLayout> GatherGradLayoutOf(const TensorShape& values, const TensorShape& indices,
                                        const TensorShape& params, int64_t axis) {
  using gather_grad::kOp;
  if (params.rank() == 0) return InvalidArgument("{}: params must have rank >= 1, got a scalar", kOp);
  TFG_ASSIGN_OR_RETURN(int ax, gather_grad::NormalizeAxis(axis, params.rank()));
  GatherLayout l = MakeGatherLayout(params, indices, ax);
  if (values != l.gathered) {
    return gather_grad::ValuesShapeError(values.ToString(), indices.ToString(), params.ToString(),
                                         l.gathered.ToString());
  }
  return l;
}

}  // namespace tfg::array

namespace tfg::array::gather_grad {
namespace {

template <typename I>
Result<std::vector<int64_t>> ReadIndices(const Tensor& indices, int64_t limit) {
  std::vector<int64_t> out(static_cast<size_t>(indices.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<int64_t>(indices.data<I>()[i]);
    if (out[i] < 0 || out[i] >= limit) {
      return InvalidArgument("{}: index {} at flat position {} of indices is out of range [0, {})", kOp, out[i], i,
                             limit);
    }
  }
  return out;
}

// out[o, idx[i], :] += values[o, i, :]. Each thread owns a range of output
// rows and scans every index, so duplicates never race.
template <typename T>
void ScatterAddRows(const OpKernelContext& ctx, const std::vector<int64_t>& idx, const T* values, int64_t outer,
                    int64_t limit, int64_t inner, T* out) {
  const int64_t n = static_cast<int64_t>(idx.size());
  std::fill(out, out + outer * limit * inner, T(0));
  const int64_t cost = (n * inner) / std::max<int64_t>(limit, 1) + n + 1;
  ctx.ParallelFor(outer * limit, cost, [&](int64_t s, int64_t e) {
    for (int64_t o = s / limit; o < outer && o * limit < e; ++o) {
      const int64_t lo = std::max(s, o * limit) - o * limit, hi = std::min(e, (o + 1) * limit) - o * limit;
      for (int64_t i = 0; i < n; ++i) {
        if (idx[i] < lo || idx[i] >= hi) continue;
        T* dst = out + (o * limit + idx[i]) * inner;
        const T* src = values + (o * n + i) * inner;
        for (int64_t k = 0; k < inner; ++k) dst[k] += src[k];
      }
    }
  });
}

class GatherGradKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(axis_, nn::GetAttr<int64_t>(*c.attrs, kOp, "axis"));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& values = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& params = ctx.input(2);
    TFG_ASSIGN_OR_RETURN(array::GatherLayout l,
                         array::GatherGradLayoutOf(values.shape(), indices.shape(), params.shape(), axis_));
    const int64_t limit = l.limit, outer = l.outer, inner = l.inner;
    auto idx =
        indices.dtype() == DType::kI32 ? ReadIndices<int32_t>(indices, limit) : ReadIndices<int64_t>(indices, limit);
    if (!idx.ok()) return idx.status();
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, params.shape()));
    bool ok = TFG_DISPATCH_NUMBER(
        values.dtype(), T, (ScatterAddRows<T>(ctx, *idx, values.data<T>(), outer, limit, inner, out->data<T>())));
    if (!ok) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(values.dtype()));
    return Status::OK();
  }

 private:
  int64_t axis_ = 0;
};

// gather_grad is linear in values; its adjoint is gather.
Status GatherGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(int64_t axis, nn::GetAttr<int64_t>(g.node->attrs(), kOp, "axis"));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("gather", {grad, g.input(1)}, {{"axis", axis}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("values", "T")
                    .Input("indices", "Tindices")
                    .Input("params", "T")
                    .Attr("axis", AttrType::kInt, int64_t{0}, "the axis gather selected along")
                    .TypeAttr("T", NumberTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .Output("output", "T")
                    .SetShapeFn(GatherGradShapeFn)
                    .SetGradFn(GatherGradGrad)
                    .Doc("The gradient of gather(params, indices, axis): zeros of params' shape with the slices "
                         "of `values` added at `indices` along `axis` (repeated indices add up). An optimizer "
                         "may apply it sparsely, from its values and indices."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<GatherGradKernel>());

}  // namespace tfg::array::gather_grad
