// Fused gradients of the reductions, each taking the forward op's `axis`
// and `keepdims` and its input x (for the run-time shape, so gradients work
// when shapes are only known at run time):
//   sum_grad(dy, x)      dy spread back over the reduced axes
//   mean_grad(dy, x)     the same divided by the number of reduced elements
//   max_grad(dy, x, y)   dy to the elements equal to the result y, split
//   min_grad(dy, x, y)   evenly among ties (TensorFlow's rule)
//   prod_grad(dy, x)     dy times the product of the other elements (exact
//                        with zeros: prefix and suffix products, no division)
// f16 computes in f32.
#include <string>
#include <type_traits>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/broadcast.h"
#include "ops/math/reduction.h"

namespace tfg::math::reduction_grad {
namespace {

enum class Kind { kSum, kMean, kSelect, kProd };

const AttrValue* AxisOf(const AttrMap& attrs) {
  auto it = attrs.find("axis");
  return it == attrs.end() ? nullptr : &it->second;
}

bool KeepDims(const AttrMap& attrs) {
  const bool* keep = FindAttr<bool>(attrs, "keepdims");
  return keep && *keep;
}

// Output 0 has x's shape; dy (and y) must have the reduced shape.
Status GradShapeFn(ShapeContext& c) {
  const PartialShape& x = c.input(1);
  if (x.known_rank()) {
    TFG_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReductionAxes(c.op().name, AxisOf(c.attrs()), x));
    const PartialShape want(ReducedDims(x.dims(), reduced, KeepDims(c.attrs())));
    for (int i = 0; i < c.num_inputs(); ++i) {
      if (i == 1 || c.input(i).CompatibleWith(want)) continue;
      return InvalidArgument("{}: input {} has shape {} but reducing x of shape {} gives {}", c.op().name,
                             c.op().inputs[i].name, c.input(i).ToString(), x.ToString(), want.ToString());
    }
  }
  c.set_output(0, x);
  return Status::OK();
}

// dx = dy * scale, dy read through broadcasting to x's shape.
template <typename T>
void Spread(const OpKernelContext& ctx, const Tensor& dy, const TensorShape& keep_shape, Tensor* dx, double scale) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const BroadcastPlan plan(dx->shape(), {&keep_shape});
  const int64_t sd = plan.inner_stride(0);
  const T* pdy = dy.data<T>();
  T* pdx = dx->data<T>();
  const C k = static_cast<C>(scale);
  ctx.ParallelFor(dx->num_elements(), 1, [&](int64_t s, int64_t e) {
    plan.ForEachRun(s, e, [&](int64_t o, const auto& off, int64_t len) {
      const T* src = pdy + off[0];
      for (int64_t j = 0; j < len; ++j) pdx[o + j] = static_cast<T>(static_cast<C>(src[j * sd]) * k);
    });
  });
}

// The elements of one reduced group: x[base + rel[r]] for r < rel.size().
struct Groups {
  ReductionLayout layout;
  std::vector<int64_t> rel;
  int64_t Base(int64_t o) const { return GridOffset(o, layout.kept_dims, layout.kept_strides); }
};

Groups MakeGroups(const TensorShape& x, const std::vector<bool>& reduced) {
  Groups g{MakeReductionLayout(x, reduced), {}};
  g.rel.resize(static_cast<size_t>(g.layout.reduce_count));
  for (size_t r = 0; r < g.rel.size(); ++r) {
    g.rel[r] = GridOffset(static_cast<int64_t>(r), g.layout.red_dims, g.layout.red_strides);
  }
  return g;
}

