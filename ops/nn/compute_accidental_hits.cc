// compute_accidental_hits(true_classes, sampled_candidates, num_true) ->
// (indices i32, ids i64, weights f32): where a sampled candidate equals one
// of an example's true classes, as tf.nn.compute_accidental_hits. For every
// example i and true class t of it (in row-major order) that is among the
// candidates, one hit: indices = i, ids = the candidate's position (the last
// one when the candidate was drawn more than once, as TensorFlow's map) and
// weights = -FLT_MAX, which sampled losses add to that example's logit of
// that candidate so the true class does not count as a negative.
#include <cfloat>
#include <unordered_map>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/nn/nn_util.h"

namespace tfg::nn::accidental_hits {
namespace {

constexpr const char* kOp = "compute_accidental_hits";

Status CheckShapes(const PartialShape& t, const PartialShape& sampled, int64_t num_true) {
  if (num_true < 1) return InvalidArgument("{}: num_true must be >= 1, got {}", kOp, num_true);
  if (t.known_rank() && (t.rank() != 2 || (t.dim(1) >= 0 && t.dim(1) != num_true))) {
    return InvalidArgument("{}: true_classes must be a matrix [batch, num_true = {}], got shape {}", kOp, num_true,
                           t.ToString());
  }
  if (sampled.known_rank() && sampled.rank() != 1) {
    return InvalidArgument("{}: sampled_candidates must be a vector, got shape {}", kOp, sampled.ToString());
  }
  return Status::OK();
}

Status AccidentalHitsShapeFn(ShapeContext& c) {
  TFG_ASSIGN_OR_RETURN(int64_t num_true, GetAttr<int64_t>(c.attrs(), kOp, "num_true"));
  TFG_RETURN_IF_ERROR(CheckShapes(c.input(0), c.input(1), num_true));
  for (int i = 0; i < 3; ++i) c.set_output(i, PartialShape({PartialShape::kUnknown}));
  return Status::OK();
}

class AccidentalHitsKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(num_true_, GetAttr<int64_t>(*c.attrs, kOp, "num_true"));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& t = ctx.input(0);
    const Tensor& sampled = ctx.input(1);
    TFG_RETURN_IF_ERROR(CheckShapes(PartialShape(t.shape()), PartialShape(sampled.shape()), num_true_));
    std::unordered_map<int64_t, int64_t> position;
    const int64_t* s = sampled.data<int64_t>();
    for (int64_t j = 0; j < sampled.num_elements(); ++j) position[s[j]] = j;
    std::vector<int32_t> rows;
    std::vector<int64_t> ids;
    const int64_t* tc = t.data<int64_t>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      auto hit = position.find(tc[i]);
      if (hit == position.end()) continue;
      rows.push_back(static_cast<int32_t>(i / num_true_));
      ids.push_back(hit->second);
    }
    const TensorShape shape({static_cast<int64_t>(rows.size())});
    TFG_ASSIGN_OR_RETURN(Tensor * indices, ctx.allocate_output(0, shape));
    TFG_ASSIGN_OR_RETURN(Tensor * out_ids, ctx.allocate_output(1, shape));
    TFG_ASSIGN_OR_RETURN(Tensor * weights, ctx.allocate_output(2, shape));
    for (size_t k = 0; k < rows.size(); ++k) {
      indices->data<int32_t>()[k] = rows[k];
      out_ids->data<int64_t>()[k] = ids[k];
      weights->data<float>()[k] = -FLT_MAX;
    }
    return Status::OK();
  }

 private:
  int64_t num_true_ = 1;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("true_classes", "i64")
                    .Input("sampled_candidates", "i64")
                    .Attr("num_true", AttrType::kInt, std::nullopt, "true classes per example")
                    .Output("indices", "i32")
                    .Output("ids", "i64")
                    .Output("weights", "f32")
                    .SetShapeFn(AccidentalHitsShapeFn)
                    .NoGradient("integer inputs")
                    .Doc("The sampled candidates that are true classes of an example, as "
                         "tf.nn.compute_accidental_hits: `indices` (the example, i32), `ids` (the candidate's "
                         "position, i64) and `weights` (-FLT_MAX, to add to those logits) of every hit."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<AccidentalHitsKernel>());

}  // namespace tfg::nn::accidental_hits
