// top_k(input, k=1, sorted=true) -> (values, indices): the k largest
// entries of every row along the last axis, and their positions (i32), as
// tf.math.top_k / tf.nn.top_k. Output shape input.shape[:-1] + [k].
//
// Order: larger first; equal values by lower index first (TensorFlow's
// stable order). NaN ranks above every number, NaNs among themselves by
// index (as PyTorch's topk; TensorFlow's comparator leaves NaN's place
// unspecified). sorted=false gives the same k entries in the order
// they appear in the row (TensorFlow: an unspecified order).
//
// Gradient (TensorFlow's _TopKGrad): dvalues scattered back to the
// positions in `indices`, zeros elsewhere — the helper top_k_grad below.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg::nn::top_k {
namespace {

constexpr const char* kOp = "top_k";
constexpr const char* kGradOp = "top_k_grad";

// Checks k against the input (of known rank, or unknown: k alone).
Status CheckTopK(const PartialShape& in, int64_t k) {
  if (k < 0) return InvalidArgument("{}: k must be >= 0, got {}", kOp, k);
  if (!in.known_rank()) return Status::OK();
  if (in.rank() == 0) return InvalidArgument("{}: input must have rank >= 1, got a scalar", kOp);
  const int64_t n = in.dim(in.rank() - 1);
  if (n >= 0 && k > n) {
    return InvalidArgument("{}: k = {} is larger than the last dimension {} of input shape {}", kOp, k, n,
                           in.ToString());
  }
  return Status::OK();
}

Status TopKShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t k, nn::GetAttr<int64_t>(c.attrs(), kOp, "k"));
  const PartialShape& in = c.input(0);
  TFG_RETURN_IF_ERROR(CheckTopK(in, k));
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    c.set_output(1, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  dims.back() = k;
  c.set_output(0, PartialShape(dims));
  c.set_output(1, PartialShape(std::move(dims)));
  return Status::OK();
}

template <typename T> struct TopKKeyOf { using type = T; };
template <> struct TopKKeyOf<half> { using type = float; };

// True when entry a of a row ranks before entry b: larger value, NaN above
// all numbers, then lower index. A strict total order on indices.
template <typename K>
bool RanksBefore(K va, K vb, int32_t a, int32_t b) {
  const bool nan_a = va != va, nan_b = vb != vb;
  if (nan_a != nan_b) return nan_a;
  if (!nan_a && va != vb) return va > vb;
  return a < b;
}

// rows x n -> rows x k, each row independently.
template <typename T>
void TopKRows(const OpKernelContext& ctx, const T* x, T* values, int32_t* indices, int64_t rows, int64_t n,
              int64_t k, bool sorted) {
  using K = typename TopKKeyOf<T>::type;
  const int64_t cost = n * (k > 1 ? 8 : 1) + k + 1;
  ctx.ParallelFor(rows, cost, [&](int64_t s, int64_t e) {
    std::vector<int32_t> order(static_cast<size_t>(n));
    for (int64_t r = s; r < e; ++r) {
      const T* row = x + r * n;
      auto before = [row](int32_t a, int32_t b) {
        return RanksBefore<K>(static_cast<K>(row[a]), static_cast<K>(row[b]), a, b);
      };
      std::iota(order.begin(), order.end(), 0);
      if (sorted) {
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      } else {
        if (k < n) std::nth_element(order.begin(), order.begin() + k, order.end(), before);
        std::sort(order.begin(), order.begin() + k);
      }
      for (int64_t j = 0; j < k; ++j) {
        values[r * k + j] = row[order[j]];
        indices[r * k + j] = order[j];
      }
    }
  });
}

class TopKKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(k_, nn::GetAttr<int64_t>(*c.attrs, kOp, "k"));
    TFG_ASSIGN_OR_RETURN(sorted_, nn::GetAttr<bool>(*c.attrs, kOp, "sorted"));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_RETURN_IF_ERROR(CheckTopK(PartialShape(x.shape()), k_));
    const int64_t n = x.dim(x.rank() - 1);
    if (n > std::numeric_limits<int32_t>::max()) {
      return InvalidArgument("{}: the last dimension {} of input shape {} does not fit i32 indices", kOp, n,
                             x.shape().ToString());
    }
    std::vector<int64_t> dims = x.shape().dims();
    dims.back() = k_;
    const TensorShape out_shape(dims);
    TFG_ASSIGN_OR_RETURN(Tensor * values, ctx.allocate_output(0, out_shape));
    TFG_ASSIGN_OR_RETURN(Tensor * indices, ctx.allocate_output(1, out_shape));
    if (out_shape.num_elements() == 0) return Status::OK();
    const int64_t rows = out_shape.num_elements() / k_;
    bool handled = TFG_DISPATCH_NUMBER(x.dtype(), T, {
      TopKRows<T>(ctx, x.data<T>(), values->data<T>(), indices->data<int32_t>(), rows, n, k_, sorted_);
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  int64_t k_ = 1;
  bool sorted_ = true;
};

// top_k_grad(dvalues, indices, input): dvalues and indices of shape
// input.shape[:-1] + [k].
Status CheckGradShapes(const PartialShape& dvalues, const PartialShape& indices, const PartialShape& input) {
  if (!dvalues.CompatibleWith(indices)) {
    return InvalidArgument("{}: dvalues have shape {} but indices {}", kGradOp, dvalues.ToString(),
                           indices.ToString());
  }
  auto merged = dvalues.Merge(indices);
  if (!merged.ok() || !merged->known_rank() || !input.known_rank()) return Status::OK();
  if (input.rank() == 0) return InvalidArgument("{}: input must have rank >= 1, got a scalar", kGradOp);
  std::vector<int64_t> lead = input.dims();
  lead.back() = PartialShape::kUnknown;
  if (!PartialShape(lead).CompatibleWith(*merged)) {
    return InvalidArgument("{}: dvalues of shape {} do not match the rows of input shape {}", kGradOp,
                           dvalues.ToString(), input.ToString());
  }
  return Status::OK();
}

Status TopKGradShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(CheckGradShapes(c.input(0), c.input(1), c.input(2)));
  c.set_output(0, c.input(2));
  return Status::OK();
}

// out[r, indices[r, j]] += dvalues[r, j] over a zero tensor of input's shape.
template <typename T>
void ScatterRows(const OpKernelContext& ctx, const T* dvalues, const int32_t* indices, T* out, int64_t rows,
                 int64_t n, int64_t k) {
  ctx.ParallelFor(rows, n + k + 1, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      T* row = out + r * n;
      std::fill(row, row + n, T(0));
      for (int64_t j = 0; j < k; ++j) row[indices[r * k + j]] += dvalues[r * k + j];
    }
  });
}

class TopKGradKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& dvalues = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& input = ctx.input(2);
    TFG_RETURN_IF_ERROR(CheckGradShapes(PartialShape(dvalues.shape()), PartialShape(indices.shape()),
                                        PartialShape(input.shape())));
    const int64_t n = input.dim(input.rank() - 1);
    const int64_t k = dvalues.dim(dvalues.rank() - 1);
    const int32_t* idx = indices.data<int32_t>();
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      if (idx[i] < 0 || idx[i] >= n) {
        return InvalidArgument("{}: index {} at flat position {} of indices is out of range [0, {})", kGradOp,
                               idx[i], i, n);
      }
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, input.shape()));
    if (input.num_elements() == 0) return Status::OK();
    const int64_t rows = input.num_elements() / n;
    bool handled = TFG_DISPATCH_NUMBER(dvalues.dtype(), T, {
      ScatterRows<T>(ctx, dvalues.data<T>(), idx, out->data<T>(), rows, n, k);
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", kGradOp, DTypeName(dvalues.dtype()));
    return Status::OK();
  }
};

Status TopKGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dvalues, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(kGradOp, {dvalues, g.output(1), g.input(0)}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("input", "T")
                    .Attr("k", AttrType::kInt, int64_t{1}, "how many entries to take from each row")
                    .Attr("sorted", AttrType::kBool, true,
                          "largest first; false: in the order the entries appear in the row")
                    .TypeAttr("T", NumberTypes())
                    .Output("values", "T")
                    .Output("indices", "i32")
                    .SetShapeFn(TopKShapeFn)
                    .SetGradFn(TopKGrad)
                    .Doc("The `k` largest entries along the last axis and their indices (i32), as "
                         "tf.math.top_k: `values, indices = top_k(x, 2)`. Equal values come lower index first; "
                         "NaN ranks above every number. `k` must be >= 0 and at most the last dimension. "
                         "Gradient: dvalues scattered back to `indices`."));
TFG_REGISTER_OP(OpDefBuilder(kGradOp)
                    .Input("dvalues", "T")
                    .Input("indices", "i32")
                    .Input("input", "T")
                    .TypeAttr("T", NumberTypes())
                    .Output("dinput", "T")
                    .SetShapeFn(TopKGradShapeFn)
                    .SetGradFn(nn::NoSecondDerivative(kGradOp))
                    .Doc("The gradient of top_k for its input: zeros of `input`'s shape with `dvalues` added at "
                         "`indices` along the last axis."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<TopKKernel>());
TFG_REGISTER_KERNEL(KernelDef(kGradOp, DeviceType::kCpu).Create<TopKGradKernel>());

}  // namespace tfg::nn::top_k
