// multinomial(logits, num_samples, seed=0, output_dtype=i64): for every row
// of logits [batch, classes], num_samples class indices drawn independently
// with probabilities softmax(row), as tf.random.categorical (the old
// tf.multinomial). A logit of -inf is a class never drawn.
//
// Stream (random_stream.h): sample j of row r is element i = r*num_samples+j,
// the 64-bit uniform u = Uniform01(Join(word 2k, word 2k+1)) of block i/2,
// k = i%2. Its class is the first c whose cumulative weight
// sum_{c' <= c} exp(logit_c' - max) exceeds u * total (computed in f64).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/random/random_stream.h"

namespace tfg::random::multinomial {
namespace {

constexpr const char* kOp = "multinomial";

Status CheckNumSamples(int64_t n) {
  if (n < 0) return InvalidArgument("{}: num_samples must be >= 0, got {}", kOp, n);
  return Status::OK();
}

Status MultinomialShapeFn(ShapeContext& c) {
  const int64_t* n = c.attr<int64_t>("num_samples");
  if (n == nullptr) return Internal("{}: attribute 'num_samples' is missing", kOp);
  TFG_RETURN_IF_ERROR(CheckNumSamples(*n));
  const PartialShape& logits = c.input(0);
  if (!logits.known_rank()) {
    c.set_output(0, PartialShape({PartialShape::kUnknown, *n}));
    return Status::OK();
  }
  if (logits.rank() != 2) {
    return InvalidArgument("{}: logits must be a matrix [batch, classes], got shape {}", kOp, logits.ToString());
  }
  c.set_output(0, PartialShape({logits.dim(0), *n}));
  return Status::OK();
}

// The cumulative weights of one row; an error when no class can be drawn.
template <typename T>
Status RowCdf(const T* row, int64_t classes, int64_t r, std::vector<double>& cdf) {
  double top = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < classes; ++c) {
    const double v = static_cast<double>(row[c]);
    if (std::isnan(v) || v == std::numeric_limits<double>::infinity()) {
      return InvalidArgument("{}: logits row {} holds {} at class {}", kOp, r, v, c);
    }
    top = std::max(top, v);
  }
  if (std::isinf(top)) return InvalidArgument("{}: every logit of row {} is -inf: no class can be drawn", kOp, r);
  double total = 0;
  for (int64_t c = 0; c < classes; ++c) {
    total += std::exp(static_cast<double>(row[c]) - top);
    cdf[static_cast<size_t>(c)] = total;
  }
  return Status::OK();
}

template <typename T, typename Out>
Status Draw(const OpKernelContext& ctx, const RandomStream& stream, const Tensor& logits, int64_t num_samples,
            Out* out) {
  const int64_t batch = logits.dim(0), classes = logits.dim(1);
  std::vector<double> cdf(static_cast<size_t>(classes));
  for (int64_t r = 0; r < batch; ++r) {
    TFG_RETURN_IF_ERROR(RowCdf<T>(logits.data<T>() + r * classes, classes, r, cdf));
    for (int64_t j = 0; j < num_samples; ++j) {
      const uint64_t i = static_cast<uint64_t>(r * num_samples + j);
      const PhiloxCounter w = stream.Block(i / 2);
      const int k = static_cast<int>(i % 2);
      const double target = Uniform01(Join(w[2 * k], w[2 * k + 1])) * cdf.back();
      const auto it = std::upper_bound(cdf.begin(), cdf.end(), target);
      // A class of zero weight is never drawn: `target < cdf.back()` always.
      out[i] = static_cast<Out>(std::min<int64_t>(it - cdf.begin(), classes - 1));
    }
  }
  (void)ctx;
  return Status::OK();
}

class MultinomialKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const int64_t* n = c.attr<int64_t>("num_samples");
    const int64_t* seed = c.attr<int64_t>("seed");
    if (!n || !seed) return Internal("{}: missing attributes", kOp);
    TFG_RETURN_IF_ERROR(CheckNumSamples(*n));
    num_samples_ = *n;
    seed_ = *seed;
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& logits = ctx.input(0);
    if (logits.rank() != 2) {
      return InvalidArgument("{}: logits must be a matrix [batch, classes], got shape {}", kOp,
                             logits.shape().ToString());
    }
    if (logits.dim(1) == 0 && logits.dim(0) > 0 && num_samples_ > 0) {
      return InvalidArgument("{}: logits of shape {} have no classes to draw from", kOp, logits.shape().ToString());
    }
    TFG_ASSIGN_OR_RETURN(RandomStream stream, BeginRun(ctx, seed_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({logits.dim(0), num_samples_})));
    if (out->num_elements() == 0) return Status::OK();
    Status s = Status::OK();
    bool handled = TFG_DISPATCH_NUMBER(logits.dtype(), T, {
      if (out->dtype() == DType::kI32) {
        s = Draw<T>(ctx, stream, logits, num_samples_, out->data<int32_t>());
      } else {
        s = Draw<T>(ctx, stream, logits, num_samples_, out->data<int64_t>());
      }
    });
    if (!handled) return Unimplemented("{}: no CPU kernel for dtype {}", kOp, DTypeName(logits.dtype()));
    return s;
  }

 private:
  int64_t num_samples_ = 1;
  int64_t seed_ = 0;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("logits", "T")
                    .Attr("num_samples", AttrType::kInt, std::nullopt, "draws per row")
                    .Attr("seed", AttrType::kInt, int64_t{0}, "op seed; with the graph seed (--seed) fixes the stream")
                    .TypeAttr("T", FloatTypes())
                    .TypeAttr("output_dtype", {DType::kI32, DType::kI64}, DType::kI64)
                    .Output("samples", "output_dtype")
                    .Stateful()
                    .SetShapeFn(MultinomialShapeFn)
                    .NoGradient("random")
                    .Doc("Class indices drawn from the categorical distribution softmax(row) of every row of "
                         "`logits` [batch, classes]: [batch, num_samples], as tf.random.categorical "
                         "(tf.multinomial). -inf logits are never drawn; a row of only -inf, a NaN or +inf is an "
                         "error. Each run draws new samples; seed or --seed makes them reproducible."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<MultinomialKernel>());

}  // namespace tfg::random::multinomial
