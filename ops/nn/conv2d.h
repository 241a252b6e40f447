// conv2d's operand checks, defined in ops/nn/conv2d.cc and used by its CPU
// kernels (conv2d and its two backprops) and its GPU kernel
// (ops/nn/conv2d_cudnn.cc), so both accept the same operands and word
// their errors alike.
#pragma once

#include <cstdint>
#include <string_view>

#include "ops/core/shape.h"
#include "ops/core/status.h"
#include "ops/nn/window.h"

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

}  // namespace tfg::nn
