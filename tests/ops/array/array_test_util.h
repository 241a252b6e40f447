// Helpers for the array-op tests: data-movement ops treat every dtype the
// same, so tests build the same values in each dtype (strings hold the
// numbers' decimal text) and check the result in that dtype.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/dtype_traits.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::test {

using Ints = std::vector<int64_t>;

inline std::string NumberText(double v) { return std::to_string(static_cast<int64_t>(v)); }

// `values` (small whole numbers) as a tensor of `dtype`.
inline Tensor Make(DType dtype, const std::vector<double>& values, TensorShape shape) {
  if (dtype != DType::kString) return MakeTensorOf(dtype, values, std::move(shape));
  std::vector<std::string> text;
  for (double v : values) text.push_back(NumberText(v));
  return MakeStrings(text, std::move(shape));
}

// 0, 1, 2, ... n-1 in `shape`.
inline Tensor Iota(DType dtype, TensorShape shape) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Make(dtype, v, std::move(shape));
}

// Checks dtype, shape and values as Make would have built them.
inline void ExpectValues(const Tensor& t, DType dtype, const TensorShape& shape, const std::vector<double>& values) {
  ASSERT_TRUE(t.IsInitialized());
  ASSERT_EQ(t.dtype(), dtype) << t.DebugString();
  ASSERT_EQ(t.shape(), shape) << t.DebugString() << " for dtype " << DTypeName(dtype);
  ASSERT_EQ(static_cast<size_t>(t.num_elements()), values.size());
  if (dtype == DType::kString) {
    for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t.data<std::string>()[i], NumberText(values[i])) << "at " << i;
    return;
  }
  const std::vector<double> got = ToDoubles(t);
  for (size_t i = 0; i < values.size(); ++i) {
    const double want = dtype == DType::kBool ? (values[i] != 0 ? 1.0 : 0.0) : values[i];
    EXPECT_EQ(got[i], want) << "at flat index " << i << " for dtype " << DTypeName(dtype);
  }
}

// Runs a single-output op and checks its result, for one dtype.
inline void ExpectOp(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs, DType dtype,
                     const TensorShape& shape, const std::vector<double>& values) {
  auto r = RunOp1(op, std::move(inputs), std::move(attrs));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectValues(*r, dtype, shape, values);
}

// The gradient built on placeholders of unknown dims and of unknown rank
// gives the same numbers as the one built on static shapes.
inline void ExpectGradientShapeAgnostic(const std::string& op, const std::vector<Tensor>& inputs,
                                        const AttrMap& attrs, std::vector<int> wrt = {}) {
  auto outputs = RunGraphOp(op, inputs, attrs);
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  std::vector<double> dy_values(static_cast<size_t>((*outputs)[0].num_elements()));
  for (size_t i = 0; i < dy_values.size(); ++i) dy_values[i] = 0.25 * static_cast<double>(i % 7) - 0.5;
  const Tensor dy = MakeTensorOf(DType::kF64, dy_values, (*outputs)[0].shape());
  auto want = SymbolicGradients(op, inputs, attrs, dy, {wrt, FeedShapes::kStatic});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (FeedShapes shapes : {FeedShapes::kUnknownDims, FeedShapes::kUnknownRank}) {
    SCOPED_TRACE(shapes == FeedShapes::kUnknownDims ? "unknown dims" : "unknown rank");
    auto got = SymbolicGradients(op, inputs, attrs, dy, {wrt, shapes});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want->size());
    for (size_t i = 0; i < want->size(); ++i) {
      ExpectTensorNear((*got)[i], ToDoubles((*want)[i]), (*want)[i].shape(), 1e-12);
    }
  }
}

}  // namespace tfg::test
