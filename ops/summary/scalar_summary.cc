// scalar_summary(tag, value): a Summary with one simple_value, for
// TensorBoard's scalars tab (loss, accuracy, learning rate over steps).
#include <cmath>

#include "ops/core/op_registry.h"
#include "ops/summary/summary_util.h"

namespace tfg {
namespace {

class ScalarSummaryKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    TFG_ASSIGN_OR_RETURN(std::string tag, summary::ReadTag(ctx, "scalar_summary", 0));
    const Tensor& value = ctx.input(1);
    if (value.num_elements() != 1) {
      return InvalidArgument("scalar_summary '{}': the value must be a scalar, got {}", tag, value.DebugString());
    }
    pb::Summary s;
    pb::Summary::Value* v = s.add_value();
    v->set_tag(tag);
    v->set_simple_value(static_cast<float>(summary::ValuesAsDoubles(value)[0]));
    return summary::SetSummaryOutput(ctx, s);
  }
  bool IsExpensive() const override { return false; }
};

Status ScalarSummaryShape(ShapeContext& c) {
  const PartialShape& value = c.input(1);
  if (value.known_rank() && value.num_elements() != -1 && value.num_elements() != 1) {
    return InvalidArgument("scalar_summary: the value must be a scalar, got shape {}", value.ToString());
  }
  return summary::SummaryShapeFn(c);
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("scalar_summary")
                    .Input("tag", "string")
                    .Input("value", "T")
                    .TypeAttr("T", summary::SummaryValueTypes())
                    .Output("summary", "string")
                    .SetShapeFn(ScalarSummaryShape)
                    .NoGradient("the output is a serialized protobuf, not a function of numbers")
                    .Doc("A serialized TensorBoard Summary holding `value` (one element, stored as f32) under "
                         "`tag`: pass run()'s result to write_summary(writer, summary, step)."));
TFG_REGISTER_KERNEL(KernelDef("scalar_summary", DeviceType::kCpu).Create<ScalarSummaryKernel>());

}  // namespace tfg
