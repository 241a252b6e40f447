// space_to_depth(input, block_size) and depth_to_space(input, block_size):
// tf.nn.space_to_depth / tf.nn.depth_to_space over NHWC tensors of any
// dtype. space_to_depth moves each block_size x block_size block of pixels
// into the channels: output[n, i, j, (bi * block + bj) * c + ch] =
// input[n, i * block + bi, j * block + bj, ch]; depth_to_space is its
// inverse. Each op's gradient is the other op.
#include <algorithm>
#include <string>

#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg::array::space_depth {
namespace {

constexpr bool kToDepth = true;

Result<int64_t> BlockSize(const std::string& op, const AttrMap& attrs) {
  const int64_t* block = FindAttr<int64_t>(attrs, "block_size");
  if (block == nullptr) return InvalidArgument("{}: block_size is missing", op);
  if (*block < 2) return InvalidArgument("{}: block_size must be at least 2, got {}", op, *block);
  return *block;
}

// The output shape of space_to_depth (to_depth) or depth_to_space; dims may
// be unknown (-1).
Result<PartialShape> SpaceDepthShape(const std::string& op, bool to_depth, const PartialShape& in, int64_t b) {
  if (!in.known_rank()) return PartialShape::UnknownOfRank(4);
  if (in.rank() != 4) {
    return InvalidArgument("{}: input must be 4-D [batch, height, width, channels], got {}", op, in.ToString());
  }
  const int64_t h = in.dim(1), w = in.dim(2), c = in.dim(3);
  if (to_depth) {
    for (int64_t d : {h, w}) {
      if (d >= 0 && d % b != 0) {
        return InvalidArgument("{}: height and width of input {} must be multiples of block_size {}", op,
                               in.ToString(), b);
      }
    }
    int64_t depth = -1;
    if (c >= 0) {
      TFG_ASSIGN_OR_RETURN(int64_t bb, checked::MulSize(op, "block_size^2", b, b));
      TFG_ASSIGN_OR_RETURN(depth, checked::MulSize(op, "output depth", c, bb));
    }
    return PartialShape({in.dim(0), h < 0 ? -1 : h / b, w < 0 ? -1 : w / b, depth});
  }
  TFG_ASSIGN_OR_RETURN(const int64_t bb, checked::MulSize(op, "block_size^2", b, b));
  if (c >= 0 && c % bb != 0) {
    return InvalidArgument("{}: channels of input {} must be a multiple of block_size^2 = {}", op, in.ToString(),
                           bb);
  }
  int64_t out_h = -1, out_w = -1;
  if (h >= 0) {
    TFG_ASSIGN_OR_RETURN(out_h, checked::MulSize(op, "output height", h, b));
  }
  if (w >= 0) {
    TFG_ASSIGN_OR_RETURN(out_w, checked::MulSize(op, "output width", w, b));
  }
  return PartialShape({in.dim(0), out_h, out_w, c < 0 ? -1 : c / bb});
}

template <bool kToDepthOp>
Status SpaceDepthShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t b, BlockSize(c.op().name, c.attrs()));
  TFG_ASSIGN_OR_RETURN(PartialShape out, SpaceDepthShape(c.op().name, kToDepthOp, c.input(0), b));
  c.set_output(0, std::move(out));
  return Status::OK();
}

// Copies between the spatial tensor [n, h, w, c] and the depth tensor
// [n, h/b, w/b, c*b*b], one run of c elements per pixel.
template <typename T>
void MoveBlocks(const OpKernelContext& ctx, bool to_depth, const TensorShape& spatial, int64_t b, const T* from,
                T* to) {
  const int64_t n = spatial.dim(0), h = spatial.dim(1), w = spatial.dim(2), c = spatial.dim(3);
  ctx.ParallelFor(n * h, w * c + 1, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t img = u / h, y = u % h, i = y / b, bi = y % b;
      for (int64_t x = 0; x < w; ++x) {
        const int64_t j = x / b, bj = x % b;
        const int64_t s = ((img * h + y) * w + x) * c;
        const int64_t d = ((img * (h / b) + i) * (w / b) + j) * c * b * b + (bi * b + bj) * c;
        if (to_depth) {
          std::copy_n(from + s, c, to + d);
        } else {
          std::copy_n(from + d, c, to + s);
        }
      }
    }
  });
}

template <bool kToDepthOp>
class SpaceDepthKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(block_, BlockSize(c.op->name, *c.attrs));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = ctx.info().op->name;
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(PartialShape shape, SpaceDepthShape(op, kToDepthOp, PartialShape(x.shape()), block_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape.ToTensorShape()));
    // Nothing to move; the pixel loop would still walk up to 2**62 pixels
    // of zero channels (op_fuzz found such a hang).
    if (out->num_elements() == 0) return Status::OK();
    const TensorShape& spatial = kToDepthOp ? x.shape() : out->shape();
    bool handled = TFG_DISPATCH_ALL(x.dtype(), T,
                                    { MoveBlocks<T>(ctx, kToDepthOp, spatial, block_, x.data<T>(), out->data<T>()); });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", op, DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  int64_t block_ = 2;
};

template <bool kToDepthOp>
Status SpaceDepthGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const char* inverse = kToDepthOp ? "depth_to_space" : "space_to_depth";
  TFG_ASSIGN_OR_RETURN(g.input_grads[0],
                       g.Op(inverse, {dy}, {{"block_size", *g.node->attr<int64_t>("block_size")}}));
  return Status::OK();
}

OpDefBuilder SpaceDepthOp(const char* name, bool to_depth, const char* doc) {
  OpDefBuilder b(name);
  b.Input("input", "T")
      .Attr("block_size", AttrType::kInt, std::nullopt, "the side of the square blocks, at least 2")
      .Output("output", "T")
      .TypeAttr("T", AllTypes())
      .SetShapeFn(to_depth ? SpaceDepthShapeFn<true> : SpaceDepthShapeFn<false>)
      .SetGradFn(to_depth ? GradFn(SpaceDepthGrad<true>) : GradFn(SpaceDepthGrad<false>))
      .Doc(doc);
  return b;
}

}  // namespace

TFG_REGISTER_OP(SpaceDepthOp("space_to_depth", kToDepth,
                             "Moves each block_size x block_size block of an NHWC input's pixels into its channels, "
                             "as tf.nn.space_to_depth: [n, h, w, c] -> [n, h/b, w/b, c*b*b] (h and w multiples of "
                             "b), channel (bi * b + bj) * c + ch of an output pixel holding input pixel (bi, bj) of "
                             "its block. Gradient: depth_to_space."));
TFG_REGISTER_OP(SpaceDepthOp("depth_to_space", !kToDepth,
                             "The inverse of space_to_depth, as tf.nn.depth_to_space: [n, h, w, c] -> [n, h*b, "
                             "w*b, c/(b*b)] (c a multiple of b*b). Gradient: space_to_depth."));
TFG_REGISTER_KERNEL(KernelDef("space_to_depth", DeviceType::kCpu).Create<SpaceDepthKernel<true>>());
TFG_REGISTER_KERNEL(KernelDef("depth_to_space", DeviceType::kCpu).Create<SpaceDepthKernel<false>>());

}  // namespace tfg::array::space_depth
