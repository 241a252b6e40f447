// histogram_summary(tag, values): a Summary with the histogram of every
// element of `values`, for TensorBoard's histograms and distributions tabs
// (weights and activations over training).
#include <cmath>

#include "ops/core/op_registry.h"
#include "ops/summary/histogram.h"
#include "ops/summary/summary_util.h"

namespace tfg {
namespace {

class HistogramSummaryKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::string tag, summary::ReadTag(ctx, "histogram_summary", 0));
    std::vector<double> values = summary::ValuesAsDoubles(ctx.input(1));
    for (size_t i = 0; i < values.size(); ++i) {
      if (!std::isfinite(values[i])) {
        const char* what = std::isnan(values[i]) ? "NaN" : values[i] > 0 ? "Inf" : "-Inf";
        return InvalidArgument("histogram_summary '{}': element {} is {}; a histogram needs finite values", tag,
                               i, what);
      }
    }
    pb::Summary s;
    pb::Summary::Value* v = s.add_value();
    v->set_tag(tag);
    *v->mutable_histo() = summary::BuildHistogram(values);
    return summary::SetSummaryOutput(ctx, s);
  }
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("histogram_summary")
                    .Input("tag", "string")
                    .Input("values", "T")
                    .TypeAttr("T", summary::SummaryValueTypes())
                    .Output("summary", "string")
                    .SetShapeFn(summary::SummaryShapeFn)
                    .NoGradient("the output is a serialized protobuf, not a function of numbers")
                    .Doc("A serialized TensorBoard Summary holding the histogram of all elements of `values` "
                         "(any shape; count, min, max, sum, sum of squares and buckets bounded like "
                         "TensorFlow's, 10% apart) under `tag`. Fails on NaN or Inf."));
TFG_REGISTER_KERNEL(KernelDef("histogram_summary", DeviceType::kCpu).Create<HistogramSummaryKernel>());

}  // namespace tfg
