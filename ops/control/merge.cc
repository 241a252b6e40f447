// merge(inputs): forwards whichever input is live. The executor runs a
// merge as soon as one live input arrives (not when all have), or marks it
// dead when every input is dead; cond joins its branches with merges, and a
// while_loop's merges take the loop variables from enter in the first
// iteration and from next_iteration after that.
#include "ops/autodiff/gradients.h"
#include "ops/core/control_flow.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

class MergeKernel : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.input(i).IsInitialized()) continue;
      ctx.set_output(0, ctx.input(i));
      TFG_ASSIGN_OR_RETURN(Tensor * index, ctx.allocate_output(1, TensorShape({})));
      index->data<int32_t>()[0] = i;
      return Status::OK();
    }
    return Internal("merge ran with no live input");
  }
  bool IsExpensive() const override { return false; }
};

Status MergeShape(ShapeContext& c) {
  // The builders always give one input or more; a hand-made node may not.
  if (c.num_inputs() == 0) return InvalidArgument("merge needs at least one input");
  c.set_output(1, PartialShape::Scalar());
  const auto* invariant = c.attr<std::vector<PartialShape>>("shape_invariant");
  if (invariant && !invariant->empty()) {
    for (int i = 0; i < c.num_inputs(); ++i) {
      if (!invariant->front().Merge(c.input(i)).ok()) {
        return InvalidArgument("input {} has shape {}, which does not fit the shape invariant {}", i,
                               c.input(i).ToString(), invariant->front().ToString());
      }
    }
    c.set_output(0, invariant->front());
    return Status::OK();
  }
  PartialShape s = c.input(0);
  for (int i = 1; i < c.num_inputs(); ++i) {
    auto merged = s.Merge(c.input(i));
    if (merged.ok()) {
      s = *merged;
    } else {
      s = s.known_rank() && s.rank() == c.input(i).rank() ? PartialShape::UnknownOfRank(s.rank())
                                                           : PartialShape::Unknown();
    }
  }
  c.set_output(0, s);
  return Status::OK();
}

// A cond's merge remembers its predicate (attr `pred`, "node:index"): the
// gradient switches the incoming gradient by it into the branch that ran.
Status MergeGrad(GradContext& g) {
  const std::string* pred = g.node->attr<std::string>("pred");
  if (pred == nullptr || pred->empty() || g.node->inputs().size() != 2) {
    // A while_loop's merges never get here: grad() differentiates a loop
    // whole (ops/autodiff/while_gradients.cc).
    return Unimplemented("gradients through a merge that cond did not build are not supported yet");
  }
  size_t colon = pred->rfind(':');
  Node* pred_node = g.graph->FindNode(pred->substr(0, colon));
  if (pred_node == nullptr) return Internal("the predicate '{}' of a cond is gone", *pred);
  Output p{pred_node, std::stoi(pred->substr(colon + 1))};
  TFG_ASSIGN_OR_RETURN(Output grad, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Node * sw, g.OpNode(kSwitchOp, {grad, p}));
  g.input_grads[0] = sw->output(0);
  g.input_grads[1] = sw->output(1);
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kMergeOp)
                    .InputList("inputs", "T", "N")
                    .Output("output", "T")
                    .Output("value_index", "i32")
                    .TypeAttr("T", AllTypes())
                    .Attr("N", AttrType::kInt)
                    .Attr("pred", AttrType::kString, std::string(),
                          "for a cond's merge, the predicate (\"node:index\") its gradient switches on")
                    .Attr("shape_invariant", AttrType::kShapeList, std::vector<PartialShape>{},
                          "for a while_loop's merge, [shape]: the loop variable's shape in every iteration "
                          "(shape_invariants=); empty: its shape on entry")
                    .SetShapeFn(MergeShape)
                    .SetGradFn(MergeGrad)
                    .Doc("Forwards the first live input and its index. Built by cond and while_loop."));
TFG_REGISTER_KERNEL(KernelDef(kMergeOp, DeviceType::kCpu).Create<MergeKernel>());

}  // namespace tfg
