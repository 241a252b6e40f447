// log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique,
// range_max, seed=0): classes drawn from the log-uniform (Zipfian)
// distribution p(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1), which
// suits vocabularies sorted by decreasing frequency; as
// tf.random.log_uniform_candidate_sampler. Outputs, expected counts and
// stream: candidate_sampler.h. Class(u) = floor(exp(u * log(range_max + 1)))
// - 1 (TensorFlow's LogUniformSampler).
#include <algorithm>
#include <cmath>

#include "ops/random/candidate_sampler.h"

namespace tfg::random::candidates {
namespace {

class LogUniformDistribution final : public Distribution {
 public:
  double Probability(int64_t c, int64_t range_max) const override {
    const double v = static_cast<double>(c);
    return std::log((v + 2.0) / (v + 1.0)) / std::log(static_cast<double>(range_max) + 1.0);
  }
  int64_t Class(double u, int64_t range_max) const override {
    const double log_range = std::log(static_cast<double>(range_max) + 1.0);
    const int64_t c = static_cast<int64_t>(std::exp(u * log_range)) - 1;
    return std::clamp<int64_t>(c, 0, range_max - 1);
  }
};

const LogUniformDistribution kLogUniform;

class LogUniformSamplerKernel final : public CandidateSamplerKernel {
 public:
  LogUniformSamplerKernel() : CandidateSamplerKernel("log_uniform_candidate_sampler", &kLogUniform) {}
};

}  // namespace

TFG_REGISTER_OP(CandidateSamplerOpDef(
    "log_uniform_candidate_sampler",
    "Draws `num_sampled` classes from [0, range_max) with the log-uniform (Zipfian) distribution "
    "p(c) = log((c + 2) / (c + 1)) / log(range_max + 1), for vocabularies sorted by decreasing frequency, as "
    "tf.random.log_uniform_candidate_sampler. Returns the classes (i64), and the expected counts of the true "
    "classes [batch, num_true] and of the sampled ones (f32): num_sampled * p, or 1 - (1 - p)^tries when unique."));
TFG_REGISTER_KERNEL(KernelDef("log_uniform_candidate_sampler", DeviceType::kCpu).Create<LogUniformSamplerKernel>());

}  // namespace tfg::random::candidates
