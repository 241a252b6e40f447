// segment_sum(data, segment_ids) and segment_mean, segment_max, segment_min,
// segment_prod, as tf.math.segment_*: row i of data (along axis 0) goes to
// segment segment_ids[i]; the ids are a vector, sorted, >= 0, one per row.
// The output has ids[-1] + 1 rows (known when the graph runs); a segment no
// id names holds 0 (1 for segment_prod), as TensorFlow. f16 accumulates in
// f32. CPU kernels only (no GPU kernel yet). Gradients: ops/math/segment_grad.h.
#include <string>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/math/segment_grad.h"
#include "ops/math/segment_reduce.h"

namespace tfg::math::segment {
namespace {

Status CheckRanks(const std::string& op, const PartialShape& data, const PartialShape& ids) {
  if (data.known_rank() && data.rank() == 0) return InvalidArgument("{}: data must have rank >= 1, got a scalar", op);
  if (ids.known_rank() && ids.rank() != 1) {
    return InvalidArgument("{}: segment_ids must be a vector, got shape {}", op, ids.ToString());
  }
  if (data.known_rank() && ids.known_rank() && data.dim(0) != PartialShape::kUnknown &&
      ids.dim(0) != PartialShape::kUnknown && data.dim(0) != ids.dim(0)) {
    return InvalidArgument("{}: segment_ids has {} entries but data has {} rows (shape {})", op, ids.dim(0),
                           data.dim(0), data.ToString());
  }
  return Status::OK();
}

Status SortedSegmentShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  TFG_RETURN_IF_ERROR(CheckRanks(op, c.input(0), c.input(1)));
  if (!c.input(0).known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  int64_t segments = PartialShape::kUnknown;
  if (const Tensor* ids = c.input_value(1); ids != nullptr) {
    TFG_ASSIGN_OR_RETURN(segments, CheckSortedIds(op, ReadIds(*ids)));
  }
  c.set_output(0, PartialShape(SegmentedDims(segments, c.input(0).dims(), 1)));
  return Status::OK();
}

class SortedSegmentKernel final : public OpKernel {
 public:
  explicit SortedSegmentKernel(Reduction reduction) : reduction_(reduction) {}

  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = ctx.info().op->name;
    const Tensor& data = ctx.input(0);
    const Tensor& ids_t = ctx.input(1);
    TFG_RETURN_IF_ERROR(CheckRanks(op, PartialShape(data.shape()), PartialShape(ids_t.shape())));
    const std::vector<int64_t> ids = ReadIds(ids_t);
    TFG_ASSIGN_OR_RETURN(int64_t segments, CheckSortedIds(op, ids));
    return ReduceIntoOutput(ctx, reduction_, EmptySegments::kZero, data, ids, 1, segments);
  }

 private:
  Reduction reduction_;
};

constexpr const char* kSortedRule =
    " segment_ids is a vector of sorted ids >= 0, one per row of data; the output has segment_ids[-1] + 1 rows and "
    "data's other dimensions.";

OpDefBuilder SortedSegmentOp(const char* name, GradFn grad, const char* doc) {
  return SegmentOpDef(name, /*with_num_segments=*/false, SortedSegmentShapeFn, std::move(grad), doc, kSortedRule);
}

}  // namespace

TFG_REGISTER_OP(SortedSegmentOp("segment_sum", SegmentSumGrad,
                                "tf.math.segment_sum: output[s] = the sum of the rows i of data with segment_ids[i] "
                                "= s (0 where none is)."));
TFG_REGISTER_OP(SortedSegmentOp("segment_mean", SegmentMeanGrad,
                                "tf.math.segment_mean: output[s] = the mean of the rows i of data with "
                                "segment_ids[i] = s (0 where none is; integers divide truncating)."));
TFG_REGISTER_OP(SortedSegmentOp("segment_max", SegmentMinMaxGrad,
                                "tf.math.segment_max: output[s] = the elementwise max of the rows i of data with "
                                "segment_ids[i] = s (0 where none is). Gradient: dy shared by the rows that reach "
                                "the max."));
TFG_REGISTER_OP(SortedSegmentOp("segment_min", SegmentMinMaxGrad,
                                "tf.math.segment_min: output[s] = the elementwise min of the rows i of data with "
                                "segment_ids[i] = s (0 where none is). Gradient: dy shared by the rows that reach "
                                "the min."));
TFG_REGISTER_OP(SortedSegmentOp("segment_prod", SegmentProdGrad,
                                "tf.math.segment_prod: output[s] = the elementwise product of the rows i of data "
                                "with segment_ids[i] = s (1 where none is). Gradient: TensorFlow's, exact at zeros."));
TFG_REGISTER_KERNEL(SegmentKernelDef<SortedSegmentKernel>("segment_sum", Reduction::kSum));
TFG_REGISTER_KERNEL(SegmentKernelDef<SortedSegmentKernel>("segment_mean", Reduction::kMean));
TFG_REGISTER_KERNEL(SegmentKernelDef<SortedSegmentKernel>("segment_max", Reduction::kMax));
TFG_REGISTER_KERNEL(SegmentKernelDef<SortedSegmentKernel>("segment_min", Reduction::kMin));
TFG_REGISTER_KERNEL(SegmentKernelDef<SortedSegmentKernel>("segment_prod", Reduction::kProd));

}  // namespace tfg::math::segment
