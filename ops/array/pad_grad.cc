// pad_grad(dy, like, paddings, mode="CONSTANT"): the gradient of
// pad(x, paddings, mode) with x shaped like `like`: each element of dy is
// added to the element of x that pad copied there (mirrored elements
// collect several contributions; the constant border none).
#include "ops/array/array_util.h"
#include "ops/array/pad_util.h"
#include "ops/core/dtype_traits.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

using array::PadMode;

struct PadGradAttrs {
  std::vector<int64_t> pads;
  PadMode mode = PadMode::kConstant;
};

Result<PadGradAttrs> ReadAttrs(const AttrMap& attrs) {
  PadGradAttrs a;
  TFG_ASSIGN_OR_RETURN(a.pads, array::RequiredAttr<std::vector<int64_t>>(attrs, "pad_grad", "paddings"));
  TFG_ASSIGN_OR_RETURN(std::string mode, array::RequiredAttr<std::string>(attrs, "pad_grad", "mode"));
  TFG_ASSIGN_OR_RETURN(a.mode, array::ParsePadMode("pad_grad", mode));
  return a;
}

Status PadGradShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PadGradAttrs a, ReadAttrs(c.attrs()));
  const PartialShape& like = c.input(1);
  if (like.known_rank()) {
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> padded, array::PaddedDims("pad_grad", like, a.pads, a.mode));
    if (!c.input(0).CompatibleWith(PartialShape(padded))) {
      return InvalidArgument("pad_grad: dy has shape {} but padding {} gives {}", c.input(0).ToString(),
                             like.ToString(), PartialShape(padded).ToString());
    }
  }
  c.set_output(0, like);
  return Status::OK();
}

// dx[map(j)] += dy[j] over every output index j not in the constant border.
template <typename T>
void ScatterAdd(const Tensor& dy, const std::vector<std::vector<int64_t>>& maps, Tensor& dx) {
  const int rank = dx.rank();
  const std::vector<int64_t> strides = array::RowMajorStrides(dx.shape().dims());
  const T* g = dy.data<T>();
  T* out = dx.data<T>();
  for (int64_t i = 0; i < dx.num_elements(); ++i) out[i] = T(0);
  std::vector<int64_t> idx(rank, 0);
  for (int64_t j = 0; j < dy.num_elements(); ++j) {
    int64_t src = 0;
    bool border = false;
    for (int d = 0; d < rank; ++d) {
      const int64_t m = maps[d][idx[d]];
      border = border || m < 0;
      src += m * strides[d];
    }
    if (!border) out[src] = static_cast<T>(out[src] + g[j]);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < dy.dim(d)) break;
      idx[d] = 0;
    }
  }
}

class PadGradKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, ReadAttrs(*c.attrs));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& dy = ctx.input(0);
    const TensorShape& like = ctx.input(1).shape();
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> padded, array::PaddedDims("pad_grad", like, attrs_.pads, attrs_.mode));
    if (dy.shape() != TensorShape(padded)) {
      return InvalidArgument("pad_grad: dy has shape {} but padding {} gives {}", dy.shape().ToString(),
                             like.ToString(), TensorShape(padded).ToString());
    }
    TFG_ASSIGN_OR_RETURN(Tensor * dx, ctx.allocate_output(0, like));
    std::vector<std::vector<int64_t>> maps;
    for (int i = 0; i < like.rank(); ++i) {
      maps.push_back(array::PadIndexMap(attrs_.pads[2 * i], like.dim(i), padded[i], attrs_.mode));
    }
    TFG_DISPATCH_NUMBER(dy.dtype(), T, { ScatterAdd<T>(dy, maps, *dx); });
    return Status::OK();
  }

 private:
  PadGradAttrs attrs_;
};

// pad_grad is linear in dy and its adjoint is pad.
Status PadGradGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output ddx, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("pad", {ddx}, {{"paddings", *g.node->attr<std::vector<int64_t>>("paddings")},
                                                             {"mode", *g.node->attr<std::string>("mode")}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("pad_grad")
                    .Input("dy", "T")
                    .Input("like", "Tlike")
                    .Attr("paddings", AttrType::kIntList, std::nullopt, "the forward pad's paddings")
                    .Attr("mode", AttrType::kString, std::string("CONSTANT"), "the forward pad's mode")
                    .Output("dx", "T")
                    .TypeAttr("T", NumberTypes())
                    .TypeAttr("Tlike", AllTypes())
                    .SetShapeFn(PadGradShapeFn)
                    .SetGradFn(PadGradGrad)
                    .Doc("The gradient of pad(x, paddings, mode=mode) for x shaped like `like`: dy's elements "
                         "summed into the elements of x they were copied from."));
TFG_REGISTER_KERNEL(KernelDef("pad_grad", DeviceType::kCpu).Create<PadGradKernel>());

}  // namespace tfg
