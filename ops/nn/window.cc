#include "ops/nn/window.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "ops/core/checked_size.h"
#include "ops/core/op_cost.h"
#include "ops/core/op_registry.h"

namespace tfg::nn {
namespace {

// [a, b] or TF's [1, a, b, 1]; every value >= 1.
Result<std::array<int64_t, 2>> SpatialPair(std::string_view op, const AttrMap& attrs, const std::string& name) {
  const auto* v = FindAttr<std::vector<int64_t>>(attrs, name);
  if (v == nullptr) return Internal("{}: attribute '{}' is missing", op, name);
  std::array<int64_t, 2> pair{};
  if (v->size() == 2) {
    pair = {(*v)[0], (*v)[1]};
  } else if (v->size() == 4) {
    if ((*v)[0] != 1 || (*v)[3] != 1) {
      return InvalidArgument(
          "{}: {} [{}] must be 1 in the batch and channel dimensions (NHWC); only height and "
          "width windows are supported",
          op, name, fmt::join(*v, ", "));
    }
    pair = {(*v)[1], (*v)[2]};
  } else {
    return InvalidArgument("{}: {} must have 2 values [height, width] or 4 values [1, height, width, 1], got [{}]", op,
                           name, fmt::join(*v, ", "));
  }
  if (pair[0] < 1 || pair[1] < 1) {
    return InvalidArgument("{}: {} must be positive, got [{}]", op, name, fmt::join(*v, ", "));
  }
  return pair;
}

Result<Padding> ReadPadding(std::string_view op, const AttrMap& attrs) {
  const auto* p = FindAttr<std::string>(attrs, "padding");
  if (p == nullptr) return Internal("{}: attribute 'padding' is missing", op);
  std::string upper = *p;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char ch) { return std::toupper(ch); });
  if (upper == "VALID") return Padding::kValid;
  if (upper == "SAME") return Padding::kSame;
  return InvalidArgument("{}: padding must be \"VALID\" or \"SAME\", got \"{}\"", op, *p);
}

}  // namespace

Result<WindowAttrs> ReadWindowAttrs(std::string_view op, const AttrMap& attrs) {
  WindowAttrs a;
  TFG_ASSIGN_OR_RETURN(a.strides, SpatialPair(op, attrs, "strides"));
  TFG_ASSIGN_OR_RETURN(a.padding, ReadPadding(op, attrs));
  if (attrs.count("dilations")) {
    TFG_ASSIGN_OR_RETURN(a.dilations, SpatialPair(op, attrs, "dilations"));
  }
  if (attrs.count("ksize")) {
    TFG_ASSIGN_OR_RETURN(a.ksize, SpatialPair(op, attrs, "ksize"));
  }
  return a;
}

Result<SpatialDim> ComputeSpatialDim(std::string_view op, const char* what, int64_t in, int64_t k, int64_t stride,
                                     int64_t dilation, Padding padding) {
  if (in < 0 || k < 0) return SpatialDim{};
  // Every window must end at an offset int64 can hold: the last one ends at
  // (out - 1) * stride + effective.
  auto too_large = [&] {
    return InvalidArgument("{}: the window {} {} (dilation {}) with stride {} over an input {} of {} overflows int64",
                           op, what, k, dilation, stride, what, in);
  };
  const auto dilated = checked::Mul(k - 1, dilation);
  const auto effective = dilated ? checked::Add(*dilated, 1) : std::nullopt;
  if (!effective) return too_large();
  const int64_t out = padding == Padding::kSame ? in / stride + (in % stride != 0)
                                                : (*effective > in ? 0 : (in - *effective) / stride + 1);
  const auto steps = checked::Mul(out > 0 ? out - 1 : 0, stride);
  const auto end = steps ? checked::Add(*steps, *effective) : std::nullopt;
  if (!end) return too_large();
  if (padding == Padding::kSame) {
    // TensorFlow takes a window larger than the input; the pads then hold
    // the rest of it, and kernels only visit the valid part.
    const int64_t pad_total = std::max<int64_t>(*end - in, 0);
    return SpatialDim{out, pad_total / 2, pad_total - pad_total / 2};
  }
  if (*effective > in) {
    std::string dilated_text = dilation > 1 ? fmt::format(" ({} dilated by {})", k, dilation) : "";
    return InvalidArgument("{}: the window {} {}{} is larger than the input {} {} with padding=\"VALID\"", op, what,
                           *effective, dilated_text, what, in);
  }
  return SpatialDim{out, 0, 0};
}

Result<Geometry> ComputeGeometry(std::string_view op, const TensorShape& input, int64_t kh, int64_t kw,
                                 const WindowAttrs& a) {
  TFG_RETURN_IF_ERROR(CheckRank4(op, "input", "[batch, height, width, channels]", PartialShape(input)));
  Geometry g;
  g.n = input.dim(0);
  g.h = input.dim(1);
  g.w = input.dim(2);
  g.c = input.dim(3);
  g.kh = kh;
  g.kw = kw;
  g.sh = a.strides[0];
  g.sw = a.strides[1];
  g.dh = a.dilations[0];
  g.dw = a.dilations[1];
  TFG_ASSIGN_OR_RETURN(SpatialDim rows, ComputeSpatialDim(op, "height", g.h, kh, g.sh, g.dh, a.padding));
  TFG_ASSIGN_OR_RETURN(SpatialDim cols, ComputeSpatialDim(op, "width", g.w, kw, g.sw, g.dw, a.padding));
  g.oh = rows.out;
  g.ow = cols.out;
  g.pad_top = rows.pad_before;
  g.pad_left = cols.pad_before;
  g.pad_bottom = rows.pad_after;
  g.pad_right = cols.pad_after;
  return g;
}

