// tile(x, multiples): repeats x multiples[i] times along dimension i.
#include <algorithm>

#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Status CheckMultiples(const std::vector<int64_t>& multiples, int rank, const std::string& shape) {
  if (static_cast<int>(multiples.size()) != rank) {
    return InvalidArgument("tile: multiples {} has {} entries but the input {} has rank {}",
                           array::IntListToString(multiples), multiples.size(), shape, rank);
  }
  for (int64_t m : multiples) {
    if (m < 0) return InvalidArgument("tile: multiples {} must be >= 0", array::IntListToString(multiples));
  }
  return Status::OK();
}

Status TileShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(auto multiples, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), "tile", "multiples"));
  const PartialShape& in = c.input(0);
  const int rank = static_cast<int>(multiples.size());
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownOfRank(rank));
    return Status::OK();
  }
  TFG_RETURN_IF_ERROR(CheckMultiples(multiples, in.rank(), in.ToString()));
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    if (multiples[i] == 0 || in.dim(i) < 0) {
      dims[i] = multiples[i] == 0 ? 0 : PartialShape::kUnknown;
      continue;
    }
    TFG_ASSIGN_OR_RETURN(dims[i], checked::MulSize("tile", "output dim", in.dim(i), multiples[i]));
  }
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

class TileKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(multiples_, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, "tile", "multiples"));
    return Status::OK();
  }
  // The output, seen as shape [m0, d0, m1, d1, ...], is the input read with
  // stride 0 along each repeat dim.
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_RETURN_IF_ERROR(CheckMultiples(multiples_, x.rank(), x.shape().ToString()));
    const std::vector<int64_t> in_strides = array::RowMajorStrides(x.shape().dims());
    std::vector<int64_t> out_dims, view_dims, view_strides;
    for (int i = 0; i < x.rank(); ++i) {
      TFG_ASSIGN_OR_RETURN(int64_t out_dim, checked::MulSize("tile", "output dim", x.dim(i), multiples_[i]));
      out_dims.push_back(out_dim);
      view_dims.insert(view_dims.end(), {multiples_[i], x.dim(i)});
      view_strides.insert(view_strides.end(), {0, in_strides[i]});
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(out_dims)));
    array::StridedCopy(ctx, x, 0, view_dims, view_strides, *out);
    return Status::OK();
  }

 private:
  std::vector<int64_t> multiples_;
};

// dx sums dy over the copies, one dimension at a time: dy cut into m_i
// equal pieces along dim i, stacked and summed. Only the multiples must be
// known at build time (they are attrs), not x's shape.
Status TileGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  const auto& multiples = *g.node->attr<std::vector<int64_t>>("multiples");
  if (std::find(multiples.begin(), multiples.end(), 0) != multiples.end()) {
    TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("zeros_like", {g.input(0)}));
    return Status::OK();
  }
  for (size_t i = 0; i < multiples.size(); ++i) {
    if (multiples[i] == 1) continue;
    TFG_ASSIGN_OR_RETURN(Node * split, g.OpNode("split", {grad}, {{"num", multiples[i]}, {"axis", int64_t(i)}}));
    std::vector<Output> pieces;
    for (int k = 0; k < split->num_outputs(); ++k) pieces.push_back(split->output(k));
    TFG_ASSIGN_OR_RETURN(Output stacked, g.Op("stack", std::move(pieces)));
    TFG_ASSIGN_OR_RETURN(grad, g.Op("sum", {stacked}, {{"axis", std::vector<int64_t>{0}}}));
  }
  g.input_grads[0] = grad;
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("tile")
                    .Input("x", "T")
                    .Attr("multiples", AttrType::kIntList, std::nullopt, "repeats per dimension")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(TileShapeFn)
                    .SetGradFn(TileGrad)
                    .Doc("Repeats x: the output's dimension i is x's times multiples[i], the data repeated whole "
                         "along it (like numpy.tile)."));
TFG_REGISTER_KERNEL(KernelDef("tile", DeviceType::kCpu).Create<TileKernel>());

}  // namespace tfg
