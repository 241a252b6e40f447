// truncated_normal(shape, mean=0.0, stddev=1.0, dtype=f32, seed=0): normal
// values, redrawn while more than 2 standard deviations from the mean.
//
// Stream (see random_stream.h): with N output elements, element i tries
// blocks i, N+i, 2N+i, ... in turn; each block gives candidates as in
// random_normal (four for f16/f32, two for f64), and the element is
// mean + stddev * z for the first candidate z with |z| < 2. (After 64
// blocks without one — probability below 1e-80 — it takes the mean.)
#include <cmath>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/random/random_stream.h"

namespace tfg {
namespace {

constexpr double kBound = 2.0;
constexpr int kMaxAttempts = 64;

double TruncatedStandardNormal(const random::RandomStream& stream, uint64_t i, uint64_t n, bool wide) {
  for (uint64_t attempt = 0; attempt < kMaxAttempts; ++attempt) {
    double z[4];
    const int count = random::NormalsFromBlock(stream.Block(attempt * n + i), wide, z);
    for (int k = 0; k < count; ++k) {
      if (std::fabs(z[k]) < kBound) return z[k];
    }
  }
  return 0.0;
}

struct FillTruncated {
  static constexpr const char* kOp = "truncated_normal";
  template <typename T>
  static void Run(const OpKernelContext& ctx, const random::RandomStream& stream, const random::NormalParams& p,
                  Tensor& out) {
    const uint64_t n = static_cast<uint64_t>(out.num_elements());
    T* y = out.data<T>();
    const bool wide = std::is_same_v<T, double>;
    ctx.ParallelFor(out.num_elements(), 200, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        y[i] = static_cast<T>(p.mean + p.stddev * TruncatedStandardNormal(stream, static_cast<uint64_t>(i), n, wide));
      }
    });
  }
};

}  // namespace

TFG_REGISTER_OP(random::NormalOpDef("truncated_normal", "standard deviation before truncation",
                                    "Random values from a normal distribution truncated to within 2 standard "
                                    "deviations of the mean (values beyond are redrawn)."));
TFG_REGISTER_KERNEL(KernelDef("truncated_normal", DeviceType::kCpu).Create<random::NormalKernel<FillTruncated>>());

}  // namespace tfg
