#include "ops/state/scatter_common.h"

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "ops/core/dtype_traits.h"
#include "ops/math/cwise_functors.h"

namespace tfg::state::scatter {
namespace {

// Threads own disjoint column ranges and walk the slices in order, so a
// repeated index never races and the last update wins.
template <typename T>
void ApplySlices(OpKernelContext& ctx, Write write, const std::vector<int64_t>& slices, const T* values,
                 int64_t width, T* target) {
  const int64_t n = static_cast<int64_t>(slices.size());
  ctx.ParallelFor(width, n + 1, [&](int64_t s, int64_t e) {
    for (int64_t i = 0; i < n; ++i) {
      T* dst = target + slices[i] * width;
      const T* src = values + i * width;
      for (int64_t k = s; k < e; ++k) {
        switch (write) {
          case Write::kUpdate: dst[k] = src[k]; break;
          case Write::kAdd: dst[k] = functor::WrapAdd(dst[k], src[k]); break;
          case Write::kSub: dst[k] = functor::WrapSub(dst[k], src[k]); break;
        }
      }
    }
  });
}

}  // namespace

OpDefBuilder ScatterOpDef(const char* name, ShapeFn shape_fn, const char* doc) {
  return std::move(OpDefBuilder(name)
                       .Input("values", "T")
                       .Input("indices", "Tindices")
                       .Attr("shared_name", AttrType::kString, std::nullopt, "the variable's name")
                       .Attr("container", AttrType::kString, std::string())
                       .TypeAttr("T", NumberTypes())
                       .TypeAttr("Tindices", {DType::kI32, DType::kI64})
                       .Attr("dtype", AttrType::kType, AttrValue(std::monostate{}), "the variable's declared dtype")
                       .Attr("shape", AttrType::kShape, PartialShape::Unknown(), "the variable's declared shape")
                       .Output("output", "T")
                       .Stateful()
                       .SetShapeFn(std::move(shape_fn))
                       .NoGradient("stateful")
                       .Doc(doc));
}

Status CheckDeclaredDtype(ShapeContext& c) {
  const DType* dtype = c.attr<DType>("dtype");
  if (dtype && *dtype != c.input_type(0)) {
    return InvalidArgument("{}: values have dtype {} but the variable is {}", c.op().name,
                           DTypeName(c.input_type(0)), DTypeName(*dtype));
  }
  return Status::OK();
}

Status CheckVariable(const char* op, const VariableRef& ref, const Tensor& current, const Tensor& values) {
  if (!current.IsInitialized()) return ref.Uninitialized();
  if (current.dtype() != values.dtype()) {
    return InvalidArgument("{}: values have dtype {} but variable '{}' holds {}", op, DTypeName(values.dtype()),
                           ref.name, current.DebugString());
  }
  return Status::OK();
}

Status WriteSlices(OpKernelContext& ctx, const char* op, const VariableRef& ref, Write write,
                   const std::vector<int64_t>& slices, const Tensor& values, int64_t width, Tensor& current) {
  // In place only when no reader holds the buffer (the caller holds the
  // lock, so no new reader can appear meanwhile).
  Tensor target = current.RefCountIsOne() ? current : current.DeepCopy(ctx.allocator());
  if (!target.IsInitialized()) {
    return Error(Code::kResourceExhausted, "{}: out of memory copying '{}'", op, ref.name);
  }
  bool ok = TFG_DISPATCH_NUMBER(values.dtype(), T, {
    ApplySlices<T>(ctx, write, slices, values.data<T>(), width, target.data<T>());
  });
  if (!ok) return InvalidArgument("{}: dtype {} is not supported", op, DTypeName(values.dtype()));
  current = target;
  ctx.set_output(0, std::move(target));
  return Status::OK();
}

}  // namespace tfg::state::scatter
