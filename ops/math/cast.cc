// cast(x, dtype): converts between every pair of numeric and bool dtypes.
// `DstT` is declared after the input and no input has that type, so it is
// the second positional parameter: cast(x, f64). `SrcT` is inferred.
#include "ops/autodiff/gradients.h"
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_loops.h"

namespace tfg {
namespace {

template <typename From, typename To>
Status ComputeCast(OpKernelContext& ctx, int64_t cost) {
  const Tensor& x = ctx.input(0);
  if constexpr (std::is_same_v<From, To>) {
    ctx.set_output(0, x);  // nothing to convert: share the buffer
    (void)cost;
  } else {
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, x.shape()));
    if (x.num_elements() == 0) return Status::OK();
    const From* px = x.data<From>();
    To* po = out->data<To>();
    ctx.ParallelFor(x.num_elements(), cost, [=](int64_t s, int64_t e) {
      const functor::CastTo<ComputeType<To>> f{};
      for (int64_t i = s; i < e; ++i) po[i] = static_cast<To>(f(Load(px[i])));
    });
  }
  return Status::OK();
}

using CastTable = std::array<CwiseFns, static_cast<size_t>(DType::kString) + 1>;

template <typename From, typename To>
bool ScalarCast(const ScalarValue* in, ScalarValue* out) {
  out->set<To>(functor::CastTo<To>{}(in[0].get<From>()));
  return true;
}

// Kernels from `From` by target dtype; `scalar` is indexed by the target
// too (the op's scalar functions are registered per target, CastScalarOp).
template <typename From, typename To>
void AddCast(CwiseFns& row) {
  constexpr DType to = kDTypeOf<To>;
  row[to] = &ComputeCast<From, To>;
  if constexpr (kIsScalarValueType<From> && kIsScalarValueType<To>) {
    row.scalar[static_cast<size_t>(to)] = &ScalarCast<From, To>;
  }
}

template <typename From>
void FillRow(CwiseFns& row) {
  AddCast<From, half>(row);
  AddCast<From, float>(row);
  AddCast<From, double>(row);
  AddCast<From, int32_t>(row);
  AddCast<From, int64_t>(row);
  AddCast<From, bool>(row);
}

const CastTable& Table() {
  static const CastTable table = [] {
    CastTable t{};
    FillRow<half>(t[static_cast<size_t>(DType::kF16)]);
    FillRow<float>(t[static_cast<size_t>(DType::kF32)]);
    FillRow<double>(t[static_cast<size_t>(DType::kF64)]);
    FillRow<int32_t>(t[static_cast<size_t>(DType::kI32)]);
    FillRow<int64_t>(t[static_cast<size_t>(DType::kI64)]);
    FillRow<bool>(t[static_cast<size_t>(DType::kBool)]);
    return t;
  }();
  return table;
}

Result<std::unique_ptr<OpKernel>> MakeCastKernel(const KernelConstruction& c) {
  if (c.input_types.size() != 1 || c.output_types.size() != 1) return Internal("cast: expects one input and output");
  const DType from = c.input_types[0], to = c.output_types[0];
  CwiseFn fn = nullptr;
  if (from != DType::kInvalid && from < DType::kString && to != DType::kInvalid && to < DType::kString) {
    fn = Table()[static_cast<size_t>(from)][to];
  }
  if (fn == nullptr) return Unimplemented("cast: no CPU kernel from {} to {}", DTypeName(from), DTypeName(to));
  return MakeCwiseKernel(fn, 1);
}

// Float-to-float casts pass the gradient back, cast to the source dtype;
// casts from or to integers and bools carry no gradient.
Status CastGrad(GradContext& g) {
  const DType from = g.node->input_types()[0], to = g.node->output_types()[0];
  if (!IsFloat(from) || !IsFloat(to)) return Status::OK();
  TFG_ASSIGN_OR_RETURN(Output dy, g.OutputGrad(0));
  TFG_ASSIGN_OR_RETURN(g.input_grads[0], g.Op("cast", {dy}, {{"DstT", from}}));
  return Status::OK();
}

TFG_REGISTER_OP(OpDefBuilder("cast")
                    .Input("x", "SrcT")
                    .TypeAttr("DstT", RealTypes())
                    .TypeAttr("SrcT", RealTypes())
                    .Output("y", "DstT")
                    .SetShapeFn(SameShapeFn)
                    .SetGradFn(CastGrad)
                    .Doc("x converted to dtype DstT: float to integer truncates toward zero (saturating "
                         "at the integer range, NaN to 0); to bool is x != 0; from bool is 0 or 1."));
TFG_REGISTER_KERNEL(KernelDef("cast", DeviceType::kCpu).Factory(MakeCastKernel));

[[maybe_unused]] const bool kScalarsRegistered = [] {
  for (DType from : kAllDTypes) {
    if (from == DType::kString) continue;
    for (DType to : kAllDTypes) {
      if (to == DType::kString) continue;
      if (ScalarFn f = Table()[static_cast<size_t>(from)].scalar[static_cast<size_t>(to)]) {
        RegisterScalarFn(CastScalarOp(to), from, f);
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace tfg
