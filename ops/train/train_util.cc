#include "ops/train/train_util.h"

#include <Eigen/Core>
#include <algorithm>
#include <utility>

#include "ops/core/op_registry.h"

namespace tfg::train {

Status VariableParams::Init(const KernelConstruction& c) {
  for (const std::string& param : c.op->variables) {
    const auto* name = c.attr<std::string>(param);
    if (name == nullptr || name->empty()) {
      return InvalidArgument("{}: parameter '{}' must be a variable", c.op->name, param);
    }
    state::VariableRef ref;
    ref.name = *name;
    if (const auto* container = c.attr<std::string>(param + "_container")) ref.container = *container;
    params_.push_back(param);
    refs_.push_back(std::move(ref));
  }
  return Status::OK();
}

Result<LockedVariables> LockedVariables::Lock(OpKernelContext& ctx, const std::string& op,
                                              const VariableParams& params, DType dtype) {
  LockedVariables locked;
  locked.op_ = op;
  locked.params_ = &params;
  for (size_t i = 0; i < params.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var, params.ref(i).Lookup(ctx));
    for (size_t j = 0; j < i; ++j) {
      // Two parameters on one variable would update it twice per element
      // (and lock its mutex twice).
      if (locked.vars_[j] == var) {
        return InvalidArgument("{}: '{}' and '{}' are both variable '{}'; each needs its own variable", op,
                               params.param(j), params.param(i), params.ref(i).name);
      }
    }
    locked.vars_.push_back(std::move(var));
  }
  std::vector<Variable*> order;
  for (const auto& v : locked.vars_) order.push_back(v.get());
  std::sort(order.begin(), order.end());
  for (Variable* v : order) locked.locks_.emplace_back(v->mu);
  TFG_RETURN_IF_ERROR(locked.CheckValues(dtype));
  return Result<LockedVariables>(std::move(locked));
}

Status LockedVariables::CheckValues(DType dtype) const {
  for (size_t i = 0; i < vars_.size(); ++i) {
    const Tensor& v = value(i);
    const state::VariableRef& ref = params_->ref(i);
    if (!v.IsInitialized()) return ref.Uninitialized();
    if (v.dtype() != dtype) {
      return InvalidArgument("{}: variable '{}' ({}) holds {} but the update is {}", op_, ref.name, params_->param(i),
                             v.DebugString(), DTypeName(dtype));
    }
    if (i > 0 && v.shape() != shape()) {
      return InvalidArgument("{}: variable '{}' ({}) has shape {} but variable '{}' ({}) has shape {}; they must match",
                             op_, ref.name, params_->param(i), v.shape().ToString(), params_->ref(0).name,
                             params_->param(0), shape().ToString());
    }
  }
  return Status::OK();
}

Status LockedVariables::CheckDenseGrad(const Tensor& grad) const {
  if (grad.shape() == shape()) return Status::OK();
  return InvalidArgument("{}: grad has shape {} but variable '{}' has shape {}", op_, grad.shape().ToString(),
                         params_->ref(0).name, shape().ToString());
}

Status LockedVariables::CheckSparseGrad(const Tensor& grad, const Tensor& indices) const {
  const std::string& var = params_->ref(0).name;
  if (shape().rank() < 1) return InvalidArgument("{}: variable '{}' is a scalar; it has no rows to update", op_, var);
  std::vector<int64_t> want = indices.shape().dims();
  want.insert(want.end(), shape().dims().begin() + 1, shape().dims().end());
  if (grad.shape() == TensorShape(want)) return Status::OK();
  return InvalidArgument("{}: grad has shape {} but indices of shape {} into variable '{}' of shape {} need {}", op_,
                         grad.shape().ToString(), indices.shape().ToString(), var, shape().ToString(),
                         TensorShape(want).ToString());
}

int64_t LockedVariables::row_width() const {
  const int64_t rows = shape().rank() == 0 ? 1 : shape().dim(0);
  return rows == 0 ? 0 : shape().num_elements() / rows;
}

