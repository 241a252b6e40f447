// segment_gather(params, segment_ids): row segment_ids[i] of params for
// every index tuple i of segment_ids (output shape segment_ids.shape +
// params.shape[1:]), and zeros where the id is negative: the adjoint of
// unsorted_segment_sum, which drops negative ids. The segment reductions'
// gradients read their rows back through it (ops/math/segment_grad.cc); an
// id >= params.shape[0] is an error. CPU kernel only (no GPU kernel yet).
// Gradient: unsorted_segment_sum(dy, segment_ids, params.shape[0]).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ops/autodiff/gradients.h"
#include "ops/core/checked_size.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/math/segment_reduce.h"

namespace tfg::math::segment_gather {
namespace {

constexpr const char* kOp = "segment_gather";

std::vector<int64_t> GatheredDims(const std::vector<int64_t>& ids, const std::vector<int64_t>& params) {
  std::vector<int64_t> dims = ids;
  dims.insert(dims.end(), params.begin() + 1, params.end());
  return dims;
}

Status SegmentGatherShapeFn(ShapeContext& c) {
  const PartialShape& params = c.input(0);
  const PartialShape& ids = c.input(1);
  if (params.known_rank() && params.rank() == 0) {
    return InvalidArgument("{}: params must have rank >= 1, got a scalar", kOp);
  }
  if (!params.known_rank() || !ids.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  c.set_output(0, PartialShape(GatheredDims(ids.dims(), params.dims())));
  return Status::OK();
}

class SegmentGatherKernel final : public OpKernel {
 public:
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& params = ctx.input(0);
    const Tensor& ids_t = ctx.input(1);
    if (params.rank() == 0) return InvalidArgument("{}: params must have rank >= 1, got a scalar", kOp);
    const std::vector<int64_t> ids = math::segment::ReadIds(ids_t);
    const int64_t rows = params.dim(0);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] >= rows) {
        return InvalidArgument("{}: segment_ids[{}] = {} is out of range for params of shape {}", kOp, i, ids[i],
                               params.shape().ToString());
      }
    }
    const std::vector<int64_t> dims = GatheredDims(ids_t.shape().dims(), params.shape().dims());
    TFG_RETURN_IF_ERROR(checked::NumElements(kOp, dims).status());
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    if (out->num_elements() == 0) return Status::OK();
    int64_t width = 1;  // params' row size, even when params has no rows
    for (int d = 1; d < params.rank(); ++d) width *= params.dim(d);
    const size_t row_bytes = static_cast<size_t>(width) * DTypeSize(params.dtype());
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    ctx.ParallelFor(static_cast<int64_t>(ids.size()), width, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i) {
        char* row = dst + i * row_bytes;
        if (ids[i] < 0) {
          std::memset(row, 0, row_bytes);  // all-zero bytes are 0 in every number dtype
        } else {
          std::memcpy(row, src + ids[i] * row_bytes, row_bytes);
        }
      }
    });
    return Status::OK();
  }
};

Status SegmentGatherGrad(GradContext& g) {
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(Output shape, g.Op("shape", {g.input(0)}, {{"out_type", DType::kI64}}));
  TFG_ASSIGN_OR_RETURN(Output rows, g.Op("strided_slice", {shape},
                                         {{"begin", std::vector<int64_t>{0}},
                                          {"end", std::vector<int64_t>{1}},
                                          {"shrink_axis_mask", int64_t{1}}}));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("unsorted_segment_sum", {dy, g.input(1), rows}));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder(kOp)
                    .Input("params", "T")
                    .Input("segment_ids", "Tindices")
                    .Output("output", "T")
                    .TypeAttr("T", NumberTypes())
                    .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                    .SetShapeFn(SegmentGatherShapeFn)
                    .SetGradFn(SegmentGatherGrad)
                    .Doc("Row segment_ids[i] of params for every index tuple i of segment_ids, zeros where the id "
                         "is negative (the adjoint of unsorted_segment_sum; the segment reductions' gradients use "
                         "it). An id >= params.shape[0] is an error. Gradient: unsorted_segment_sum(dy, "
                         "segment_ids, params.shape[0])."));
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kCpu).Create<SegmentGatherKernel>());

}  // namespace tfg::math::segment_gather
