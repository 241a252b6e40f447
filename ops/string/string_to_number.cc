// string_to_number(string_tensor, out_type=f32): tf.strings.to_number
// (StringToNumber). Floats parse as strtod does ("1e3", ".5", "0x10",
// "inf", "nan"; out of f32's range: ±inf or 0), integers as decimal
// digits with an optional sign; surrounding spaces are allowed, anything
// else (an empty string, "12abc", "1.5" as an integer, an integer out of
// range) is an error naming the string, as TensorFlow's.
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg::string_ops {
namespace {

bool IsSpace(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v'; }

std::string Trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool ParseDouble(const std::string& s, double* out) {
  const std::string t = Trimmed(s);
  if (t.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(t.c_str(), &end);  // out of range: ±HUGE_VAL or 0, as TensorFlow's
  return end == t.c_str() + t.size();
}

template <typename I>
bool ParseInt(const std::string& s, I* out) {
  const std::string t = Trimmed(s);
  size_t i = 0;
  const bool negative = i < t.size() && t[i] == '-';
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  if (i == t.size()) return false;
  // Accumulates the magnitude as negative, which reaches INT_MIN.
  I v = 0;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
    const I digit = static_cast<I>(t[i] - '0');
    if (v < (std::numeric_limits<I>::min() + digit) / 10) return false;
    v = static_cast<I>(v * 10 - digit);
  }
  if (!negative) {
    if (v == std::numeric_limits<I>::min()) return false;
    v = static_cast<I>(-v);
  }
  *out = v;
  return true;
}

template <typename T>
bool ParseNumber(const std::string& s, T* out) {
  if constexpr (std::is_integral_v<T>) {
    return ParseInt<T>(s, out);
  } else {
    double d = 0;
    if (!ParseDouble(s, &d)) return false;
    if constexpr (std::is_same_v<T, double>) {
      *out = d;
    } else {
      *out = static_cast<T>(static_cast<float>(d));  // f16 through f32, as TensorFlow's
    }
    return true;
  }
}

class StringToNumberKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    const std::string* in = x.data<std::string>();
    Status status = Status::OK();
    bool handled = TFG_DISPATCH_NUMBER(out->dtype(), T, {
      T* y = out->data<T>();
      for (int64_t i = 0; i < x.num_elements() && status.ok(); ++i) {
        if (!ParseNumber<T>(in[i], &y[i])) {
          status = InvalidArgument("string_to_number: could not convert string '{}' at index {} to {}", in[i], i,
                                   DTypeName(out->dtype()));
        }
      }
    });
    if (!handled) return Unimplemented("string_to_number: no CPU kernel for dtype {}", DTypeName(out->dtype()));
    return status;
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("string_to_number")
                    .Input("string_tensor", "string")
                    .TypeAttr("out_type", NumberTypes(), DType::kF32)
                    .Output("output", "out_type")
                    .SetShapeFn(shape_fns::Unchanged)
                    .NoGradient("string input")
                    .Doc("Parses each string as a number of `out_type` (default f32), as tf.strings.to_number: "
                         "floats as C's strtod (\"1e3\", \".5\", \"inf\", \"nan\"), integers as decimal digits "
                         "with a sign; spaces around are allowed, anything else is an error naming the string."));
TFG_REGISTER_KERNEL(KernelDef("string_to_number", DeviceType::kCpu).Create<StringToNumberKernel>());

}  // namespace tfg::string_ops
