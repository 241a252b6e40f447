// uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
// range_max, seed=0): classes drawn uniformly from [0, range_max), as
// tf.random.uniform_candidate_sampler. Outputs, expected counts and stream:
// candidate_sampler.h. Class(u) = floor(u * range_max); p(c) = 1/range_max.
#include <algorithm>

#include "ops/random/candidate_sampler.h"

namespace tfg::random::candidates {
namespace {

class UniformDistribution final : public Distribution {
 public:
  double Probability(int64_t, int64_t range_max) const override { return 1.0 / static_cast<double>(range_max); }
  int64_t Class(double u, int64_t range_max) const override {
    return std::min(static_cast<int64_t>(u * static_cast<double>(range_max)), range_max - 1);
  }
};

const UniformDistribution kUniform;

class UniformSamplerKernel final : public CandidateSamplerKernel {
 public:
  UniformSamplerKernel() : CandidateSamplerKernel("uniform_candidate_sampler", &kUniform) {}
};

}  // namespace

TFG_REGISTER_OP(CandidateSamplerOpDef(
    "uniform_candidate_sampler",
    "Draws `num_sampled` classes uniformly from [0, range_max) for sampled losses, as "
    "tf.random.uniform_candidate_sampler: `sampled, true_count, sampled_count = uniform_candidate_sampler(labels, "
    "1, 64, true, 10000)`. Returns the classes (i64), and the expected counts of the true classes [batch, "
    "num_true] and of the sampled ones (f32): num_sampled * p, or 1 - (1 - p)^tries when unique."));
TFG_REGISTER_KERNEL(KernelDef("uniform_candidate_sampler", DeviceType::kCpu).Create<UniformSamplerKernel>());

}  // namespace tfg::random::candidates
