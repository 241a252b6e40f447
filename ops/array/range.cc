// range(start, limit, delta): [start, start+delta, ...) up to but not
// including limit, as TensorFlow: delta may be negative (then start >=
// limit), delta 0 is an error, and so is a delta pointing away from limit.
#include <cmath>
#include <limits>

#include "ops/array/array_util.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

constexpr uint64_t kMaxRangeSize = uint64_t{1} << 48;

Status RangeError(double start, double limit, double delta) {
  if (delta == 0) return InvalidArgument("range: delta must not be 0");
  return InvalidArgument("range: start ({}) must be {} limit ({}) when delta ({}) is {}", start,
                         delta > 0 ? "<=" : ">=", limit, delta, delta > 0 ? "positive" : "negative");
}

Result<int64_t> FloatRangeSize(double start, double limit, double delta) {
  if (delta == 0 || (delta > 0 && start > limit) || (delta < 0 && start < limit)) {
    return RangeError(start, limit, delta);
  }
  const double n = std::ceil(std::fabs((limit - start) / delta));
  if (!std::isfinite(n) || n > static_cast<double>(kMaxRangeSize)) {
    return InvalidArgument("range: start {}, limit {} and delta {} give too many elements", start, limit, delta);
  }
  return static_cast<int64_t>(n);
}

Result<int64_t> IntRangeSize(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0 || (delta > 0 && start > limit) || (delta < 0 && start < limit)) {
    return RangeError(static_cast<double>(start), static_cast<double>(limit), static_cast<double>(delta));
  }
  // Unsigned arithmetic: |limit - start| and |delta| fit in uint64 even for
  // extreme int64 values.
  const uint64_t diff = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                  : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
  const uint64_t step = delta > 0 ? static_cast<uint64_t>(delta) : 0 - static_cast<uint64_t>(delta);
  const uint64_t n = diff / step + (diff % step != 0 ? 1 : 0);
  if (n > kMaxRangeSize) {
    return InvalidArgument("range: start {}, limit {} and delta {} give too many elements", start, limit, delta);
  }
  return static_cast<int64_t>(n);
}

// The element count for three scalar tensors of one numeric dtype.
Result<int64_t> RangeSize(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  if (IsInteger(start.dtype())) {
    auto get = [](const Tensor& t) {
      return t.dtype() == DType::kI32 ? int64_t{t.scalar<int32_t>()} : t.scalar<int64_t>();
    };
    return IntRangeSize(get(start), get(limit), get(delta));
  }
  auto get = [](const Tensor& t) -> double {
    switch (t.dtype()) {
      case DType::kF16: return static_cast<float>(t.scalar<half>());
      case DType::kF32: return t.scalar<float>();
      default: return t.scalar<double>();
    }
  };
  return FloatRangeSize(get(start), get(limit), get(delta));
}

Status CheckScalars(const char* names[3], const std::vector<TensorShape>& shapes) {
  for (int i = 0; i < 3; ++i) {
    if (shapes[i].rank() != 0) return InvalidArgument("range: {} must be a scalar, got shape {}", names[i], shapes[i].ToString());
  }
  return Status::OK();
}

const char* kNames[3] = {"start", "limit", "delta"};

Status RangeShapeFn(ShapeContext& c) {
  for (int i = 0; i < 3; ++i) {
    if (c.input(i).known_rank() && c.input(i).rank() != 0) {
      return InvalidArgument("range: {} must be a scalar, got shape {}", kNames[i], c.input(i).ToString());
    }
  }
  const Tensor *start = c.input_value(0), *limit = c.input_value(1), *delta = c.input_value(2);
  if (start == nullptr || limit == nullptr || delta == nullptr) {
    c.set_output(0, PartialShape::UnknownOfRank(1));
    return Status::OK();
  }
  TFG_RETURN_IF_ERROR(CheckScalars(kNames, {start->shape(), limit->shape(), delta->shape()}));
  TFG_ASSIGN_OR_RETURN(int64_t n, RangeSize(*start, *limit, *delta));
  c.set_output(0, PartialShape({n}));
  return Status::OK();
}

template <typename T>
void FillRange(const Tensor& start, const Tensor& delta, Tensor& out) {
  using Acc = std::conditional_t<std::is_same_v<T, half>, float, T>;
  const Acc s = static_cast<Acc>(start.scalar<T>()), d = static_cast<Acc>(delta.scalar<T>());
  T* y = out.data<T>();
  for (int64_t i = 0; i < out.num_elements(); ++i) y[i] = static_cast<T>(s + static_cast<Acc>(i) * d);
}

class RangeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor &start = ctx.input(0), &limit = ctx.input(1), &delta = ctx.input(2);
    TFG_RETURN_IF_ERROR(CheckScalars(kNames, {start.shape(), limit.shape(), delta.shape()}));
    TFG_ASSIGN_OR_RETURN(int64_t n, RangeSize(start, limit, delta));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({n})));
    TFG_DISPATCH_NUMBER(start.dtype(), T, { FillRange<T>(start, delta, *out); });
    return Status::OK();
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("range")
                    .Input("start", "T")
                    .Input("limit", "T")
                    .Input("delta", "T")
                    .Output("y", "T")
                    .TypeAttr("T", NumberTypes())
                    .SetShapeFn(RangeShapeFn)
                    .NoGradient("the output does not depend smoothly on the inputs")
                    .Doc("The 1-D sequence start, start+delta, ... up to but excluding limit. delta may be "
                         "negative (counting down from start to limit); 0 is an error."));
TFG_REGISTER_KERNEL(KernelDef("range", DeviceType::kCpu).Create<RangeKernel>());

}  // namespace tfg
