// merge_summaries(inputs): one Summary holding the values of several, so a
// training loop fetches and writes all its summaries at once.
#include <set>

#include "ops/core/op_registry.h"
#include "ops/summary/summary_util.h"

namespace tfg {
namespace {

class MergeSummariesKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    pb::Summary merged;
    std::set<std::string> tags;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      for (int64_t j = 0; j < in.num_elements(); ++j) {
        pb::Summary part;
        if (!part.ParseFromString(in.data<std::string>()[j])) {
          return InvalidArgument("merge_summaries: input {} is not a serialized Summary", i);
        }
        for (pb::Summary::Value& v : *part.mutable_value()) {
          if (!tags.insert(v.tag()).second) {
            return InvalidArgument("merge_summaries: the tag '{}' occurs twice", v.tag());
          }
          *merged.add_value() = std::move(v);
        }
      }
    }
    return summary::SetSummaryOutput(ctx, merged);
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("merge_summaries")
                    .InputList("inputs", "string")
                    .Output("summary", "string")
                    .SetShapeFn(shape_fns::ScalarOutput)
                    .NoGradient("the output is a serialized protobuf, not a function of numbers")
                    .Doc("One serialized Summary holding the values of all `inputs` (a list of summaries, each "
                         "a string tensor of any shape). Fails when two values share a tag."));
TFG_REGISTER_KERNEL(KernelDef("merge_summaries", DeviceType::kCpu).Create<MergeSummariesKernel>());

}  // namespace tfg