int64_t PoolWindowPixels(const Geometry& g) { return std::min(g.kh, g.h) * std::min(g.kw, g.w); }

int64_t PoolWork(const Geometry& g, int64_t windows) {
  const int64_t work = checked::SaturatedProduct({windows, PoolWindowPixels(g), g.c});
  return std::min<int64_t>(work, std::numeric_limits<int64_t>::max() - 1) + 1;
}

Status CheckRank4(std::string_view op, const char* what, const char* layout, const PartialShape& s) {
  if (!s.known_rank() || s.rank() == 4) return Status::OK();
  return InvalidArgument("{}: {} must be 4-D {}, got {}", op, what, layout, s.ToString());
}

Result<PartialShape> PoolOutputShape(std::string_view op, const PartialShape& input, const AttrMap& attrs) {
  TFG_ASSIGN_OR_RETURN(WindowAttrs a, ReadWindowAttrs(op, attrs));
  TFG_RETURN_IF_ERROR(CheckRank4(op, "input", "[batch, height, width, channels]", input));
  const PartialShape in = input.known_rank() ? input : PartialShape::UnknownOfRank(4);
  TFG_ASSIGN_OR_RETURN(SpatialDim rows,
                       ComputeSpatialDim(op, "height", in.dim(1), a.ksize[0], a.strides[0], 1, a.padding));
  TFG_ASSIGN_OR_RETURN(SpatialDim cols,
                       ComputeSpatialDim(op, "width", in.dim(2), a.ksize[1], a.strides[1], 1, a.padding));
  return PartialShape({in.dim(0), rows.out, cols.out, in.dim(3)});
}

Status PoolShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(PartialShape out, PoolOutputShape(c.op().name, c.input(0), c.attrs()));
  c.set_output(0, std::move(out));
  return Status::OK();
}

Status PoolGradShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  TFG_ASSIGN_OR_RETURN(PartialShape pooled, PoolOutputShape(op, c.input(0), c.attrs()));
  if (!pooled.CompatibleWith(c.input(1))) {
    return InvalidArgument("{}: out_backprop has shape {} but pooling {} gives {}", op, c.input(1).ToString(),
                           c.input(0).ToString(), pooled.ToString());
  }
  c.set_output(0, c.input(0).known_rank() ? c.input(0) : PartialShape::UnknownOfRank(4));
  return Status::OK();
}

double ConvCost(const Node& node) {
  // conv2d's output, or the out_backprop its gradients take as input 2.
  const PartialShape& out = node.inputs().size() > 2 ? node.inputs()[2].shape() : node.output_shapes()[0];
  const PartialShape& filter = node.inputs()[1].shape();
  return 2 * KnownElements(out) * KnownDim(filter, 0) * KnownDim(filter, 1) * KnownDim(filter, 2);
}

double PoolCost(const Node& node) {
  double window = 1;
  if (const auto* ksize = node.attr<std::vector<int64_t>>("ksize")) {
    for (int64_t k : *ksize) window *= k > 0 ? static_cast<double>(k) : 1;
  }
  double pooled = -1;  // the smallest NHWC tensor among inputs and outputs
  auto consider = [&](const PartialShape& s) {
    if (s.known_rank() && s.rank() == 4 && (pooled < 0 || KnownElements(s) < pooled)) pooled = KnownElements(s);
  };
  for (const Output& in : node.inputs()) consider(in.shape());
  for (const PartialShape& s : node.output_shapes()) consider(s);
  return window * (pooled < 0 ? 1 : pooled);
}

OpDefBuilder PoolOpDef(const char* name, const char* second_input, const char* doc) {
  if (second_input == nullptr) return PoolOpDef(name, std::vector<PoolInput>{}, doc);
  return PoolOpDef(name, {{second_input, "T"}}, doc);
}

OpDefBuilder PoolOpDef(const char* name, const std::vector<PoolInput>& more_inputs, const char* doc) {
  OpDefBuilder b(name);
  b.Input("input", "T");
  for (const PoolInput& in : more_inputs) b.Input(in.name, in.type);
  b.Attr("ksize", AttrType::kIntList, std::nullopt, "window [height, width] or [1, height, width, 1]")
      .Attr("strides", AttrType::kIntList, std::nullopt, "[stride_h, stride_w] or [1, stride_h, stride_w, 1]")
      .Attr("padding", AttrType::kString, std::string("VALID"), "\"VALID\" or \"SAME\" (TensorFlow's rules)")
      .TypeAttr("T", FloatTypes())
      .Output("output", "T")
      .SetCostFn(PoolCost)
      .Doc(doc);
  return b;
}

}  // namespace tfg::nn
