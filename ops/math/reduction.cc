#include "ops/math/reduction.h"

#include <algorithm>
#include <variant>

#include "ops/core/op_registry.h"

namespace tfg {
namespace {

Result<std::vector<bool>> AxesFromList(const std::string& op, const std::vector<int64_t>& axes,
                                       const PartialShape& shape) {
  const int rank = shape.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return InvalidArgument("{}: axis {} is out of range for rank {} (input shape {})", op, axis, rank,
                             shape.ToString());
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (reduced[a]) {
      return InvalidArgument("{}: axis {} is listed more than once (input shape {})", op, axis, shape.ToString());
    }
    reduced[a] = true;
  }
  return reduced;
}

}  // namespace

Result<std::vector<bool>> ReductionAxes(const std::string& op, const AttrValue* axis, const PartialShape& shape) {
  if (axis == nullptr || std::holds_alternative<std::monostate>(*axis)) {
    return std::vector<bool>(shape.rank(), true);
  }
  if (const auto* one = std::get_if<int64_t>(axis)) return AxesFromList(op, {*one}, shape);
  if (const auto* list = std::get_if<std::vector<int64_t>>(axis)) return AxesFromList(op, *list, shape);
  return InvalidArgument("{}: axis must be none, an int or a list of ints, got {}", op, AttrValueToString(*axis));
}

std::vector<int64_t> ReducedDims(const std::vector<int64_t>& dims, const std::vector<bool>& reduced, bool keepdims) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!reduced[i]) {
      out.push_back(dims[i]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

Status ReductionShapeFn(ShapeContext& c) {
  const PartialShape& in = c.input(0);
  const ReductionAttrs a = ReadReductionAttrs(c.attrs());
  if (!in.known_rank()) {
    // Reducing everything gives a scalar whatever the rank.
    const bool all_axes = std::holds_alternative<std::monostate>(a.axis);
    c.set_output(0, all_axes && !a.keepdims ? PartialShape::Scalar() : PartialShape::Unknown());
    return Status::OK();
  }
  TFG_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReductionAxes(c.op().name, &a.axis, in));
  c.set_output(0, PartialShape(ReducedDims(in.dims(), reduced, a.keepdims)));
  return Status::OK();
}

ReductionAttrs ReadReductionAttrs(const AttrMap& attrs) {
  ReductionAttrs a;
  auto it = attrs.find("axis");
  if (it != attrs.end()) a.axis = it->second;
  const bool* keep = FindAttr<bool>(attrs, "keepdims");
  a.keepdims = keep && *keep;
  return a;
}

Result<ReductionPlan> PlanReduction(const std::string& op, const ReductionAttrs& attrs, const TensorShape& in) {
  ReductionPlan p;
  TFG_ASSIGN_OR_RETURN(p.reduced, ReductionAxes(op, &attrs.axis, PartialShape(in)));
  p.out = TensorShape(ReducedDims(in.dims(), p.reduced, attrs.keepdims));
  p.layout = MakeReductionLayout(in, p.reduced);
  return p;
}

ReductionLayout MakeReductionLayout(const TensorShape& in, const std::vector<bool>& reduced) {
  // Groups of neighbouring non-trivial dims with the same reduced flag,
  // each with its row-major input stride.
  std::vector<int64_t> sizes, strides;
  std::vector<bool> flags;
  int64_t stride = 1;
  for (int d = in.rank() - 1; d >= 0; --d) {
    const int64_t size = in.dim(d);
    if (size != 1) {
      if (!flags.empty() && flags.back() == reduced[d]) {
        sizes.back() *= size;
      } else {
        sizes.push_back(size);
        strides.push_back(stride);
        flags.push_back(reduced[d]);
      }
    }
    stride *= size;
  }
  // Innermost first so far; make it row-major.
  std::reverse(sizes.begin(), sizes.end());
  std::reverse(strides.begin(), strides.end());
  std::reverse(flags.begin(), flags.end());

  ReductionLayout l;
  int reduced_groups = 0;
  for (size_t g = 0; g < sizes.size(); ++g) {
    if (flags[g]) {
      ++reduced_groups;
      l.red_dims.push_back(sizes[g]);
      l.red_strides.push_back(strides[g]);
      l.reduce_count *= sizes[g];
    } else {
      l.kept_dims.push_back(sizes[g]);
      l.kept_strides.push_back(strides[g]);
    }
  }
  l.simple = reduced_groups <= 1;
  if (!l.simple) return l;
  bool after_reduced = false;
  for (size_t g = 0; g < sizes.size(); ++g) {
    if (flags[g]) {
      l.reduce = sizes[g];
      after_reduced = true;
    } else if (after_reduced) {
      l.inner *= sizes[g];
    } else {
      l.outer *= sizes[g];
    }
  }
  return l;
}

int64_t GridOffset(int64_t index, const std::vector<int64_t>& dims, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    off += (index % dims[d]) * strides[d];
    index /= dims[d];
  }
  return off;
}

Result<int> SingleAxis(const std::string& op, const char* input, const PartialShape& shape, int64_t axis) {
  const int rank = shape.rank();
  if (rank == 0) return InvalidArgument("{}: {} must have rank >= 1, got a scalar", op, input);
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("{}: axis {} is out of range for rank {} (input shape {})", op, axis, rank,
                           shape.ToString());
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace tfg
