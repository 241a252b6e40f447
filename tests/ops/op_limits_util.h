// Extreme sizes and values for walking the op registry (shape functions in
// shape_fn_limits_test.cc, CPU kernels in kernel_limits_test.cc): what a
// script or a peer can write, chosen to overflow int64 arithmetic.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/op_registry.h"
#include "ops/core/shape.h"

namespace tfg::test {

using Ints = std::vector<int64_t>;

// 0, 1, 2**31, 2**32, 2**62, 2**63-1, -1 (an unknown dim), -2 (no dim).
const Ints& ExtremeDims();
// ExtremeDims and more negative ones, down to INT64_MIN: int attrs and
// constant values.
const Ints& ExtremeInts();
// Int lists around one value v, of the lengths ops take (axes, pairs of
// pads, NHWC windows).
std::vector<Ints> ListsAround(int64_t v);
// Shapes around one extreme dim v, from rank 1 to 4.
std::vector<PartialShape> ShapesAround(int64_t v);

// How to call an op: one dtype per input tensor (list inputs get two) and
// every required attr filled with an ordinary value.
struct OpProbe {
  const OpDef* op = nullptr;
  std::vector<DType> dtypes;
  AttrMap base_attrs;
};
OpProbe MakeOpProbe(const OpDef& op);

// The attr variants to try for attr `a`: extreme ints, int lists around
// them, shapes around them; empty for other attr types.
std::vector<AttrValue> ExtremeAttrValues(const AttrDef& a);

}  // namespace tfg::test
