// What uniform_candidate_sampler and log_uniform_candidate_sampler share
// (TensorFlow's CandidateSampler ops): one declaration, one kernel, and a
// distribution over [0, range_max) that each op supplies.
//
// Outputs, as TensorFlow's:
//   sampled_candidates [num_sampled] i64: the draws (distinct when unique);
//   true_expected_count [batch, num_true] f32 and
//   sampled_expected_count [num_sampled] f32: how often each class is
//   expected among the samples. With unique=false that is num_sampled * p(c);
//   with unique=true, where draws repeat until num_sampled distinct classes
//   came up after `tries` draws, it is 1 - (1 - p(c))^tries (TensorFlow's
//   RangeSampler::SampleBatchGetExpectedCountAvoid).
//
// Stream (random_stream.h): draw t (t = 0, 1, ...) takes the 64-bit uniform
// u = Uniform01(Join(word 2k, word 2k+1)) of block t/2, k = t%2, and maps it
// to a class with the distribution's Class(u).
#pragma once

#include <cstdint>

#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"

namespace tfg::random::candidates {

struct SamplerParams {
  int64_t num_true = 1, num_sampled = 1, range_max = 1, seed = 0;
  bool unique = true;
};

class Distribution {
 public:
  virtual ~Distribution() = default;
  virtual double Probability(int64_t c, int64_t range_max) const = 0;
  // A class in [0, range_max) from u uniform in [0, 1).
  virtual int64_t Class(double u, int64_t range_max) const = 0;
};

// The op declaration; `dist_doc` says what the distribution is.
OpDefBuilder CandidateSamplerOpDef(const char* name, const char* doc);

// The kernel for the op `name` drawing from `dist` (a static object).
class CandidateSamplerKernel : public OpKernel {
 public:
  CandidateSamplerKernel(const char* name, const Distribution* dist) : name_(name), dist_(dist) {}
  Status Init(const KernelConstruction& c) override;
  Status Compute(OpKernelContext& ctx) override;

 private:
  const char* name_;
  const Distribution* dist_;
  SamplerParams params_;
};

}  // namespace tfg::random::candidates