// dy[o] split among the elements equal to y[o] (NaN matches a NaN result).
template <typename T>
void SelectGroups(const OpKernelContext& ctx, const Groups& g, const T* x, const T* dy, const T* y, T* dx,
                  int64_t n_out) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t count = static_cast<int64_t>(g.rel.size());
  ctx.ParallelFor(n_out, 3 * count, [&](int64_t s, int64_t e) {
    for (int64_t o = s; o < e; ++o) {
      const T* gx = x + g.Base(o);
      T* gdx = dx + g.Base(o);
      const C target = static_cast<C>(y[o]);
      auto hit = [&](int64_t r) {
        const C v = static_cast<C>(gx[g.rel[r]]);
        return v == target || (v != v && target != target);
      };
      int64_t ties = 0;
      for (int64_t r = 0; r < count; ++r) ties += hit(r);
      const C share = ties ? static_cast<C>(dy[o]) / static_cast<C>(ties) : C(0);
      for (int64_t r = 0; r < count; ++r) gdx[g.rel[r]] = static_cast<T>(hit(r) ? share : C(0));
    }
  });
}

// dx = dy * (product of the group's other elements): exclusive prefix
// products forward, then suffix products backward.
template <typename T>
void ProdGroups(const OpKernelContext& ctx, const Groups& g, const T* x, const T* dy, T* dx, int64_t n_out) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int64_t count = static_cast<int64_t>(g.rel.size());
  ctx.ParallelFor(n_out, 4 * count, [&](int64_t s, int64_t e) {
    std::vector<C> prefix(static_cast<size_t>(count));
    for (int64_t o = s; o < e; ++o) {
      const T* gx = x + g.Base(o);
      T* gdx = dx + g.Base(o);
      C running = 1;
      for (int64_t r = 0; r < count; ++r) {
        prefix[r] = running;
        running *= static_cast<C>(gx[g.rel[r]]);
      }
      const C d = static_cast<C>(dy[o]);
      running = 1;
      for (int64_t r = count - 1; r >= 0; --r) {
        gdx[g.rel[r]] = static_cast<T>(d * prefix[r] * running);
        running *= static_cast<C>(gx[g.rel[r]]);
      }
    }
  });
}

template <Kind kKind>
class ReductionGradKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const AttrValue* axis = AxisOf(*c.attrs)) axis_ = *axis;
    keepdims_ = KeepDims(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(1);
    const std::string& op = ctx.info().op->name;
    TFG_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReductionAxes(op, &axis_, PartialShape(x.shape())));
    TFG_RETURN_IF_ERROR(CheckReduced(ctx, x.shape(), reduced));
    TFG_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output(0, x.shape()));
    if (x.num_elements() == 0) return Status::OK();
    switch (x.dtype()) {
      case DType::kF16: Run<half>(ctx, reduced, dx); break;
      case DType::kF32: Run<float>(ctx, reduced, dx); break;
      case DType::kF64: Run<double>(ctx, reduced, dx); break;
      default: return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(x.dtype()));
    }
    return Status::OK();
  }

 private:
  // dy (and y) must have the shape the forward reduction produced.
  Status CheckReduced(const OpKernelContext& ctx, const TensorShape& x, const std::vector<bool>& reduced) const {
    const TensorShape want(ReducedDims(x.dims(), reduced, keepdims_));
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (i == 1 || ctx.input(i).shape() == want) continue;
      return InvalidArgument("{}: input {} has shape {} but reducing x of shape {} gives {}",
                             ctx.info().op->name, ctx.info().op->inputs[i].name,
                             ctx.input(i).shape().ToString(), x.ToString(), want.ToString());
    }
    return Status::OK();
  }

  template <typename T>
  void Run(const OpKernelContext& ctx, const std::vector<bool>& reduced, Tensor* dx) const {
    const Tensor& dy = ctx.input(0);
    const Tensor& x = ctx.input(1);
    if constexpr (kKind == Kind::kSum || kKind == Kind::kMean) {
      const double count = static_cast<double>(x.num_elements()) / static_cast<double>(dy.num_elements());
      const TensorShape keep(ReducedDims(x.shape().dims(), reduced, true));
      Spread<T>(ctx, dy, keep, dx, kKind == Kind::kMean ? 1.0 / count : 1.0);
    } else if constexpr (kKind == Kind::kSelect) {
      const Groups g = MakeGroups(x.shape(), reduced);
      SelectGroups<T>(ctx, g, x.data<T>(), dy.data<T>(), ctx.input(2).data<T>(), dx->data<T>(), dy.num_elements());
    } else {
      const Groups g = MakeGroups(x.shape(), reduced);
      ProdGroups<T>(ctx, g, x.data<T>(), dy.data<T>(), dx->data<T>(), dy.num_elements());
    }
  }

  AttrValue axis_;
  bool keepdims_ = false;
};

