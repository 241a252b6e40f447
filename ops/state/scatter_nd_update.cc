// Sparse writes into a variable, beside scatter_add / scatter_sub
// (ops/state/scatter.cc), with the same inputs (values, indices) and attrs:
//   scatter_update(values, indices)     row indices[i] = values[i]
//                                       (values: indices.shape + var.shape[1:])
//   scatter_nd_update(values, indices)  the slice at index tuple indices[i]
//   scatter_nd_add, scatter_nd_sub      ... gains / loses values[i]
// where indices has shape [..., d], d <= rank(var), and values has shape
// indices.shape[:-1] + var.shape[d:] (tf.compat.v1.scatter_nd_update ...).
// A repeated index writes each value in order (the last wins for the
// updates) and all apply for add/sub. Updates in place when no reader holds
// the variable's buffer, as scatter_add; outputs the new value. An index out
// of range is an error naming it, and the variable is left unchanged. CPU
// kernels only (no GPU kernel yet).
#include <mutex>
#include <string>
#include <vector>

#include "ops/array/gather_nd.h"
#include "ops/core/op_registry.h"
#include "ops/state/scatter_common.h"
#include "ops/state/state_util.h"

namespace tfg::state::scatter_nd_update {
namespace {

using scatter::Write;

struct ScatterKind {
  const char* op;
  Write write;
  bool rows;  // scatter_update: indices name rows (index depth 1, no last dimension)
};

class ScatterNdKernel final : public OpKernel {
 public:
  explicit ScatterNdKernel(ScatterKind kind) : kind_(kind) {}
  Status Init(const KernelConstruction& c) override { return ref_.Init(c); }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& values = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, ref_.Lookup(ctx));
    std::lock_guard<std::mutex> lock(var->mu);
    Tensor& current = var->value;
    TFG_RETURN_IF_ERROR(scatter::CheckVariable(kind_.op, ref_, current, values));
    TFG_ASSIGN_OR_RETURN(Tensor indices, TupleIndices(ctx.input(1), current));
    const int64_t depth = indices.dim(indices.rank() - 1);
    if (depth > current.rank()) {
      return InvalidArgument("{}: indices {} have index depth {} but variable '{}' has shape {}", kind_.op,
                             ctx.input(1).shape().ToString(), depth, ref_.name, current.shape().ToString());
    }
    const TensorShape want(array::NdSlicesDims(indices.shape().dims(), current.shape().dims(), depth));
    if (values.shape() != want) {
      return InvalidArgument("{}: values have shape {} but indices {} into variable '{}' of shape {} need {}",
                             kind_.op, values.shape().ToString(), ctx.input(1).shape().ToString(), ref_.name,
                             current.shape().ToString(), want.ToString());
    }
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> slices,
                         array::NdSliceNumbers(kind_.op, indices, current.shape().dims(),
                                               "variable '" + ref_.name + "' of shape " + current.shape().ToString()));
    int64_t width = 1;
    for (int d = static_cast<int>(depth); d < current.rank(); ++d) width *= current.dim(d);
    return scatter::WriteSlices(ctx, kind_.op, ref_, kind_.write, slices, values, width, current);
  }

 private:
  // The indices as index tuples [..., d]: scatter_update's row indices get a
  // last dimension of 1.
  Result<Tensor> TupleIndices(const Tensor& indices, const Tensor& current) const {
    if (kind_.rows) {
      if (current.rank() < 1) {
        return InvalidArgument("{}: variable '{}' is a scalar; it has no rows", kind_.op, ref_.name);
      }
      std::vector<int64_t> dims = indices.shape().dims();
      dims.push_back(1);
      return indices.Reshaped(TensorShape(dims));
    }
    if (indices.rank() < 1) return InvalidArgument("{}: indices must have rank >= 1, got a scalar", kind_.op);
    return indices;
  }

  ScatterKind kind_;
  VariableRef ref_;
};

// Output: the variable's declared shape. The values' dtype must be the
// declared one.
Status ScatterNdUpdateShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(scatter::CheckDeclaredDtype(c));
  const bool rows = c.op().name == "scatter_update";
  const PartialShape& indices = c.input(1);
  if (!rows && indices.known_rank() && indices.rank() == 0) {
    return InvalidArgument("{}: indices must have rank >= 1, got a scalar", c.op().name);
  }
  const PartialShape* declared = c.attr<PartialShape>("shape");
  c.set_output(0, declared ? *declared : PartialShape::Unknown());
  return Status::OK();
}

OpDefBuilder ScatterNdOp(const char* name, const char* doc) {
  return scatter::ScatterOpDef(name, ScatterNdUpdateShapeFn, doc);
}

KernelDef ScatterNdKernelDef(ScatterKind kind) {
  return KernelDef(kind.op, DeviceType::kCpu)
      .TypeConstraint(NumberTypes(), "T")
      .Factory([kind](const KernelConstruction& c) -> Result<std::unique_ptr<OpKernel>> {
        auto kernel = std::make_unique<ScatterNdKernel>(kind);
        TFG_RETURN_IF_ERROR(kernel->Init(c));  // reads the variable's name
        return std::unique_ptr<OpKernel>(std::move(kernel));
      });
}

}  // namespace

TFG_REGISTER_OP(ScatterNdOp("scatter_update",
                            "Sets row indices[i] of the variable named `shared_name` to values[i] (values: "
                            "indices.shape + the variable's shape[1:]; a repeated index: the last value wins); "
                            "returns the new value."));
TFG_REGISTER_OP(ScatterNdOp("scatter_nd_update",
                            "Sets the slice of the variable named `shared_name` at index tuple indices[i] (indices "
                            "[..., d]) to values[i] (values: indices.shape[:-1] + the variable's shape[d:]; a "
                            "repeated tuple: the last value wins); returns the new value."));
TFG_REGISTER_OP(ScatterNdOp("scatter_nd_add",
                            "Adds values[i] to the slice of the variable named `shared_name` at index tuple "
                            "indices[i] (indices [..., d], values indices.shape[:-1] + the variable's shape[d:]; "
                            "repeated tuples all add); returns the new value."));
TFG_REGISTER_OP(ScatterNdOp("scatter_nd_sub",
                            "Subtracts values[i] from the slice of the variable named `shared_name` at index tuple "
                            "indices[i] (indices [..., d], values indices.shape[:-1] + the variable's shape[d:]; "
                            "repeated tuples all apply); returns the new value."));
TFG_REGISTER_KERNEL(ScatterNdKernelDef({"scatter_update", Write::kUpdate, true}));
TFG_REGISTER_KERNEL(ScatterNdKernelDef({"scatter_nd_update", Write::kUpdate, false}));
TFG_REGISTER_KERNEL(ScatterNdKernelDef({"scatter_nd_add", Write::kAdd, false}));
TFG_REGISTER_KERNEL(ScatterNdKernelDef({"scatter_nd_sub", Write::kSub, false}));

}  // namespace tfg::state::scatter_nd_update
