// Comparisons (bool results, NumPy broadcasting) and logical ops on bools.
// One table; declarations and kernels derive from it.
#include "ops/core/op_registry.h"
#include "ops/math/cwise_common.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_loops.h"

namespace tfg::math::comparison {
namespace {

template <typename F>
CwiseFns OrderFns() {
  CwiseFns fns;
  AddBinary<F, half, bool>(fns);
  AddBinary<F, float, bool>(fns);
  AddBinary<F, double, bool>(fns);
  AddBinary<F, int32_t, bool>(fns);
  AddBinary<F, int64_t, bool>(fns);
  return fns;
}

template <typename F>
CwiseFns EqualityFns() {
  CwiseFns fns = OrderFns<F>();
  AddBinary<F, bool, bool>(fns);
  AddBinary<F, std::string, bool>(fns);
  return fns;
}

template <typename F>
CwiseFns LogicalFns() {
  CwiseFns fns;
  AddBinary<F, bool, bool>(fns);
  return fns;
}

enum class Operands { kAny, kNumbers, kBools };

struct CompareOp {
  const char* name;
  CwiseFns fns;
  Operands operands;
  const char* doc;
};

const CompareOp kCompareOps[] = {
    {"equal", EqualityFns<functor::Equal>(), Operands::kAny, "x == y elementwise (bool), with broadcasting."},
    {"not_equal", EqualityFns<functor::NotEqual>(), Operands::kAny, "x != y elementwise (bool), with broadcasting."},
    {"less", OrderFns<functor::Less>(), Operands::kNumbers, "x < y elementwise (bool), with broadcasting."},
    {"less_equal", OrderFns<functor::LessEqual>(), Operands::kNumbers, "x <= y elementwise (bool)."},
    {"greater", OrderFns<functor::Greater>(), Operands::kNumbers, "x > y elementwise (bool), with broadcasting."},
    {"greater_equal", OrderFns<functor::GreaterEqual>(), Operands::kNumbers, "x >= y elementwise (bool)."},
    {"logical_and", LogicalFns<functor::LogicalAnd>(), Operands::kBools, "x and y elementwise on bools."},
    {"logical_or", LogicalFns<functor::LogicalOr>(), Operands::kBools, "x or y elementwise on bools."},
};

constexpr const char* kNoGradient = "boolean output";

[[maybe_unused]] const bool kRegistered = [] {
  for (const CompareOp& op : kCompareOps) {
    OpDefBuilder b(op.name);
    if (op.operands == Operands::kBools) {
      b.Input("x", "bool").Input("y", "bool");
    } else {
      b.Input("x", "T").Input("y", "T").TypeAttr("T", op.operands == Operands::kAny ? AllTypes() : NumberTypes());
    }
    b.Output("z", "bool").SetShapeFn(BroadcastShapeFn).NoGradient(kNoGradient).Doc(op.doc);
    OpRegistrar reg(std::move(b));
    RegisterCwiseKernel(op.name, op.fns, 1);
  }
  CwiseFns not_fns;
  AddUnary<functor::LogicalNot, bool, bool>(not_fns);
  OpRegistrar reg(OpDefBuilder("logical_not")
                      .Input("x", "bool")
                      .Output("y", "bool")
                      .SetShapeFn(SameShapeFn)
                      .NoGradient(kNoGradient)
                      .Doc("not x elementwise on bools."));
  RegisterCwiseKernel("logical_not", not_fns, 1);
  return true;
}();

}  // namespace
}  // namespace tfg::math::comparison
