// string_join(inputs, separator=""): tf.strings.join (StringJoin). Joins
// the strings of a list of string tensors elementwise, `separator` between
// them; scalars are repeated against the others, which must all have one
// shape. No inputs give the scalar "".
#include <string>
#include <vector>

#include "ops/core/op_registry.h"

namespace tfg::string_ops {
namespace {

// The shape of the result: that of the non-scalar inputs, which must agree.
Result<PartialShape> JoinShape(const std::vector<PartialShape>& shapes) {
  PartialShape out = PartialShape(std::vector<int64_t>{});
  bool unknown = false;
  for (const PartialShape& s : shapes) {
    if (!s.known_rank()) {
      unknown = true;
      continue;
    }
    if (s.rank() == 0) continue;
    if (out.rank() == 0) {
      out = s;
    } else if (!out.CompatibleWith(s)) {
      return InvalidArgument("string_join: input shapes do not match: {} vs. {}", out.ToString(), s.ToString());
    }
  }
  if (unknown && out.rank() == 0) return PartialShape();
  return out;
}

Status StringJoinShapeFn(ShapeContext& c) {
  std::vector<PartialShape> shapes;
  for (int i = 0; i < c.num_inputs(); ++i) shapes.push_back(c.input(i));
  TFG_ASSIGN_OR_RETURN(PartialShape out, JoinShape(shapes));
  c.set_output(0, std::move(out));
  return Status::OK();
}

class StringJoinKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    if (const std::string* s = FindAttr<std::string>(*c.attrs, "separator")) separator_ = *s;
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    std::vector<PartialShape> shapes;
    for (int i = 0; i < ctx.num_inputs(); ++i) shapes.emplace_back(ctx.input(i).shape());
    TFG_ASSIGN_OR_RETURN(PartialShape shape, JoinShape(shapes));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape.ToTensorShape()));
    std::string* y = out->data<std::string>();
    for (int64_t e = 0; e < out->num_elements(); ++e) {
      std::string joined;
      for (int i = 0; i < ctx.num_inputs(); ++i) {
        const Tensor& x = ctx.input(i);
        if (i > 0) joined += separator_;
        joined += x.data<std::string>()[x.rank() == 0 ? 0 : e];
      }
      y[e] = std::move(joined);
    }
    return Status::OK();
  }

 private:
  std::string separator_;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("string_join")
                    .InputList("inputs", "string")
                    .Attr("separator", AttrType::kString, std::string(""), "put between the joined strings")
                    .Output("output", "string")
                    .SetShapeFn(StringJoinShapeFn)
                    .NoGradient("string output")
                    .Doc("Joins string tensors elementwise with `separator`, as tf.strings.join: "
                         "`string_join([\"a\", [\"b\", \"c\"]], \"-\")` is [\"a-b\", \"a-c\"]. Scalars repeat "
                         "against the other inputs, which must have one shape."));
TFG_REGISTER_KERNEL(KernelDef("string_join", DeviceType::kCpu).Create<StringJoinKernel>());

}  // namespace tfg::string_ops
