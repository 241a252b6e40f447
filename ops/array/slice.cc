// slice(x, begin, size): the block starting at `begin` with extent `size`
// per dimension; size -1 means "to the end of that dimension".
#include "ops/array/array_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

// Checks begin/size against `in` (dims may be unknown: -1) and returns the
// output dims (unknown where the extent depends on an unknown dim).
Result<std::vector<int64_t>> SliceDims(const PartialShape& in, const std::vector<int64_t>& begin,
                                       const std::vector<int64_t>& size) {
  if (begin.size() != size.size() || static_cast<int>(begin.size()) != in.rank()) {
    return InvalidArgument("slice: begin {} and size {} must both have one entry per dimension of the input {}",
                           array::IntListToString(begin), array::IntListToString(size), in.ToString());
  }
  std::vector<int64_t> out(begin.size());
  for (size_t i = 0; i < begin.size(); ++i) {
    const int64_t dim = in.dim(static_cast<int>(i));
    const bool bad_begin = begin[i] < 0 || (dim >= 0 && begin[i] > dim);
    // begin <= dim here, so dim - begin cannot overflow where begin + size could.
    const bool bad_size = size[i] < -1 || (dim >= 0 && size[i] >= 0 && !bad_begin && size[i] > dim - begin[i]);
    if (bad_begin || bad_size) {
      return InvalidArgument("slice: begin {} with size {} is out of range in dimension {} of input {}", begin[i],
                             size[i], i, in.ToString());
    }
    out[i] = size[i] >= 0 ? size[i] : (dim >= 0 ? dim - begin[i] : PartialShape::kUnknown);
  }
  return out;
}

Status SliceShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(auto begin, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), "slice", "begin"));
  TFG_ASSIGN_OR_RETURN(auto size, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), "slice", "size"));
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(size.size())));
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, SliceDims(in, begin, size));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

class SliceKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(begin_, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, "slice", "begin"));
    TFG_ASSIGN_OR_RETURN(size_, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, "slice", "size"));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, SliceDims(PartialShape(x.shape()), begin_, size_));
    const std::vector<int64_t> strides = array::RowMajorStrides(x.shape().dims());
    int64_t offset = 0;
    for (size_t i = 0; i < dims.size(); ++i) offset += begin_[i] * strides[i];
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    array::StridedCopy(ctx, x, offset, dims, strides, *out);
    return Status::OK();
  }

 private:
  std::vector<int64_t> begin_, size_;
};

// dx = dy placed back at `begin` in zeros of x's shape: the strided-slice
// gradient with begin..begin+size (size -1: to the end, an end-mask bit).
Status SliceGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const auto& begin = *g.node->attr<std::vector<int64_t>>("begin");
  const auto& size = *g.node->attr<std::vector<int64_t>>("size");
  std::vector<int64_t> end(begin.size());
  int64_t end_mask = 0;
  for (size_t i = 0; i < begin.size() && i < size.size(); ++i) {
    end[i] = begin[i] + size[i];
    if (size[i] < 0) end_mask |= int64_t{1} << i;
  }
  TFG_ASSIGN_OR_RETURN(g.input_grads[0],
                       g.Op("strided_slice_grad", {dy, g.input(0)},
                            {{"begin", begin}, {"end", end}, {"end_mask", end_mask}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("slice")
                    .Input("x", "T")
                    .Attr("begin", AttrType::kIntList, std::nullopt, "start index per dimension")
                    .Attr("size", AttrType::kIntList, std::nullopt, "extent per dimension; -1 = to the end")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(SliceShapeFn)
                    .SetGradFn(SliceGrad)
                    .Doc("Extracts the block of x that starts at `begin` and has extent `size` (-1: to the end)."));
TFG_REGISTER_KERNEL(KernelDef("slice", DeviceType::kCpu).Create<SliceKernel>());

}  // namespace tfg
