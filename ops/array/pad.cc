// pad(x, paddings, constant_values=0, mode="CONSTANT"): pads each dim i with
// paddings[2i] elements before and paddings[2i+1] after (a nested
// [[1, 1], [2, 2]] arrives flattened). Modes as numpy.pad / TensorFlow:
// CONSTANT fills with constant_values; REFLECT mirrors without repeating the
// edge (pad <= dim-1); SYMMETRIC mirrors including it (pad <= dim).
#include <cstring>

#include "ops/array/array_util.h"
#include "ops/array/pad_util.h"
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

using array::PadMode;

// E: the element's storage type. Each output row (last dim) is either all
// constant or reads one input row through the last dim's map.
template <typename E>
void PadRows(const OpKernelContext& ctx, const Tensor& in, const std::vector<std::vector<int64_t>>& maps,
             const E& constant, Tensor& out) {
  const int rank = in.rank();
  const std::vector<int64_t> in_strides = array::RowMajorStrides(in.shape().dims());
  const int64_t inner = out.dim(rank - 1);
  const int64_t rows = inner == 0 ? 0 : out.num_elements() / inner;
  const E* src = static_cast<const E*>(in.raw_data());
  E* dst = static_cast<E*>(out.raw_data());
  ctx.ParallelFor(rows, inner * 2 + 20, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      int64_t base = 0, r = row;
      bool is_constant = false;
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t m = maps[d][r % out.dim(d)];
        r /= out.dim(d);
        if (m < 0) is_constant = true;
        base += m * in_strides[d];
      }
      E* out_row = dst + row * inner;
      const std::vector<int64_t>& last = maps[rank - 1];
      for (int64_t j = 0; j < inner; ++j) out_row[j] = (is_constant || last[j] < 0) ? constant : src[base + last[j]];
    }
  });
}

class PadKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(pads_, array::RequiredAttr<std::vector<int64_t>>(*c.attrs, "pad", "paddings"));
    TFG_ASSIGN_OR_RETURN(std::string mode, array::RequiredAttr<std::string>(*c.attrs, "pad", "mode"));
    TFG_ASSIGN_OR_RETURN(mode_, array::ParsePadMode("pad", mode));
    TFG_ASSIGN_OR_RETURN(double value, array::RequiredAttr<double>(*c.attrs, "pad", "constant_values"));
    TFG_ASSIGN_OR_RETURN(constant_, array::ScalarOfType("pad", c.input_types[0], value));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, array::PaddedDims("pad", PartialShape(x.shape()), pads_, mode_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    if (x.rank() == 0) {
      array::CopyElements(x.dtype(), out->raw_data(), x.raw_data(), 1);
      return Status::OK();
    }
    std::vector<std::vector<int64_t>> maps;
    for (int i = 0; i < x.rank(); ++i) maps.push_back(array::PadIndexMap(pads_[2 * i], x.dim(i), dims[i], mode_));
    if (x.dtype() == DType::kString) {
      PadRows<std::string>(ctx, x, maps, constant_.scalar<std::string>(), *out);
      return Status::OK();
    }
    switch (DTypeSize(x.dtype())) {
      case 1: return Dispatch<uint8_t>(ctx, x, maps, *out);
      case 2: return Dispatch<uint16_t>(ctx, x, maps, *out);
      case 4: return Dispatch<uint32_t>(ctx, x, maps, *out);
      default: return Dispatch<uint64_t>(ctx, x, maps, *out);
    }
  }

 private:
  template <typename E>
  Status Dispatch(const OpKernelContext& ctx, const Tensor& x, const std::vector<std::vector<int64_t>>& maps,
                  Tensor& out) const {
    E constant;
    std::memcpy(&constant, constant_.raw_data(), sizeof(E));
    PadRows<E>(ctx, x, maps, constant, out);
    return Status::OK();
  }

  std::vector<int64_t> pads_;
  PadMode mode_ = PadMode::kConstant;
  Tensor constant_;
};

Status PadShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(auto pads, array::RequiredAttr<std::vector<int64_t>>(c.attrs(), "pad", "paddings"));
  TFG_ASSIGN_OR_RETURN(std::string mode_name, array::RequiredAttr<std::string>(c.attrs(), "pad", "mode"));
  TFG_ASSIGN_OR_RETURN(PadMode mode, array::ParsePadMode("pad", mode_name));
  if (!c.input(0).known_rank()) {
    c.set_output(0, PartialShape::UnknownOfRank(static_cast<int>(pads.size() / 2)));
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> dims, array::PaddedDims("pad", c.input(0), pads, mode));
  c.set_output(0, PartialShape(std::move(dims)));
  return Status::OK();
}

Status PadGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0],
                       g.Op("pad_grad", {dy, g.input(0)},
                            {{"paddings", *g.node->attr<std::vector<int64_t>>("paddings")},
                             {"mode", *g.node->attr<std::string>("mode")}}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("pad")
                    .Input("x", "T")
                    .Attr("paddings", AttrType::kIntList, std::nullopt,
                          "[before, after] per dimension, flattened: [[1, 1], [2, 2]] or [1, 1, 2, 2]")
                    .Attr("constant_values", AttrType::kFloat, 0.0, "the fill value in CONSTANT mode")
                    .Attr("mode", AttrType::kString, std::string("CONSTANT"), "CONSTANT, REFLECT or SYMMETRIC")
                    .Output("y", "T")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(PadShapeFn)
                    .SetGradFn(PadGrad)
                    .Doc("Pads x with paddings[i] = [before, after] elements along dimension i: a constant, or the "
                         "mirror image of x without (REFLECT) or with (SYMMETRIC) its edge."));
TFG_REGISTER_KERNEL(KernelDef("pad", DeviceType::kCpu).Create<PadKernel>());

}  // namespace tfg
