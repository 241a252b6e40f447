#include "ops/nn/resize.h"

#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"

namespace tfg::nn::resize {

Result<ResizeAttrs> ReadResizeAttrs(const std::string& op, const AttrMap& attrs) {
  ResizeAttrs a;
  if (const bool* v = FindAttr<bool>(attrs, "align_corners")) a.align_corners = *v;
  if (const bool* v = FindAttr<bool>(attrs, "half_pixel_centers")) a.half_pixel_centers = *v;
  if (a.align_corners && a.half_pixel_centers) {
    return InvalidArgument("{}: half_pixel_centers=true needs align_corners=false, as in TensorFlow", op);
  }
  return a;
}

Result<std::array<int64_t, 2>> ReadSize(const std::string& op, const Tensor& size) {
  if (size.dtype() != DType::kI32 || size.shape() != TensorShape({2})) {
    return InvalidArgument("{}: size must be an i32 [2] of [new_height, new_width], got {}{}", op,
                           DTypeName(size.dtype()), size.shape().ToString());
  }
  const int32_t* v = size.data<int32_t>();
  if (v[0] <= 0 || v[1] <= 0) {
    return InvalidArgument("{}: size must be positive, got [{}, {}]", op, v[0], v[1]);
  }
  return std::array<int64_t, 2>{v[0], v[1]};
}

Status CheckImages(const std::string& op, const char* what, const PartialShape& s) {
  if (!s.known_rank() || s.rank() == 4) return Status::OK();
  return InvalidArgument("{}: {} must be 4-D [batch, height, width, channels], got {}", op, what, s.ToString());
}

Result<std::array<int64_t, 2>> CheckResizeInputs(const std::string& op, const Tensor& images, const Tensor& size) {
  TFG_RETURN_IF_ERROR(CheckImages(op, "images", PartialShape(images.shape())));
  TFG_ASSIGN_OR_RETURN(auto hw, ReadSize(op, size));
  if (images.dim(1) == 0 || images.dim(2) == 0) {  // no pixel to read from
    return InvalidArgument("{}: cannot resize images {} with no pixels", op, images.shape().ToString());
  }
  return hw;
}

Status CheckResizeGradInputs(const std::string& op, const Tensor& grads, const Tensor& original) {
  TFG_RETURN_IF_ERROR(CheckImages(op, "grads", PartialShape(grads.shape())));
  TFG_RETURN_IF_ERROR(CheckImages(op, "original_image", PartialShape(original.shape())));
  if (grads.dim(0) != original.dim(0) || grads.dim(3) != original.dim(3)) {
    return InvalidArgument("{}: grads {} and original_image {} differ in batch or channels", op,
                           grads.shape().ToString(), original.shape().ToString());
  }
  return Status::OK();
}

Status ResizeKernel::Init(const KernelConstruction& c) {
  TFG_ASSIGN_OR_RETURN(attrs_, ReadResizeAttrs(c.op->name, *c.attrs));
  return Status::OK();
}

Status ResizeGradFn(GradContext& g, const char* grad_op) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(grad_op, {dy, g.input(0)}, g.node->attrs()));
  return Status::OK();
}

Status ResizeGradGradFn(GradContext& g, const char* resize_op) {
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output shape, g.Op("shape", {g.input(0)}));
  TFG_ASSIGN_OR_RETURN(Output hw, g.Op("strided_slice", {shape},
                                       {{"begin", std::vector<int64_t>{1}}, {"end", std::vector<int64_t>{3}}}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(resize_op, {grad, hw}, g.node->attrs()));
  return Status::OK();
}

Status ResizeShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  TFG_RETURN_IF_ERROR(ReadResizeAttrs(op, c.attrs()).status());
  TFG_RETURN_IF_ERROR(CheckImages(op, "images", c.input(0)));
  const PartialShape& size = c.input(1);
  if (size.known_rank() && (size.rank() != 1 || (size.dim(0) >= 0 && size.dim(0) != 2))) {
    return InvalidArgument("{}: size must be an i32 [2] of [new_height, new_width], got shape {}", op,
                           size.ToString());
  }
  const PartialShape in = c.input(0).known_rank() ? c.input(0) : PartialShape::UnknownOfRank(4);
  int64_t h = -1, w = -1;
  if (const Tensor* v = c.input_value(1)) {
    TFG_ASSIGN_OR_RETURN(auto hw, ReadSize(op, *v));
    h = hw[0];
    w = hw[1];
  }
  c.set_output(0, PartialShape({in.dim(0), h, w, in.dim(3)}));
  return Status::OK();
}

Status ResizeGradShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  TFG_RETURN_IF_ERROR(ReadResizeAttrs(op, c.attrs()).status());
  TFG_RETURN_IF_ERROR(CheckImages(op, "grads", c.input(0)));
  TFG_RETURN_IF_ERROR(CheckImages(op, "original_image", c.input(1)));
  c.set_output(0, c.input(1).known_rank() ? c.input(1) : PartialShape::UnknownOfRank(4));
  return Status::OK();
}

OpDefBuilder ResizeOpDef(const char* name, const char* second_input, const char* second_type,
                         std::vector<DType> types, const char* doc) {
  OpDefBuilder b(name);
  b.Input(name == std::string("resize_bilinear") || name == std::string("resize_nearest_neighbor") ? "images"
                                                                                                      : "grads",
          "T")
      .Input(second_input, second_type)
      .Attr("align_corners", AttrType::kBool, false,
            "the corner pixels of input and output coincide (scale (in-1)/(out-1))")
      .Attr("half_pixel_centers", AttrType::kBool, false,
            "pixel centers at +0.5, as tf.image.resize in TensorFlow 2 (TensorFlow 1's default is false)")
      .TypeAttr("T", std::move(types))
      .Output(name == std::string("resize_bilinear") || name == std::string("resize_nearest_neighbor")
                  ? "resized_images"
                  : "output",
              "T")
      .Doc(doc);
  return b;
}

}  // namespace tfg::nn::resize
