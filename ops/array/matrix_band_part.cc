// matrix_band_part(input, num_lower, num_upper): tf.linalg.band_part. Every
// innermost matrix [m, n] of input (rank >= 2) keeps its band, the (i, j)
// with i - j <= num_lower and j - i <= num_upper, and is zero elsewhere; a
// negative bound keeps that whole triangle (band_part(x, 0, -1) is the upper
// triangle, (0, 0) the diagonal). A bound above the matrix's rows (columns)
// is an error, as in TensorFlow. CPU kernel only (no GPU kernel yet).
// Gradient: the same band of dy.
#include <string>
#include <type_traits>

#include "ops/autodiff/gradients.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg::array::band_part {
namespace {

constexpr const char* kOp = "matrix_band_part";

Result<int64_t> BoundOf(const Tensor& t, const char* name) {
  if (t.rank() != 0) return InvalidArgument("{}: {} must be a scalar, got shape {}", kOp, name, t.shape().ToString());
  return t.dtype() == DType::kI32 ? static_cast<int64_t>(t.data<int32_t>()[0]) : t.data<int64_t>()[0];
}

Status CheckBound(int64_t bound, int64_t limit, const char* name, const char* what) {
  if (bound > limit) {
    return InvalidArgument("{}: {} must be negative or at most the number of {} ({}), got {}", kOp, name, what,
                           limit, bound);
  }
  return Status::OK();
}

Status BandPartShapeFn(ShapeContext& c) {
  const PartialShape& x = c.input(0);
  if (x.known_rank() && x.rank() < 2) {
    return InvalidArgument("{}: input must have rank >= 2, got shape {}", kOp, x.ToString());
  }
  for (int i : {1, 2}) {
    if (c.input(i).known_rank() && c.input(i).rank() != 0) {
      return InvalidArgument("{}: {} must be a scalar, got shape {}", kOp, i == 1 ? "num_lower" : "num_upper",
                             c.input(i).ToString());
    }
  }
  c.set_output(0, x);
  return Status::OK();
}

template <typename T>
T Zero() {
  if constexpr (std::is_same_v<T, std::string>) {
    return T();
  } else {
    return static_cast<T>(0);
  }
}

template <typename T>
void KeepBand(const OpKernelContext& ctx, const T* x, T* y, int64_t batch, int64_t m, int64_t n, int64_t lower,
              int64_t upper) {
  ctx.ParallelFor(batch * m, n, [&](int64_t s, int64_t e) {
    for (int64_t r = s; r < e; ++r) {
      const int64_t i = r % m;
      for (int64_t j = 0; j < n; ++j) {
        const bool kept = (lower < 0 || i - j <= lower) && (upper < 0 || j - i <= upper);
        y[r * n + j] = kept ? x[r * n + j] : Zero<T>();
      }
    }
  });
}

class BandPartKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) return InvalidArgument("{}: input must have rank >= 2, got shape {}", kOp, x.shape().ToString());
    TFG_ASSIGN_OR_RETURN(int64_t lower, BoundOf(ctx.input(1), "num_lower"));
    TFG_ASSIGN_OR_RETURN(int64_t upper, BoundOf(ctx.input(2), "num_upper"));
    const int64_t m = x.dim(x.rank() - 2), n = x.dim(x.rank() - 1);
    TFG_RETURN_IF_ERROR(CheckBound(lower, m, "num_lower", "rows"));
    TFG_RETURN_IF_ERROR(CheckBound(upper, n, "num_upper", "columns"));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    if (x.num_elements() == 0) return Status::OK();
    const int64_t batch = x.num_elements() / (m * n);
    bool ok = TFG_DISPATCH_ALL(x.dtype(), T,
                               { KeepBand(ctx, x.data<T>(), out->data<T>(), batch, m, n, lower, upper); });
    if (!ok) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(x.dtype()));
    return Status::OK();
  }
};

Status BandPartGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op(kOp, {dy, g.input(1), g.input(2)}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("input", "T")
                    .Input("num_lower", "Tindex")
                    .Input("num_upper", "Tindex")
                    .Output("band", "T")
                    .TypeAttr("T", AllTypes())
                    .TypeAttr("Tindex", {DType::kI32, DType::kI64})
                    .SetShapeFn(BandPartShapeFn)
                    .SetGradFn(BandPartGrad)
                    .Doc("tf.linalg.band_part: each innermost matrix of input (rank >= 2) keeps the elements (i, "
                         "j) with i - j <= num_lower and j - i <= num_upper and is zero elsewhere; a negative bound "
                         "keeps that whole triangle. Gradient: the same band of dy."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<BandPartKernel>());

}  // namespace tfg::array::band_part
