// scatter_add(values, indices, shared_name, container="") and scatter_sub:
// sparse updates of a variable's rows. Row indices[i] of the variable
// gains (loses) values[i] — values has shape indices.shape +
// variable.shape[1:] — repeated indices all apply. Updates in place when no
// reader holds the variable's buffer (as assign_add does); outputs the new
// value. This is how optimizers apply the sparse gradient of an embedding
// lookup (a gather_grad node) without a dense tensor. An index outside
// [0, rows) is an error naming it, and the variable is left unchanged.
#include <algorithm>
#include <mutex>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/state/scatter_common.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

template <typename I>
Result<std::vector<int64_t>> RowIndices(const char* op, const Tensor& indices, int64_t rows, const std::string& var) {
  std::vector<int64_t> out(static_cast<size_t>(indices.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<int64_t>(indices.data<I>()[i]);
    if (out[i] < 0 || out[i] >= rows) {
      return InvalidArgument("{}: index {} at flat position {} of indices is out of range [0, {}) for variable '{}'",
                             op, out[i], i, rows, var);
    }
  }
  return out;
}

template <bool kAdd>
class ScatterKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override { return ref_.Init(c); }

  Status Compute(OpKernelContext& ctx) override {
    const char* op = kAdd ? "scatter_add" : "scatter_sub";
    const Tensor& values = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, ref_.Lookup(ctx));
    std::lock_guard<std::mutex> lock(var->mu);
    Tensor& current = var->value;
    TFG_RETURN_IF_ERROR(state::scatter::CheckVariable(op, ref_, current, values));
    if (current.rank() < 1) return InvalidArgument("{}: variable '{}' is a scalar; it has no rows", op, ref_.name);
    std::vector<int64_t> want = indices.shape().dims();
    want.insert(want.end(), current.shape().dims().begin() + 1, current.shape().dims().end());
    if (values.shape() != TensorShape(want)) {
      return InvalidArgument("{}: values have shape {} but indices {} into variable '{}' of shape {} need {}", op,
                             values.shape().ToString(), indices.shape().ToString(), ref_.name,
                             current.shape().ToString(), TensorShape(want).ToString());
    }
    auto rows = indices.dtype() == DType::kI32 ? RowIndices<int32_t>(op, indices, current.dim(0), ref_.name)
                                               : RowIndices<int64_t>(op, indices, current.dim(0), ref_.name);
    if (!rows.ok()) return rows.status();
    const int64_t width = current.dim(0) == 0 ? 0 : current.num_elements() / current.dim(0);
    return state::scatter::WriteSlices(ctx, op, ref_, kAdd ? state::scatter::Write::kAdd : state::scatter::Write::kSub,
                                       *rows, values, width, current);
  }

 private:
  state::VariableRef ref_;
};

// Output: the variable's declared shape, refined by what values tell of
// its trailing dimensions.
Status ScatterShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  TFG_RETURN_IF_ERROR(state::scatter::CheckDeclaredDtype(c));
  const PartialShape* declared = c.attr<PartialShape>("shape");
  PartialShape out = declared ? *declared : PartialShape::Unknown();
  const PartialShape& values = c.input(0);
  const PartialShape& indices = c.input(1);
  if (values.known_rank() && indices.known_rank() && values.rank() >= indices.rank()) {
    std::vector<int64_t> dims{PartialShape::kUnknown};
    dims.insert(dims.end(), values.dims().begin() + indices.rank(), values.dims().end());
    auto merged = out.Merge(PartialShape(dims));
    if (!merged.ok()) {
      return InvalidArgument("{}: values of shape {} with indices of shape {} do not fit a variable of shape {}", op,
                             values.ToString(), indices.ToString(), out.ToString());
    }
    out = *merged;
  }
  c.set_output(0, std::move(out));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(state::scatter::ScatterOpDef("scatter_add", ScatterShapeFn,
                                             "Adds values[i] to row indices[i] of the variable named `shared_name` "
                                             "(repeated indices all add); returns the new value."));
TFG_REGISTER_OP(state::scatter::ScatterOpDef("scatter_sub", ScatterShapeFn,
                                             "Subtracts values[i] from row indices[i] of the variable named "
                                             "`shared_name` (repeated indices all apply); returns the new value."));
TFG_REGISTER_KERNEL(
    KernelDef("scatter_add", DeviceType::kCpu).TypeConstraint(NumberTypes(), "T").Create<ScatterKernel<true>>());
TFG_REGISTER_KERNEL(
    KernelDef("scatter_sub", DeviceType::kCpu).TypeConstraint(NumberTypes(), "T").Create<ScatterKernel<false>>());

}  // namespace tfg