AttrMap ReduceAttrs(const Node& node) {
  AttrMap attrs{{"keepdims", KeepDims(node.attrs())}};
  if (const AttrValue* axis = AxisOf(node.attrs())) attrs["axis"] = *axis;
  return attrs;
}

// sum_grad and mean_grad are linear in dy; their adjoints are sum and mean
// over the same axes. x only lends its shape.
GradFn LinearGradGrad(std::string adjoint) {
  return [adjoint = std::move(adjoint)](GradContext& g) -> Status {
    TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(adjoint, {grad}, ReduceAttrs(*g.node)));
    return Status::OK();
  };
}

// max_grad routes dy by a mask that is piecewise constant in x and y: dy
// gets sum(G * weights), the weights being max_grad of ones.
Status SelectGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output ones, g.Op("ones_like", {g.input(0)}));
  TFG_ASSIGN_OR_RETURN(Output weights, g.Op(g.node->op_name(), {ones, g.input(1), g.input(2)}, ReduceAttrs(*g.node)));
  TFG_ASSIGN_OR_RETURN(Output weighted, g.Op("mul", {grad, weights}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("sum", {weighted}, ReduceAttrs(*g.node)));
  return Status::OK();
}

Status ProdGradGrad(GradContext&) {
  return Unimplemented("prod_grad: second derivatives through prod are not supported yet");
}

OpDefBuilder GradOp(const char* name, bool with_y, GradFn grad, const char* doc) {
  OpDefBuilder b(name);
  b.Input("dy", "T").Input("x", "T");
  if (with_y) b.Input("y", "T");
  b.Output("dx", "T")
      .TypeAttr("T", FloatTypes())
      .Attr("axis", AttrType::kIntList, AttrValue(std::monostate{}), "the forward reduction's axes")
      .Attr("keepdims", AttrType::kBool, false, "whether the forward reduction kept reduced axes")
      .SetShapeFn(GradShapeFn)
      .SetGradFn(std::move(grad))
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(GradOp("sum_grad", false, LinearGradGrad("sum"),
                       "The gradient of sum: dy repeated over the reduced axes of x."));
TFG_REGISTER_OP(GradOp("mean_grad", false, LinearGradGrad("mean"),
                       "The gradient of mean: dy repeated over the reduced axes of x, divided by their size."));
TFG_REGISTER_OP(GradOp("max_grad", true, SelectGradGrad,
                       "The gradient of max: dy to the elements of x equal to the result y, split evenly "
                       "among ties."));
TFG_REGISTER_OP(GradOp("min_grad", true, SelectGradGrad,
                       "The gradient of min: dy to the elements of x equal to the result y, split evenly "
                       "among ties."));
TFG_REGISTER_OP(GradOp("prod_grad", false, ProdGradGrad,
                       "The gradient of prod: dy times the product of the other elements of each reduced "
                       "group."));
TFG_REGISTER_KERNEL(KernelDef("sum_grad", DeviceType::kCpu).Create<ReductionGradKernel<Kind::kSum>>());
TFG_REGISTER_KERNEL(KernelDef("mean_grad", DeviceType::kCpu).Create<ReductionGradKernel<Kind::kMean>>());
TFG_REGISTER_KERNEL(KernelDef("max_grad", DeviceType::kCpu).Create<ReductionGradKernel<Kind::kSelect>>());
TFG_REGISTER_KERNEL(KernelDef("min_grad", DeviceType::kCpu).Create<ReductionGradKernel<Kind::kSelect>>());
TFG_REGISTER_KERNEL(KernelDef("prod_grad", DeviceType::kCpu).Create<ReductionGradKernel<Kind::kProd>>());

}  // namespace tfg::math::reduction_grad
