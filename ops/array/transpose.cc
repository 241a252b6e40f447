// transpose(x, perm=none): output dim i is input dim perm[i]; no perm
// reverses the dims (a matrix transpose for rank 2).
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// perm for a tensor of `rank`, checked to be a permutation of 0..rank-1
// (negative entries count from the end).
Result<std::vector<int>> ResolvePerm(const std::vector<int64_t>* perm, int rank) {
  std::vector<int> out(rank);
  if (perm == nullptr) {
    for (int i = 0; i < rank; ++i) out[i] = rank - 1 - i;
    return out;
  }
  if (static_cast<int>(perm->size()) != rank) {
    return InvalidArgument("transpose: perm {} has {} entries but the input has rank {}",
                           array::IntListToString(*perm), perm->size(), rank);
  }
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t p = (*perm)[i];
    if (p < -rank || p >= rank || seen[p < 0 ? p + rank : p]) {
      return InvalidArgument("transpose: perm {} is not a permutation of the {} dimensions",
                             array::IntListToString(*perm), rank);
    }
    out[i] = static_cast<int>(p < 0 ? p + rank : p);
    seen[out[i]] = true;
  }
  return out;
}

Status TransposeShapeFn(ShapeContext& c) {
  const auto* perm = c.attr<std::vector<int64_t>>("perm");
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, perm ? PartialShape::UnknownOfRank(static_cast<int>(perm->size())) : PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(std::vector<int> p, ResolvePerm(perm, in.rank()));
  std::vector<int64_t> dims(p.size());
  for (size_t i = 0; i < p.size(); ++i) dims[i] = in.dim(p[i]);
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

class TransposeKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const auto* p = c.attr<std::vector<int64_t>>("perm")) {
      perm_ = *p;
      has_perm_ = true;
    }
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(std::vector<int> p, ResolvePerm(has_perm_ ? &perm_ : nullptr, x.rank()));
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape().dims());
    std::vector<int64_t> dims(p.size()), strides(p.size());
    for (size_t i = 0; i < p.size(); ++i) {
      dims[i] = x.dim(p[i]);
      strides[i] = in_strides[p[i]];
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    array::StridedCopy(ctx, x, 0, dims, strides, *out);
    return Status::OK();
  }

 private:
  std::vector<int64_t> perm_;
  bool has_perm_ = false;
};

// dx = transpose(dy, inverse perm); the default (reversal) is its own inverse.
Status TransposeGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  AttrMap attrs;
  if (const auto* perm = g.node->attr<std::vector<int64_t>>("perm")) {
    const int64_t n = static_cast<int64_t>(perm->size());
    std::vector<int64_t> inverse(perm->size());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t p = (*perm)[i] < 0 ? (*perm)[i] + n : (*perm)[i];
      if (p < 0 || p >= n) return InvalidArgument("transpose: perm {} is not a permutation", array::IntListToString(*perm));
      inverse[p] = i;
    }
    attrs["perm"] = inverse;
  }
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("transpose", {dy}, std::move(attrs)));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("transpose")
                    .Input("x", "T")
                    .Attr("perm", AttrType::kIntList, AttrValue(std::monostate{}),
                          "output dim i is input dim perm[i]; none reverses the dims")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(TransposeShapeFn)
                    .SetGradFn(TransposeGrad)
                    .Doc("Permutes the dimensions of x: output dimension i is input dimension perm[i]. Without "
                         "perm the dimensions are reversed."));
TFG_REGISTER_KERNEL(KernelDef("transpose", DeviceType::kCpu).Create<TransposeKernel>());

}  // namespace tfg
