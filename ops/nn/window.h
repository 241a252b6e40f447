// Geometry shared by the sliding-window ops (conv2d, max_pool, avg_pool and
// their gradients), all NHWC: reading the 2-or-4 value attrs TensorFlow
// scripts write ([sh, sw] or [1, sh, sw, 1]), the padding mode, and the
// output size and padding of each spatial dimension exactly as TensorFlow
// computes them (SAME: pad_total split with the smaller half before).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/graph.h"
#include "ops/core/op_registry.h"
#include "ops/core/kernel.h"

namespace tfg::nn {

enum class Padding { kValid, kSame };

// The attrs of a window op, checked once in Init or the shape function.
struct WindowAttrs {
  std::array<int64_t, 2> ksize{1, 1};  // pools only; conv takes it from the filter
  std::array<int64_t, 2> strides{1, 1};
  std::array<int64_t, 2> dilations{1, 1};
  Padding padding = Padding::kValid;
};

// Reads `strides`, `padding`, and (when the op has them) `dilations` and
// `ksize`. Errors name the op, the attr and the value.
Result<WindowAttrs> ReadWindowAttrs(std::string_view op, const AttrMap& attrs);

// One spatial dimension: output size and padding before the first
// element and after the last (SAME may put one more after than before).
struct SpatialDim {
  int64_t out = -1;  // -1 when the input size is unknown
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};
// `in` may be -1 (unknown). A window larger than a VALID input is an error
// naming `what` ("height"/"width"), the sizes and the op.
Result<SpatialDim> ComputeSpatialDim(std::string_view op, const char* what, int64_t in, int64_t k, int64_t stride,
                                     int64_t dilation, Padding padding);

// Everything a kernel needs about one concrete NHWC window op.
struct Geometry {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input
  int64_t kh = 1, kw = 1;              // window
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t oh = 0, ow = 0;  // output spatial size
  int64_t pad_top = 0, pad_left = 0;
  int64_t pad_bottom = 0, pad_right = 0;
  int64_t patch() const { return kh * kw * c; }  // im2col row length
  int64_t in_image() const { return h * w * c; }
};
// A pool visits only the valid part of each window, at most this many
// pixels: a window far larger than the input (SAME) costs no more than it.
int64_t PoolWindowPixels(const Geometry& g);
// ParallelFor's cost of `windows` pooled windows of every channel
// (saturated: a cost estimate, never a wrapped one).
int64_t PoolWork(const Geometry& g, int64_t windows);

// `input` must be rank 4 (checked, with the op named in the error).
Result<Geometry> ComputeGeometry(std::string_view op, const TensorShape& input, int64_t kh, int64_t kw,
                                 const WindowAttrs& a);

// A rank-4 check for shape functions and kernels: "conv2d: input must be
// 4-D [batch, height, width, channels], got [3, 4]".
Status CheckRank4(std::string_view op, const char* what, const char* layout, const PartialShape& s);

// Pools: the output shape [n, oh, ow, c] of pooling `input` (dims may be ?).
Result<PartialShape> PoolOutputShape(std::string_view op, const PartialShape& input, const AttrMap& attrs);
// Shape functions of the pools: output 0 = the pooled shape of input 0; and
// of their gradients: input 1 (out_backprop) must fit the pooled shape of
// input 0, and output 0 has the shape of input 0.
Status PoolShapeFn(ShapeContext& c);
// Cost functions (ops/core/op_cost.h). A convolution (or either of its
// gradients) does 2·kh·kw·in_channels operations per element of the
// forward output; a pool (or its gradient) one per window element of each
// pooled (smaller) element.
double ConvCost(const Node& node);
double PoolCost(const Node& node);

// A window op's kernel: its attrs read once, when the kernel is made.
class WindowOpKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, ReadWindowAttrs(c.op->name, *c.attrs));
    return Status::OK();
  }

 protected:
  WindowAttrs attrs_;
};

// The declaration every pool op shares: `input`, then `second_input` when
// not null (a gradient's), the ksize/strides/padding attrs, float types,
// one output and PoolCost.
OpDefBuilder PoolOpDef(const char* name, const char* second_input, const char* doc);
// The same with these inputs after `input` ({name, type}: "T" or a dtype).
struct PoolInput {
  const char* name;
  const char* type;
};
OpDefBuilder PoolOpDef(const char* name, const std::vector<PoolInput>& more_inputs, const char* doc);
Status PoolGradShapeFn(ShapeContext& c);

}  // namespace tfg::nn
