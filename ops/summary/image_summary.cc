// image_summary(tag, images, max_images): a Summary with the first
// max_images images of an NHWC batch, PNG-encoded, for TensorBoard's images
// tab. Float pixels are in [0, 1] (clipped), integer pixels in [0, 255].
#include <algorithm>
#include <cmath>

#include "ops/core/op_registry.h"
#include "ops/summary/png_encoder.h"
#include "ops/summary/summary_util.h"

namespace tfg {
namespace {

bool ValidChannels(int64_t c) { return c == 1 || c == 3 || c == 4; }

// One image's pixels as bytes: floats scaled from [0, 1], integers checked.
Result<std::vector<uint8_t>> ToBytes(const std::vector<double>& values, size_t begin, size_t n, bool is_float,
                                     const std::string& tag) {
  std::vector<uint8_t> bytes(n);
  for (size_t i = 0; i < n; ++i) {
    double v = values[begin + i];
    if (std::isnan(v)) return InvalidArgument("image_summary '{}': pixel {} is NaN", tag, begin + i);
    if (is_float) {
      v = std::round(std::clamp(v, 0.0, 1.0) * 255.0);
    } else if (v < 0 || v > 255) {
      return InvalidArgument("image_summary '{}': integer pixel {} is {}, outside [0, 255]", tag, begin + i, v);
    }
    bytes[i] = static_cast<uint8_t>(v);
  }
  return bytes;
}

class ImageSummaryKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    max_images_ = *c.attr<int64_t>("max_images");
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::string tag, summary::ReadTag(ctx, "image_summary", 0));
    const Tensor& images = ctx.input(1);
    if (images.rank() != 4 || !ValidChannels(images.dim(3)) || images.dim(1) < 1 || images.dim(2) < 1) {
      return InvalidArgument("image_summary '{}': images must be [batch, height, width, channels] with 1, 3 or 4 "
                             "channels, got {}", tag, images.DebugString());
    }
    const int64_t h = images.dim(1), w = images.dim(2), c = images.dim(3);
    const int64_t count = std::min(images.dim(0), max_images_);
    const size_t per_image = static_cast<size_t>(h * w * c);
    std::vector<double> values = summary::ValuesAsDoubles(images);
    pb::Summary s;
    for (int64_t i = 0; i < count; ++i) {
      const size_t begin = static_cast<size_t>(i) * per_image;
      TFG_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes,
                           ToBytes(values, begin, per_image, IsFloat(images.dtype()), tag));
      TFG_ASSIGN_OR_RETURN(std::string png, summary::EncodePng(bytes.data(), h, w, static_cast<int>(c)));
      pb::Summary::Value* v = s.add_value();
      v->set_tag(max_images_ > 1 ? fmt::format("{}/image/{}", tag, i) : tag + "/image");
      pb::Summary::Image* image = v->mutable_image();
      image->set_height(static_cast<int32_t>(h));
      image->set_width(static_cast<int32_t>(w));
      image->set_colorspace(static_cast<int32_t>(c));
      image->set_encoded_image_string(std::move(png));
    }
    return summary::SetSummaryOutput(ctx, s);
  }

 private:
  int64_t max_images_ = 3;
};

Status ImageSummaryShape(ShapeContext& c) {
  const int64_t max_images = *c.attr<int64_t>("max_images");
  if (max_images < 1) return InvalidArgument("image_summary: max_images must be at least 1, got {}", max_images);
  const PartialShape& images = c.input(1);
  if (images.known_rank() && images.rank() != 4) {
    return InvalidArgument("image_summary: images must be [batch, height, width, channels], got shape {}",
                           images.ToString());
  }
  if (images.known_rank() && images.dim(3) != PartialShape::kUnknown && !ValidChannels(images.dim(3))) {
    return InvalidArgument("image_summary: images need 1, 3 or 4 channels (gray, RGB, RGBA), got {}",
                           images.dim(3));
  }
  return summary::SummaryShapeFn(c);
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("image_summary")
                    .Input("tag", "string")
                    .Input("images", "T")
                    .Attr("max_images", AttrType::kInt, int64_t{3}, "how many images of the batch to keep")
                    .TypeAttr("T", {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64})
                    .Output("summary", "string")
                    .SetShapeFn(ImageSummaryShape)
                    .NoGradient("the output is a serialized protobuf, not a function of numbers")
                    .Doc("A serialized TensorBoard Summary holding the first `max_images` images of the "
                         "[batch, height, width, channels] tensor `images` (1 channel: gray, 3: RGB, 4: RGBA) "
                         "as PNGs, tagged `tag/image/0`, `tag/image/1`, ... (`tag/image` when max_images is 1). "
                         "Float pixels are in [0, 1] (clipped), integer pixels in [0, 255]."));
TFG_REGISTER_KERNEL(KernelDef("image_summary", DeviceType::kCpu).Create<ImageSummaryKernel>());

}  // namespace tfg
