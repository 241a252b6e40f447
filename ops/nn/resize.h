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

// The forward kernels' inputs: images 4-D with pixels to read from, and a
// valid size; returns [new_height, new_width].
Result<std::array<int64_t, 2>> CheckResizeInputs(const std::string& op, const Tensor& images, const Tensor& size);
// The gradient kernels' inputs: grads and original_image 4-D, with the same
// batch and channels.
Status CheckResizeGradInputs(const std::string& op, const Tensor& grads, const Tensor& original);

// The base of the four kernels: reads align_corners and half_pixel_centers
// once, when the kernel is built.
class ResizeKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override;

 protected:
  ResizeAttrs attrs_;
};

// The gradient of a resize: `grad_op`(dy, images), same attrs.
Status ResizeGradFn(GradContext& g, const char* grad_op);
// The gradient of a resize gradient, which is linear in grads: `resize_op`
// back to grads' own height and width, read at run time.
Status ResizeGradGradFn(GradContext& g, const char* resize_op);

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
