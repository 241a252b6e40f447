// random_uniform(shape, minval=0.0, maxval=1.0, dtype=f32, seed=0): values
// uniform in [minval, maxval) (maxval exclusive for integers too).
//
// Stream (see random_stream.h for keys, runs and blocks): f16, f32 and i32
// take element i from word i%4 of block i/4; f64 and i64 take the 64-bit
// Join(word 2k, word 2k+1), k = i%2, of block i/2. From bits w:
//   f32: minval + Uniform01(w) * (maxval - minval), computed in float;
//   f16: the same in float with u = (w >> 21) * 2^-11, then rounded to f16;
//   f64: minval + Uniform01(w64) * (maxval - minval);
//   i32/i64: minval + w % (maxval - minval) (w the 32- or 64-bit value).
#include <cmath>
#include <limits>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/random/random_stream.h"

namespace tfg {
namespace {

using random::FillFromBlocks;
using random::PhiloxCounter;

class RandomUniformKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    const auto* dims = c.attr<std::vector<int64_t>>("shape");
    const double* lo = c.attr<double>("minval");
    const double* hi = c.attr<double>("maxval");
    const int64_t* seed = c.attr<int64_t>("seed");
    if (!dims || !lo || !hi || !seed) return Internal("random_uniform: missing attributes");
    for (int64_t d : *dims) {
      if (d < 0) return InvalidArgument("random_uniform: shape has a negative dimension {}", d);
    }
    shape_ = TensorShape(*dims);
    lo_ = *lo;
    hi_ = *hi;
    seed_ = *seed;
    dtype_ = c.output_types[0];
    return IsInteger(dtype_) ? CheckIntRange() : Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(random::RandomStream stream, random::BeginRun(ctx, seed_));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape_));
    const int64_t n = out->num_elements();
    switch (dtype_) {
      case DType::kF32: {
        const float lo = static_cast<float>(lo_), span = static_cast<float>(hi_ - lo_);
        FillFromBlocks<4>(ctx, stream, n, out->data<float>(), [&](const PhiloxCounter& w, float* v) {
          for (int j = 0; j < 4; ++j) v[j] = lo + random::Uniform01(w[j]) * span;
        });
        break;
      }
      case DType::kF16: {
        const float lo = static_cast<float>(lo_), span = static_cast<float>(hi_ - lo_);
        FillFromBlocks<4>(ctx, stream, n, out->data<half>(), [&](const PhiloxCounter& w, half* v) {
          for (int j = 0; j < 4; ++j) v[j] = static_cast<half>(lo + static_cast<float>(w[j] >> 21) * 0x1p-11f * span);
        });
        break;
      }
      case DType::kF64:
        FillFromBlocks<2>(ctx, stream, n, out->data<double>(), [&](const PhiloxCounter& w, double* v) {
          for (int j = 0; j < 2; ++j) v[j] = lo_ + random::Uniform01(random::Join(w[2 * j], w[2 * j + 1])) * (hi_ - lo_);
        });
        break;
      case DType::kI32: {
        const int64_t lo = static_cast<int64_t>(lo_);
        const uint32_t span = static_cast<uint32_t>(static_cast<int64_t>(hi_) - lo);
        FillFromBlocks<4>(ctx, stream, n, out->data<int32_t>(), [&](const PhiloxCounter& w, int32_t* v) {
          for (int j = 0; j < 4; ++j) v[j] = static_cast<int32_t>(lo + w[j] % span);
        });
        break;
      }
      case DType::kI64: {
        const int64_t lo = static_cast<int64_t>(lo_);
        const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi_)) - static_cast<uint64_t>(lo);
        FillFromBlocks<2>(ctx, stream, n, out->data<int64_t>(), [&](const PhiloxCounter& w, int64_t* v) {
          for (int j = 0; j < 2; ++j) {
            v[j] = static_cast<int64_t>(static_cast<uint64_t>(lo) + random::Join(w[2 * j], w[2 * j + 1]) % span);
          }
        });
        break;
      }
      default:
        return Internal("random_uniform: unsupported dtype {}", DTypeName(dtype_));
    }
    return Status::OK();
  }

 private:
  // Integer bounds must be whole, ordered and representable in the dtype.
  Status CheckIntRange() const {
    const bool i32 = dtype_ == DType::kI32;
    const double tmin = i32 ? std::numeric_limits<int32_t>::min() : -0x1p63;
    const double tend = i32 ? 0x1p31 : 0x1p63;  // first value past the type's range
    if (std::trunc(lo_) != lo_ || std::trunc(hi_) != hi_ || lo_ < tmin || hi_ >= tend) {
      return InvalidArgument("random_uniform: minval ({}) and maxval ({}) must be whole numbers in the range of {}", lo_,
                             hi_, DTypeName(dtype_));
    }
    if (!(lo_ < hi_)) {
      return InvalidArgument("random_uniform: maxval ({}) must be greater than minval ({}) for integer dtype {}", hi_,
                             lo_, DTypeName(dtype_));
    }
    return Status::OK();
  }

  TensorShape shape_;
  double lo_ = 0, hi_ = 1;
  int64_t seed_ = 0;
  DType dtype_ = DType::kF32;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("random_uniform")
                    .Attr("shape", AttrType::kIntList, std::nullopt, "the output shape")
                    .Attr("minval", AttrType::kFloat, 0.0, "lower bound (inclusive)")
                    .Attr("maxval", AttrType::kFloat, 1.0, "upper bound (exclusive)")
                    .TypeAttr("dtype", NumberTypes(), DType::kF32)
                    .Attr("seed", AttrType::kInt, int64_t{0}, "op seed; with the graph seed (--seed) fixes the stream")
                    .Output("y", "dtype")
                    .Stateful()
                    .SetShapeFn(random::RandomShapeFn)
                    .NoGradient("random")
                    .Doc("Random values uniform in [minval, maxval). Each run draws new values; a non-zero seed "
                         "or --seed makes the sequence of runs reproducible."));
TFG_REGISTER_KERNEL(KernelDef("random_uniform", DeviceType::kCpu).Create<RandomUniformKernel>());

}  // namespace tfg
