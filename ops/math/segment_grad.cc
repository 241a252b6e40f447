#include "ops/math/segment_grad.h"

#include <string>

namespace tfg::math::segment {
namespace {

bool IsUnsorted(const GradContext& g) { return g.node->inputs().size() == 3; }

// The node's reduction `kind` ("sum", "prod") of v by the node's ids.
Result<Output> ReduceBySegment(GradContext& g, const char* kind, Output v) {
  if (IsUnsorted(g)) return g.Op(std::string("unsorted_segment_") + kind, {v, g.input(1), g.input(2)});
  return g.Op(std::string("segment_") + kind, {v, g.input(1)});
}

// Row ids[i] of v for every i (zeros for a dropped id).
Result<Output> GatherSegmentRows(GradContext& g, Output v) { return g.Op("segment_gather", {v, g.input(1)}); }

Result<Output> CastTo(GradContext& g, Output v, DType dtype) { return g.Op("cast", {v}, {{"DstT", dtype}}); }

}  // namespace

Status SegmentSumGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], GatherSegmentRows(g, dy));
  return Status::OK();
}

Status SegmentMeanGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const Output data = g.input(0);
  TFG_ASSIGN_OR_RETURN(Output ones, g.Op("ones_like", {data}));
  TFG_ASSIGN_OR_RETURN(Output counts, ReduceBySegment(g, "sum", ones));
  // Empty segments are never gathered; max(count, 1) keeps them finite.
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, data.dtype()));
  TFG_ASSIGN_OR_RETURN(Output safe, g.Op("maximum", {counts, one}));
  TFG_ASSIGN_OR_RETURN(Output scaled, g.Op("div", {dy, safe}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], GatherSegmentRows(g, scaled));
  return Status::OK();
}

Status SegmentMinMaxGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const Output data = g.input(0);
  const DType t = data.dtype();
  TFG_ASSIGN_OR_RETURN(Output extreme, GatherSegmentRows(g, g.output(0)));
  TFG_ASSIGN_OR_RETURN(Output selected, g.Op("equal", {data, extreme}));
  TFG_ASSIGN_OR_RETURN(Output selected_t, CastTo(g, selected, t));
  TFG_ASSIGN_OR_RETURN(Output count, ReduceBySegment(g, "sum", selected_t));
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, t));
  TFG_ASSIGN_OR_RETURN(Output safe, g.Op("maximum", {count, one}));
  TFG_ASSIGN_OR_RETURN(Output shared, g.Op("div", {dy, safe}));
  TFG_ASSIGN_OR_RETURN(Output gathered, GatherSegmentRows(g, shared));
  TFG_ASSIGN_OR_RETURN(Output zeros, g.Op("zeros_like", {data}));
  // A dropped row may equal 0 = its gathered "extreme", but its gathered
  // share is 0 too.
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("where", {selected, gathered, zeros}));
  return Status::OK();
}

Status SegmentProdGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  const Output data = g.input(0);
  const DType t = data.dtype();
  TFG_ASSIGN_OR_RETURN(Output zero, g.Scalar(0, t));
  TFG_ASSIGN_OR_RETURN(Output one, g.Scalar(1, t));
  TFG_ASSIGN_OR_RETURN(Output is_zero, g.Op("equal", {data, zero}));
  TFG_ASSIGN_OR_RETURN(Output is_zero_t, CastTo(g, is_zero, t));
  TFG_ASSIGN_OR_RETURN(Output zeros_per_segment, ReduceBySegment(g, "sum", is_zero_t));
  // Two zeros or more: every partial derivative of the segment is 0.
  TFG_ASSIGN_OR_RETURN(Output several, g.Op("greater", {zeros_per_segment, one}));
  TFG_ASSIGN_OR_RETURN(Output dy_zeros, g.Op("zeros_like", {dy}));
  TFG_ASSIGN_OR_RETURN(Output dy_kept, g.Op("where", {several, dy_zeros, dy}));
  // The product of the other elements: y / x, or for the one zero the
  // product of the segment's non-zero elements.
  TFG_ASSIGN_OR_RETURN(Output ones, g.Op("ones_like", {data}));
  TFG_ASSIGN_OR_RETURN(Output non_zero, g.Op("where", {is_zero, ones, data}));
  TFG_ASSIGN_OR_RETURN(Output non_zero_prod, ReduceBySegment(g, "prod", non_zero));
  TFG_ASSIGN_OR_RETURN(Output gathered_prod, GatherSegmentRows(g, g.output(0)));
  TFG_ASSIGN_OR_RETURN(Output gathered_non_zero, GatherSegmentRows(g, non_zero_prod));
  TFG_ASSIGN_OR_RETURN(Output divided, g.Op("div", {gathered_prod, non_zero}));
  TFG_ASSIGN_OR_RETURN(Output partial, g.Op("where", {is_zero, gathered_non_zero, divided}));
  TFG_ASSIGN_OR_RETURN(Output gathered_dy, GatherSegmentRows(g, dy_kept));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("mul", {gathered_dy, partial}));
  return Status::OK();
}

}  // namespace tfg::math::segment
