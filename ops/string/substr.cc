// substr(input, pos, len): tf.strings.substr with unit "BYTE". Byte `pos`
// (negative counts from the end) and up to `len` bytes after it (a negative
// len takes the rest); pos outside [-size, size] is an error naming the
// string, as TensorFlow's. pos and len are each a scalar or of input's shape.
#include <algorithm>
#include <string>

#include "ops/core/op_registry.h"

namespace tfg::string_ops {
namespace {

Status CheckSubstrOperand(const char* what, const PartialShape& s, const PartialShape& input) {
  if (!s.known_rank() || !input.known_rank() || s.rank() == 0 || s.CompatibleWith(input)) return Status::OK();
  return InvalidArgument("substr: {} must be a scalar or of the input's shape {}, got {}", what, input.ToString(),
                         s.ToString());
}

Status SubstrShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(CheckSubstrOperand("pos", c.input(1), c.input(0)));
  TFG_RETURN_IF_ERROR(CheckSubstrOperand("len", c.input(2), c.input(0)));
  c.set_output(0, c.input(0));
  return Status::OK();
}

int64_t IndexAt(const Tensor& t, int64_t i) {
  const int64_t at = t.rank() == 0 ? 0 : i;
  return t.dtype() == DType::kI32 ? t.data<int32_t>()[at] : t.data<int64_t>()[at];
}

class SubstrKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    const Tensor& pos = ctx.input(1);
    const Tensor& len = ctx.input(2);
    TFG_RETURN_IF_ERROR(CheckSubstrOperand("pos", PartialShape(pos.shape()), PartialShape(x.shape())));
    TFG_RETURN_IF_ERROR(CheckSubstrOperand("len", PartialShape(len.shape()), PartialShape(x.shape())));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    const std::string* in = x.data<std::string>();
    std::string* y = out->data<std::string>();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      const int64_t size = static_cast<int64_t>(in[i].size());
      int64_t p = IndexAt(pos, i);
      if (p < -size || p > size) {
        return InvalidArgument("substr: pos {} out of range for string '{}' at index {}", p, in[i], i);
      }
      if (p < 0) p += size;
      int64_t n = IndexAt(len, i);
      n = n < 0 ? size - p : std::min(n, size - p);
      y[i] = in[i].substr(static_cast<size_t>(p), static_cast<size_t>(n));
    }
    return Status::OK();
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("substr")
                    .Input("input", "string")
                    .Input("pos", "Tidx")
                    .Input("len", "Tidx")
                    .Output("output", "string")
                    .TypeAttr("Tidx", {DType::kI32, DType::kI64})
                    .SetShapeFn(SubstrShapeFn)
                    .NoGradient("string output")
                    .Doc("The substring of `len` bytes from byte `pos` of each string, as tf.strings.substr "
                         "(unit BYTE): a negative pos counts from the end, len is cut at the end of the string "
                         "(a negative len takes the rest), and pos outside [-size, size] is an error. pos and "
                         "len are scalars or of the input's shape."));
TFG_REGISTER_KERNEL(KernelDef("substr", DeviceType::kCpu).Create<SubstrKernel>());

}  // namespace tfg::string_ops
