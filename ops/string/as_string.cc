// as_string(input, precision=-1, scientific=false, shortest=false,
// width=-1, fill=""): tf.strings.as_string (AsString). Formats numbers with
// C's printf as TensorFlow does: floats "%f" (six decimals) unless
// `precision`, `scientific` ("%e") or `shortest` ("%g") say otherwise;
// integers "%d"; bools "true"/"false"; strings pass through. `width` pads
// on the left with spaces, or with `fill` ("0", " ", "+", "-" or "#",
// printf's flags).
#include <cstdio>
#include <string>
#include <type_traits>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg::string_ops {
namespace {

struct AsStringAttrs {
  int64_t precision = -1, width = -1;
  bool scientific = false, shortest = false;
  std::string fill;
};

AsStringAttrs ReadAsStringAttrs(const AttrMap& attrs) {
  AsStringAttrs a;
  if (const int64_t* v = FindAttr<int64_t>(attrs, "precision")) a.precision = *v;
  if (const int64_t* v = FindAttr<int64_t>(attrs, "width")) a.width = *v;
  if (const bool* v = FindAttr<bool>(attrs, "scientific")) a.scientific = *v;
  if (const bool* v = FindAttr<bool>(attrs, "shortest")) a.shortest = *v;
  if (const std::string* v = FindAttr<std::string>(attrs, "fill")) a.fill = *v;
  return a;
}

// The printf format for `dtype`, built as TensorFlow's AsStringOp builds it.
Result<std::string> FormatFor(const AsStringAttrs& a, DType dtype) {
  const bool is_float = dtype == DType::kF16 || dtype == DType::kF32 || dtype == DType::kF64;
  if (a.scientific && a.shortest) return InvalidArgument("as_string: cannot select both scientific and shortest notation");
  if ((a.scientific || a.shortest) && !is_float) {
    return InvalidArgument("as_string: scientific and shortest apply to floats, not {}", DTypeName(dtype));
  }
  if (a.precision > -1 && !is_float) {
    return InvalidArgument("as_string: precision not supported for datatype {}", DTypeName(dtype));
  }
  if (a.fill.size() > 1 || (a.fill.size() == 1 && std::string(" +-0#").find(a.fill[0]) == std::string::npos)) {
    return InvalidArgument("as_string: fill argument not supported: \"{}\" (one of \" \", \"+\", \"-\", \"0\", \"#\")",
                           a.fill);
  }
  if (a.width > 1000 || a.precision > 1000) {
    return InvalidArgument("as_string: width {} or precision {} is over 1000", a.width, a.precision);
  }
  std::string format = "%" + a.fill;
  if (a.width > -1) format += std::to_string(a.width);
  if (a.precision > -1) format += "." + std::to_string(a.precision);
  if (is_float) return format + (a.shortest ? "g" : a.scientific ? "e" : "f");
  return format + "lld";  // every integer as long long
}

template <typename V>
std::string Format(const std::string& format, V v) {
  const int n = std::snprintf(nullptr, 0, format.c_str(), v);
  if (n <= 0) return "";
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), format.c_str(), v);
  s.resize(static_cast<size_t>(n));
  return s;
}

Status AsStringShapeFn(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(FormatFor(ReadAsStringAttrs(c.attrs()), c.input_type(0)).status());
  c.set_output(0, c.input(0));
  return Status::OK();
}

class AsStringKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = ReadAsStringAttrs(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    std::string* y = out->data<std::string>();
    const int64_t n = x.num_elements();
    if (x.dtype() == DType::kString) {
      for (int64_t i = 0; i < n; ++i) y[i] = x.data<std::string>()[i];
      return Status::OK();
    }
    if (x.dtype() == DType::kBool) {
      for (int64_t i = 0; i < n; ++i) y[i] = x.data<bool>()[i] ? "true" : "false";
      return Status::OK();
    }
    TFG_ASSIGN_OR_RETURN(std::string format, FormatFor(attrs_, x.dtype()));
    bool handled = TFG_DISPATCH_NUMBER(x.dtype(), T, {
      const T* v = x.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<T>) {
          y[i] = Format(format, static_cast<long long>(v[i]));
        } else if constexpr (std::is_same_v<T, double>) {
          y[i] = Format(format, v[i]);
        } else {
          y[i] = Format(format, static_cast<double>(static_cast<float>(v[i])));
        }
      }
    });
    if (!handled) return Unimplemented("as_string: no CPU kernel for dtype {}", DTypeName(x.dtype()));
    return Status::OK();
  }

 private:
  AsStringAttrs attrs_;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("as_string")
                    .Input("input", "T")
                    .Attr("precision", AttrType::kInt, int64_t{-1}, "digits after the point of floats; -1: 6")
                    .Attr("scientific", AttrType::kBool, false, "floats as 1.234500e+03")
                    .Attr("shortest", AttrType::kBool, false, "floats in the shorter of %f and %e (printf's %g)")
                    .Attr("width", AttrType::kInt, int64_t{-1}, "pad to at least this many characters; -1: none")
                    .Attr("fill", AttrType::kString, std::string(""),
                          "\"0\" pads with zeros (after the sign), \"-\" on the right; \" \", \"+\", \"#\" as printf")
                    .Output("output", "string")
                    .TypeAttr("T", AllTypes())
                    .SetShapeFn(AsStringShapeFn)
                    .NoGradient("string output")
                    .Doc("Each element as a string, as tf.strings.as_string (printf's formats): floats with six "
                         "decimals (\"1.500000\", \"nan\", \"inf\") unless precision, scientific or shortest "
                         "say otherwise, integers in decimal, bools \"true\"/\"false\", strings unchanged."));
TFG_REGISTER_KERNEL(KernelDef("as_string", DeviceType::kCpu).Create<AsStringKernel>());

}  // namespace tfg::string_ops
