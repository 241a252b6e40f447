// dropout(x, rate, seed=0) -> [output, mask]: TensorFlow 2's dropout. Each
// element is kept with probability 1 - rate and scaled by 1 / (1 - rate),
// otherwise zeroed; `mask` holds the factor used for each element (0 or
// 1 / (1 - rate)), so the gradient is dy * mask without drawing again.
// rate 0 passes x through (mask all ones); rate must be in [0, 1).
//
// Randomness: the random ops' stream (ops/random/random_stream.h; the seed
// attr and --seed act as for random_uniform). Element i is kept when the
// f32 uniform from word i % 4 of block i / 4 is >= rate — the same draw for
// every dtype, so a seeded mask does not depend on the precision.
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"
#include "ops/random/random_stream.h"

namespace tfg {
namespace {

template <typename T>
void ApplyMask(const OpKernelContext& ctx, const random::RandomStream& stream, float rate, const Tensor& x, Tensor* y,
               Tensor* mask) {
  const T scale = static_cast<T>(1.0 / (1.0 - static_cast<double>(rate)));
  T* m = mask->data<T>();
  random::FillFromBlocks<4>(ctx, stream, x.num_elements(), m, [&](const random::PhiloxCounter& w, T* v) {
    for (int j = 0; j < 4; ++j) v[j] = random::Uniform01(w[j]) >= rate ? scale : T(0);
  });
  const T* px = x.data<T>();
  T* py = y->data<T>();
  ctx.ParallelFor(x.num_elements(), 2, [=](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) py[i] = static_cast<T>(px[i] * m[i]);
  });
}

template <typename T>
void FillOnes(Tensor* t) {
  std::fill(t->data<T>(), t->data<T>() + t->num_elements(), T(1));
}

class DropoutKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(double rate, nn::GetAttr<double>(*c.attrs, "dropout", "rate"));
    TFG_ASSIGN_OR_RETURN(seed_, nn::GetAttr<int64_t>(*c.attrs, "dropout", "seed"));
    if (!(rate >= 0 && rate < 1)) {
      return InvalidArgument("dropout: rate is the fraction of elements dropped and must be in [0, 1), got {}", rate);
    }
    rate_ = static_cast<float>(rate);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * mask, ctx.allocate_output(1, x.shape()));
    if (rate_ == 0) {
      bool ok = TFG_DISPATCH_NUMBER(x.dtype(), T, FillOnes<T>(mask));
      if (!ok) return Unimplemented("dropout: no CPU kernel for dtype {}", DTypeName(x.dtype()));
      ctx.set_output(0, x);
      return Status::OK();
    }
    TFG_ASSIGN_OR_RETURN(random::RandomStream stream, random::BeginRun(ctx, seed_));
    TFG_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, x.shape()));
    switch (x.dtype()) {
      case DType::kF16: ApplyMask<half>(ctx, stream, rate_, x, y, mask); break;
      case DType::kF32: ApplyMask<float>(ctx, stream, rate_, x, y, mask); break;
      case DType::kF64: ApplyMask<double>(ctx, stream, rate_, x, y, mask); break;
      default: return Unimplemented("dropout: no CPU kernel for dtype {}", DTypeName(x.dtype()));
    }
    return Status::OK();
  }

 private:
  float rate_ = 0;
  int64_t seed_ = 0;
};

Status DropoutShapeFn(ShapeContext& c) {
  const double* rate = c.attr<double>("rate");
  if (rate != nullptr && !(*rate >= 0 && *rate < 1)) {
    return InvalidArgument("dropout: rate is the fraction of elements dropped and must be in [0, 1), got {}", *rate);
  }
  c.set_output(0, c.input(0));
  c.set_output(1, c.input(0));
  return Status::OK();
}

Status DropoutGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("mul", {dy, g.output(1)}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("dropout")
                    .Input("x", "T")
                    .Attr("rate", AttrType::kFloat, std::nullopt, "fraction of elements dropped, in [0, 1)")
                    .Attr("seed", AttrType::kInt, int64_t{0}, "op seed; with the graph seed (--seed) fixes the mask")
                    .TypeAttr("T", FloatTypes())
                    .Output("output", "T")
                    .Output("mask", "T")
                    .Stateful()
                    .SetShapeFn(DropoutShapeFn)
                    .SetGradFn(DropoutGrad)
                    .Doc("Zeroes each element with probability `rate` and scales the kept ones by 1 / (1 - rate). "
                         "Returns [output, mask], mask holding the factor applied to each element. Each run draws "
                         "a new mask; a non-zero seed or --seed makes the sequence reproducible."));
TFG_REGISTER_KERNEL(KernelDef("dropout", DeviceType::kCpu).Create<DropoutKernel>());

}  // namespace tfg
