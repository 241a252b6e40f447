// unsorted_segment_sum(data, segment_ids, num_segments) and
// unsorted_segment_mean, _max, _min, _prod, as tf.math.unsorted_segment_*:
// the slice data[i...] of every index tuple i of segment_ids (whose shape
// starts data's) goes to segment segment_ids[i], in any order. The output
// has num_segments rows (a scalar int input) and data's dimensions past
// segment_ids'. A negative id drops its slice; an id >= num_segments is an
// error, both as TensorFlow on a CPU. An empty segment holds the reduction's
// identity: 0 (sum, mean), 1 (prod), the dtype's lowest (max) or highest
// (min) value, as TensorFlow. f16 accumulates in f32. CPU kernels only (no
// GPU kernel yet). Gradients: ops/math/segment_grad.h.
#include <string>
#include <vector>

#include "ops/core/op_registry.h"
#include "ops/math/segment_grad.h"
#include "ops/math/segment_reduce.h"

namespace tfg::math::segment {
namespace {

Status CheckIdsPrefix(const std::string& op, const PartialShape& data, const PartialShape& ids) {
  if (!data.known_rank() || !ids.known_rank()) return Status::OK();
  bool ok = ids.rank() <= data.rank();
  for (int d = 0; ok && d < ids.rank(); ++d) {
    ok = ids.dim(d) == PartialShape::kUnknown || data.dim(d) == PartialShape::kUnknown || ids.dim(d) == data.dim(d);
  }
  if (ok) return Status::OK();
  return InvalidArgument("{}: data's shape {} does not start with segment_ids' shape {}", op, data.ToString(),
                         ids.ToString());
}

Result<int64_t> NumSegmentsOf(const std::string& op, const Tensor& t) {
  if (t.rank() != 0) {
    return InvalidArgument("{}: num_segments must be a scalar, got shape {}", op, t.shape().ToString());
  }
  const int64_t n = t.dtype() == DType::kI32 ? static_cast<int64_t>(t.data<int32_t>()[0]) : t.data<int64_t>()[0];
  if (n < 0) return InvalidArgument("{}: num_segments must be >= 0, got {}", op, n);
  return n;
}

Status UnsortedSegmentShapeFn(ShapeContext& c) {
  const std::string& op = c.op().name;
  const PartialShape& data = c.input(0);
  const PartialShape& ids = c.input(1);
  TFG_RETURN_IF_ERROR(CheckIdsPrefix(op, data, ids));
  if (c.input(2).known_rank() && c.input(2).rank() != 0) {
    return InvalidArgument("{}: num_segments must be a scalar, got shape {}", op, c.input(2).ToString());
  }
  int64_t segments = PartialShape::kUnknown;
  if (const Tensor* n = c.input_value(2); n != nullptr) {
    TFG_ASSIGN_OR_RETURN(segments, NumSegmentsOf(op, *n));
  }
  if (!data.known_rank() || !ids.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  c.set_output(0, PartialShape(SegmentedDims(segments, data.dims(), ids.rank())));
  return Status::OK();
}

class UnsortedSegmentKernel final : public OpKernel {
 public:
  explicit UnsortedSegmentKernel(Reduction reduction) : reduction_(reduction) {}

  Status Compute(OpKernelContext& ctx) override {
    const std::string& op = ctx.info().op->name;
    const Tensor& data = ctx.input(0);
    const Tensor& ids_t = ctx.input(1);
    TFG_RETURN_IF_ERROR(CheckIdsPrefix(op, PartialShape(data.shape()), PartialShape(ids_t.shape())));
    TFG_ASSIGN_OR_RETURN(int64_t segments, NumSegmentsOf(op, ctx.input(2)));
    const std::vector<int64_t> ids = ReadIds(ids_t);
    TFG_RETURN_IF_ERROR(CheckUnsortedIds(op, ids, segments));
    return ReduceIntoOutput(ctx, reduction_, EmptySegments::kIdentity, data, ids, ids_t.rank(), segments);
  }

 private:
  Reduction reduction_;
};

constexpr const char* kUnsortedRule =
    " segment_ids' shape starts data's; negative ids are dropped, ids >= num_segments are an error. The output "
    "has num_segments rows and data's dimensions past segment_ids'.";

OpDefBuilder UnsortedSegmentOp(const char* name, GradFn grad, const char* doc) {
  return SegmentOpDef(name, /*with_num_segments=*/true, UnsortedSegmentShapeFn, std::move(grad), doc, kUnsortedRule);
}

}  // namespace

TFG_REGISTER_OP(UnsortedSegmentOp("unsorted_segment_sum", SegmentSumGrad,
                                  "tf.math.unsorted_segment_sum: output[s] = the sum of the slices i of data with "
                                  "segment_ids[i] = s (0 where none is)."));
TFG_REGISTER_OP(UnsortedSegmentOp("unsorted_segment_mean", SegmentMeanGrad,
                                  "tf.math.unsorted_segment_mean: output[s] = the mean of the slices i of data with "
                                  "segment_ids[i] = s (0 where none is; integers divide truncating)."));
TFG_REGISTER_OP(UnsortedSegmentOp("unsorted_segment_max", SegmentMinMaxGrad,
                                  "tf.math.unsorted_segment_max: output[s] = the elementwise max of the slices i of "
                                  "data with segment_ids[i] = s (the dtype's lowest value where none is)."));
TFG_REGISTER_OP(UnsortedSegmentOp("unsorted_segment_min", SegmentMinMaxGrad,
                                  "tf.math.unsorted_segment_min: output[s] = the elementwise min of the slices i of "
                                  "data with segment_ids[i] = s (the dtype's highest value where none is)."));
TFG_REGISTER_OP(UnsortedSegmentOp("unsorted_segment_prod", SegmentProdGrad,
                                  "tf.math.unsorted_segment_prod: output[s] = the elementwise product of the slices "
                                  "i of data with segment_ids[i] = s (1 where none is)."));
TFG_REGISTER_KERNEL(SegmentKernelDef<UnsortedSegmentKernel>("unsorted_segment_sum", Reduction::kSum));
TFG_REGISTER_KERNEL(SegmentKernelDef<UnsortedSegmentKernel>("unsorted_segment_mean", Reduction::kMean));
TFG_REGISTER_KERNEL(SegmentKernelDef<UnsortedSegmentKernel>("unsorted_segment_max", Reduction::kMax));
TFG_REGISTER_KERNEL(SegmentKernelDef<UnsortedSegmentKernel>("unsorted_segment_min", Reduction::kMin));
TFG_REGISTER_KERNEL(SegmentKernelDef<UnsortedSegmentKernel>("unsorted_segment_prod", Reduction::kProd));

}  // namespace tfg::math::segment