Status LockedVariables::MakeWritable(OpKernelContext& ctx) {
  for (size_t i = 0; i < vars_.size(); ++i) {
    Tensor& value = vars_[i]->value;
    if (value.num_elements() == 0 || value.RefCountIsOne()) continue;
    Tensor copy = value.DeepCopy(ctx.allocator());
    if (!copy.IsInitialized()) {
      return Error(Code::kResourceExhausted, "{}: out of memory copying variable '{}' ({})", op_,
                   params_->ref(i).name, value.DebugString());
    }
    value = std::move(copy);
  }
  return Status::OK();
}

namespace {

template <typename I>
Result<std::vector<std::pair<int64_t, int64_t>>> ReadIndices(const std::string& op, const Tensor& indices,
                                                             int64_t num_rows, const std::string& var) {
  const I* data = indices.data<I>();
  std::vector<std::pair<int64_t, int64_t>> out(static_cast<size_t>(indices.num_elements()));
  for (int64_t i = 0; i < indices.num_elements(); ++i) {
    const int64_t row = static_cast<int64_t>(data[i]);
    if (row < 0 || row >= num_rows) {
      return InvalidArgument("{}: index {} (at position {} of indices) is out of range for variable '{}' with {} rows",
                             op, row, i, var, num_rows);
    }
    out[static_cast<size_t>(i)] = {row, i};
  }
  return out;
}

}  // namespace

Result<SparseRows> GroupRows(const std::string& op, const Tensor& indices, int64_t num_rows, const std::string& var) {
  auto read = indices.dtype() == DType::kI32 ? ReadIndices<int32_t>(op, indices, num_rows, var)
                                             : ReadIndices<int64_t>(op, indices, num_rows, var);
  if (!read.ok()) return read.status();
  std::vector<std::pair<int64_t, int64_t>>& pairs = *read;
  // Pairs sort by row, then by position: repeated rows keep their order.
  if (!std::is_sorted(pairs.begin(), pairs.end())) std::sort(pairs.begin(), pairs.end());
  SparseRows s;
  s.sources.reserve(pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || pairs[i].first != pairs[i - 1].first) {
      s.rows.push_back(pairs[i].first);
      s.begin.push_back(static_cast<int64_t>(i));
    }
    s.sources.push_back(pairs[i].second);
  }
  s.begin.push_back(static_cast<int64_t>(pairs.size()));
  return s;
}

template <typename C>
void SqrtImpl(C* x, int64_t n) {
  Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>> a(x, n);
  a = a.sqrt();
}

void SqrtInPlace(float* x, int64_t n) { SqrtImpl(x, n); }
void SqrtInPlace(double* x, int64_t n) { SqrtImpl(x, n); }

Status ApplyShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  int grad = -1;
  int indices = -1;
  for (int i = 0; i < c.num_inputs(); ++i) {
    const std::string& name = c.op().inputs[i].name;
    if (name == "grad") {
      grad = i;
    } else if (name == "indices") {
      indices = i;
    } else if (c.input(i).known_rank() && c.input(i).rank() != 0) {
      return InvalidArgument("{}: {} must be a scalar, but has shape {}", op, name, c.input(i).ToString());
    }
  }
  if (grad < 0 || indices < 0) return Status::OK();
  const PartialShape& g = c.input(grad);
  const PartialShape& idx = c.input(indices);
  if (!g.known_rank() || !idx.known_rank()) return Status::OK();
  const PartialShape lead(std::vector<int64_t>(g.dims().begin(), g.dims().begin() + std::min(g.rank(), idx.rank())));
  if (g.rank() < idx.rank() || !lead.CompatibleWith(idx)) {
    return InvalidArgument("{}: grad of shape {} must start with the shape of indices {}", op, g.ToString(),
                           idx.ToString());
  }
  return Status::OK();
}

}  // namespace tfg::train
