// sum, mean, max, min, prod over `axis` (none = all axes; an int or a list,
// negative counting from the end), optionally keeping reduced dims as 1.
// f16 accumulates in f32. Integer mean is the truncated integer mean (TF).
// Over an empty set, as TensorFlow: sum 0, prod 1, float mean NaN, integer
// mean 0, max the lowest value (-inf, INT_MIN), min the highest (+inf,
// INT_MAX): each reduction's identity, so an empty batch is not an error.
#include <algorithm>
#include <limits>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/reduce_functors.h"
#include "ops/math/reduction.h"

namespace tfg {
namespace {

using reduce::MaxR;
using reduce::MeanR;
using reduce::MinR;
using reduce::ProdR;
using reduce::ReduceRow;
using reduce::SumR;

// [outer, reduce, inner] -> [outer, inner].
template <typename R, typename T>
void ReduceSimple(OpKernelContext& ctx, const ReductionLayout& l, const T* x, T* out) {
  using Acc = typename R::Acc;
  const int64_t red = l.reduce, inner = l.inner;
  if (inner == 1 && l.outer == 1) {
    // Everything into one value: fixed blocks in parallel, combined in order.
    constexpr int64_t kBlock = reduce::kPartBlock;
    const int64_t blocks = (red + kBlock - 1) / kBlock;
    std::vector<Acc> partial(blocks, R::Init());
    ctx.ParallelFor(blocks, kBlock, [&](int64_t s, int64_t e) {
      for (int64_t b = s; b < e; ++b) partial[b] = ReduceRow<R>(x + b * kBlock, std::min(kBlock, red - b * kBlock));
    });
    Acc acc = R::Init();
    for (Acc p : partial) acc = R::Combine(acc, p);
    out[0] = R::Finish(acc, red);
  } else if (inner == 1) {
    ctx.ParallelFor(l.outer, red, [&](int64_t s, int64_t e) {
      for (int64_t o = s; o < e; ++o) out[o] = R::Finish(ReduceRow<R>(x + o * red, red), red);
    });
  } else {
    // Column sums over tiles of the inner dim, accumulated row by row so the
    // innermost loop runs over contiguous memory.
    constexpr int64_t kTile = 512;
    const int64_t tiles = (inner + kTile - 1) / kTile;
    ctx.ParallelFor(l.outer * tiles, red * std::min(kTile, inner), [&](int64_t s, int64_t e) {
      Acc acc[kTile];
      for (int64_t u = s; u < e; ++u) {
        const int64_t o = u / tiles, j0 = (u % tiles) * kTile, len = std::min(kTile, inner - j0);
        std::fill(acc, acc + len, R::Init());
        const T* block = x + o * red * inner + j0;
        for (int64_t r = 0; r < red; ++r) {
          const T* row = block + r * inner;
          for (int64_t j = 0; j < len; ++j) acc[j] = R::Combine(acc[j], static_cast<Acc>(row[j]));
        }
        for (int64_t j = 0; j < len; ++j) out[o * inner + j0 + j] = R::Finish(acc[j], red);
      }
    });
  }
}

// Reduced axes that are not adjacent: a strided walk per output element.
template <typename R, typename T>
void ReduceGeneral(OpKernelContext& ctx, const ReductionLayout& l, const T* x, T* out, int64_t n_out) {
  using Acc = typename R::Acc;
  const int last = static_cast<int>(l.red_dims.size()) - 1;
  const int64_t inner = l.red_dims[last], inner_stride = l.red_strides[last];
  const int64_t rows = l.reduce_count / inner;
  ctx.ParallelFor(n_out, l.reduce_count, [&](int64_t s, int64_t e) {
    for (int64_t o = s; o < e; ++o) {
      const T* base = x + GridOffset(o, l.kept_dims, l.kept_strides);
      Acc acc = R::Init();
      for (int64_t r = 0; r < rows; ++r) {
        const T* p = base + GridOffset(r * inner, l.red_dims, l.red_strides);
        for (int64_t j = 0; j < inner; ++j) acc = R::Combine(acc, static_cast<Acc>(p[j * inner_stride]));
      }
      out[o] = R::Finish(acc, l.reduce_count);
    }
  });
}

template <template <typename> class RT>
class ReduceKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = ReadReductionAttrs(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(ReductionPlan plan, PlanReduction(op, attrs_, x.shape()));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, plan.out));
    const int64_t n_out = out->num_elements();
    if (n_out == 0) return Status::OK();
    const ReductionLayout& l = plan.layout;
    bool handled = TFG_DISPATCH_NUMBER(x.dtype(), T, {
      using R = RT<T>;
      if (l.reduce_count == 0) {
        std::fill(out->data<T>(), out->data<T>() + n_out, R::Finish(R::Init(), 0));
      } else if (l.simple) {
        ReduceSimple<R>(ctx, l, x.data<T>(), out->data<T>());
      } else {
        ReduceGeneral<R>(ctx, l, x.data<T>(), out->data<T>(), n_out);
      }
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  ReductionAttrs attrs_;
};

// The gradient is a fused helper of ops/math/reduction_grad.cc given the
// same axes, and x for its run-time shape (max and min also need y).
GradFn ReductionGrad(const char* grad_op, bool with_y) {
  return [grad_op, with_y](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
    std::vector<Output> inputs{dy, g.input(0)};
    if (with_y) inputs.push_back(g.output(0));
    AttrMap attrs;
    for (const char* name : {"axis", "keepdims"}) {
      auto it = g.node->attrs().find(name);
      if (it != g.node->attrs().end()) attrs.insert(*it);
    }
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(grad_op, std::move(inputs), std::move(attrs)));
    return Status::OK();
  };
}

OpDefBuilder ReductionOp(const char* name, GradFn grad, const char* doc) {
  OpDefBuilder b(name);
  b.Input("x", "T")
      .Output("y", "T")
      .TypeAttr("T", NumberTypes())
      .Attr("axis", AttrType::kIntList, AttrValue(std::monostate{}),
            "axes to reduce: none for all, an int or a list; negative count from the end")
      .Attr("keepdims", AttrType::kBool, false, "keep reduced axes as dimensions of size 1")
      .SetShapeFn(ReductionShapeFn)
      .SetGradFn(std::move(grad))
      .Doc(doc);
  return b;
}

TFG_REGISTER_OP(ReductionOp("sum", ReductionGrad("sum_grad", false),
                            "Sum of elements over `axis` (0 over an empty set)."));
TFG_REGISTER_OP(ReductionOp("mean", ReductionGrad("mean_grad", false),
                            "Mean over `axis`; integer inputs give the truncated integer mean (NaN, or 0 for integers, over an empty set)."));
TFG_REGISTER_OP(ReductionOp("max", ReductionGrad("max_grad", true),
                            "Maximum over `axis` (NaN wins; -inf or the lowest integer over an empty set)."));
TFG_REGISTER_OP(ReductionOp("min", ReductionGrad("min_grad", true),
                            "Minimum over `axis` (NaN wins; +inf or the highest integer over an empty set)."));
TFG_REGISTER_OP(ReductionOp("prod", ReductionGrad("prod_grad", false),
                            "Product of elements over `axis` (1 over an empty set)."));
TFG_REGISTER_KERNEL(KernelDef("sum", DeviceType::kCpu).Create<ReduceKernel<SumR>>());
TFG_REGISTER_KERNEL(KernelDef("mean", DeviceType::kCpu).Create<ReduceKernel<MeanR>>());
TFG_REGISTER_KERNEL(KernelDef("max", DeviceType::kCpu).Create<ReduceKernel<MaxR>>());
TFG_REGISTER_KERNEL(KernelDef("min", DeviceType::kCpu).Create<ReduceKernel<MinR>>());
TFG_REGISTER_KERNEL(KernelDef("prod", DeviceType::kCpu).Create<ReduceKernel<ProdR>>());

}  // namespace
}  // namespace tfg
