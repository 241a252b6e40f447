// The shared declaration and kernel of the candidate samplers; see
// candidate_sampler.h for the outputs and the stream.
#include "ops/random/candidate_sampler.h"

#include <cmath>
#include <unordered_set>

#include "ops/random/random_stream.h"

namespace tfg::random::candidates {
namespace {

Result<SamplerParams> ReadParams(const char* op, const AttrMap& attrs) {
  SamplerParams p;
  const int64_t* num_true = FindAttr<int64_t>(attrs, "num_true");
  const int64_t* num_sampled = FindAttr<int64_t>(attrs, "num_sampled");
  const int64_t* range_max = FindAttr<int64_t>(attrs, "range_max");
  const int64_t* seed = FindAttr<int64_t>(attrs, "seed");
  const bool* unique = FindAttr<bool>(attrs, "unique");
  if (!num_true || !num_sampled || !range_max || !seed || !unique) return Internal("{}: missing attributes", op);
  p = {*num_true, *num_sampled, *range_max, *seed, *unique};
  if (p.num_true < 1) return InvalidArgument("{}: num_true must be >= 1, got {}", op, p.num_true);
  if (p.num_sampled < 0) return InvalidArgument("{}: num_sampled must be >= 0, got {}", op, p.num_sampled);
  if (p.range_max < 1) return InvalidArgument("{}: range_max must be >= 1, got {}", op, p.range_max);
  if (p.unique && p.num_sampled > p.range_max) {
    return InvalidArgument("{}: cannot draw {} distinct classes (unique=true) from a range of {}", op,
                           p.num_sampled, p.range_max);
  }
  return p;
}

Status CheckTrueClasses(const char* op, const PartialShape& t, int64_t num_true) {
  if (!t.known_rank()) return Status::OK();
  if (t.rank() != 2) {
    return InvalidArgument("{}: true_classes must be a matrix [batch, num_true], got shape {}", op, t.ToString());
  }
  if (t.dim(1) >= 0 && t.dim(1) != num_true) {
    return InvalidArgument("{}: true_classes of shape {} must have num_true = {} columns", op, t.ToString(), num_true);
  }
  return Status::OK();
}

Status SamplerShapeFn(ShapeContext& c) {
  const char* op = c.op().name.c_str();
  TFG_ASSIGN_OR_RETURN(SamplerParams p, ReadParams(op, c.attrs()));
  TFG_RETURN_IF_ERROR(CheckTrueClasses(op, c.input(0), p.num_true));
  const int64_t batch = c.input(0).known_rank() ? c.input(0).dim(0) : PartialShape::kUnknown;
  c.set_output(0, PartialShape({p.num_sampled}));
  c.set_output(1, PartialShape({batch, p.num_true}));
  c.set_output(2, PartialShape({p.num_sampled}));
  return Status::OK();
}

// Expected count of class c among the samples (see the header).
double ExpectedCount(double p, int64_t tries, const SamplerParams& params) {
  if (!params.unique) return p * static_cast<double>(params.num_sampled);
  return -std::expm1(static_cast<double>(tries) * std::log1p(-p));
}

}  // namespace

OpDefBuilder CandidateSamplerOpDef(const char* name, const char* doc) {
  return OpDefBuilder(name)
      .Input("true_classes", "i64")
      .Attr("num_true", AttrType::kInt, std::nullopt, "true classes per example (columns of true_classes)")
      .Attr("num_sampled", AttrType::kInt, std::nullopt, "how many classes to draw")
      .Attr("unique", AttrType::kBool, std::nullopt, "draw without replacement (distinct classes)")
      .Attr("range_max", AttrType::kInt, std::nullopt, "classes are drawn from [0, range_max)")
      .Attr("seed", AttrType::kInt, int64_t{0}, "op seed; with the graph seed (--seed) fixes the stream")
      .Output("sampled_candidates", "i64")
      .Output("true_expected_count", "f32")
      .Output("sampled_expected_count", "f32")
      .Stateful()
      .SetShapeFn(SamplerShapeFn)
      .NoGradient("random")
      .Doc(doc);
}

Status CandidateSamplerKernel::Init(const KernelConstruction& c) {
  TFG_ASSIGN_OR_RETURN(params_, ReadParams(name_, *c.attrs));
  return Status::OK();
}

Status CandidateSamplerKernel::Compute(OpKernelContext& ctx) {
  const Tensor& true_classes = ctx.input(0);
  TFG_RETURN_IF_ERROR(CheckTrueClasses(name_, PartialShape(true_classes.shape()), params_.num_true));
  TFG_ASSIGN_OR_RETURN(RandomStream stream, BeginRun(ctx, params_.seed));
  TFG_ASSIGN_OR_RETURN(Tensor * sampled, ctx.allocate_output(0, TensorShape({params_.num_sampled})));
  TFG_ASSIGN_OR_RETURN(Tensor * true_count, ctx.allocate_output(1, true_classes.shape()));
  TFG_ASSIGN_OR_RETURN(Tensor * sampled_count, ctx.allocate_output(2, TensorShape({params_.num_sampled})));
  const int64_t range = params_.range_max;
  int64_t* out = sampled->data<int64_t>();
  std::unordered_set<int64_t> seen;
  int64_t tries = 0;
  for (int64_t n = 0; n < params_.num_sampled; ++tries) {
    const PhiloxCounter w = stream.Block(static_cast<uint64_t>(tries) / 2);
    const int k = static_cast<int>(tries % 2);
    const int64_t c = dist_->Class(Uniform01(Join(w[2 * k], w[2 * k + 1])), range);
    if (params_.unique && !seen.insert(c).second) continue;
    out[n++] = c;
  }
  for (int64_t i = 0; i < params_.num_sampled; ++i) {
    sampled_count->data<float>()[i] =
        static_cast<float>(ExpectedCount(dist_->Probability(out[i], range), tries, params_));
  }
  const int64_t* t = true_classes.data<int64_t>();
  for (int64_t i = 0; i < true_classes.num_elements(); ++i) {
    // As TensorFlow, the formula also applies past range_max; a negative
    // class gets p = 0 (TensorFlow's log-uniform formula has no value there).
    const double p = t[i] >= 0 ? dist_->Probability(t[i], range) : 0.0;
    true_count->data<float>()[i] = static_cast<float>(ExpectedCount(p, tries, params_));
  }
  return Status::OK();
}

}  // namespace tfg::random::candidates
