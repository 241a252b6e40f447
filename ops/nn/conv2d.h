// conv2d's operand checks, defined in ops/nn/conv2d.cc and used by its CPU
// kernels (conv2d and its two backprops) and its GPU kernel
// (ops/nn/conv2d_cudnn.cc), so both accept the same operands and word
// their errors alike; and the backprops' shape function, which
// depthwise_conv2d's share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/core/attr.h"
#include "ops/core/shape.h"
#include "ops/core/status.h"
#include "ops/nn/window.h"

namespace tfg {
class ShapeContext;
}

namespace tfg::nn {

// One convolution of a concrete NHWC input by an HWIO filter.
struct Conv2DRun {
  Geometry g;
  int64_t out_channels = 0;
  TensorShape out;  // [batch, out_height, out_width, out_channels]
};
// Errors (InvalidArgument, naming `op`): a filter or input that is not
// 4-D, input channels that differ from the filter's, a VALID window
// larger than the input.
Result<Conv2DRun> PlanConv2D(std::string_view op, const TensorShape& input, const TensorShape& filter,
                             const WindowAttrs& attrs);

// The backprops' out_backprop must have the forward output's shape.
Status CheckConv2DOutBackprop(std::string_view op, const Conv2DRun& run, const TensorShape& out_backprop);

// The output shape of conv2d or depthwise_conv2d for input, filter, attrs.
using ConvShapeOf = Result<PartialShape> (*)(const std::string& op, const PartialShape& input,
                                             const PartialShape& filter, const AttrMap& attrs);
// Shape functions of conv2d or depthwise_conv2d (`shape_of` says which):
// the forward op's output 0 is shape_of(input, filter); a backprop's
// (input, filter, out_backprop) out_backprop must fit that shape, and its
// output 0 has the shape of operand `which` (0 input, 1 filter).
Status ConvShape(ShapeContext& c, ConvShapeOf shape_of);
Status ConvBackpropShape(ShapeContext& c, ConvShapeOf shape_of, int which);

}  // namespace tfg::nn
