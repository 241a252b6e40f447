// What resize_bilinear and resize_nearest_neighbor (and their gradients)
// share: TensorFlow 1's attrs align_corners and half_pixel_centers, the
// `size` operand, and the source coordinate of each output pixel, computed
// in f32 exactly as TensorFlow's kernels do (so both pick the same pixels
// and weights).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg::nn::resize {

struct ResizeAttrs {
  bool align_corners = false;
  bool half_pixel_centers = false;
};
// Both true is an error, as in TensorFlow.
Result<ResizeAttrs> ReadResizeAttrs(const std::string& op, const AttrMap& attrs);

// `size` must be an i32 [2] of positive [height, width].
Result<std::array<int64_t, 2>> ReadSize(const std::string& op, const Tensor& size);

// TensorFlow's CalculateResizeScale: in/out, or (in-1)/(out-1) when the
// corners are aligned.
inline float Scale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1) ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                    : static_cast<float>(in) / static_cast<float>(out);
}

// The images operand must be 4-D NHWC (dims may be unknown).
Status CheckImages(const std::string& op, const char* what, const PartialShape& s);

// Output 0 of a resize: [batch, size..., channels], size from input 1 when
// it is a constant.
Status ResizeShapeFn(ShapeContext& c);
// Output 0 of a resize gradient: the shape of input 1 (the original image).
Status ResizeGradShapeFn(ShapeContext& c);

// The declaration of the four ops: inputs, align_corners and
// half_pixel_centers, one output of type T.
OpDefBuilder ResizeOpDef(const char* name, const char* second_input, const char* second_type,
                         std::vector<DType> types, const char* doc);

}  // namespace tfg::nn::resize
