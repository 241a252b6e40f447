// Helpers for op tests: run an op's CPU kernel through the registry exactly
// as the runtime does (ResolveSignature, FindKernel, Init, Compute), infer
// shapes through its shape function, build tensors and compare results.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/dtype_traits.h"
#include "ops/core/shape.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {
class Device;
}

namespace tfg::test {

// A CPU device for tests: host memory, and a ParallelFor that really splits
// work over a few threads (so kernels' parallel paths are exercised).
Device* TestCpuDevice();

// Runs `op` on the CPU: first its shape function on the inputs' concrete
// shapes (returning its error, as graph building would), then the kernel;
// checks that the kernel's outputs have the declared dtypes and shapes the
// shape function allows.
Result<std::vector<Tensor>> RunOp(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs = {});
// Runs only the kernel (to reach the run-time checks a kernel makes when
// shapes were unknown at build time).
Result<std::vector<Tensor>> RunKernel(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs = {});
// RunOp for single-output ops.
Result<Tensor> RunOp1(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs = {});

// RunOp1 that records a test failure (and returns an empty Tensor) on error.
Tensor Eval(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs = {});

// Output shapes from the op's shape function. `values` (optional) gives
// constant inputs, null for the others.
Result<std::vector<PartialShape>> InferShapes(const std::string& op, std::vector<PartialShape> shapes,
                                              std::vector<DType> dtypes, AttrMap attrs = {},
                                              std::vector<const Tensor*> values = {});
// "[2, 3];[?]" — output shapes joined by ';' (or the error message).
std::string InferShapesString(const std::string& op, std::vector<PartialShape> shapes,
                              std::vector<DType> dtypes, AttrMap attrs = {});

// Tensor builders.
template <typename T>
Tensor MakeTensor(const std::vector<T>& values, TensorShape shape) {
  return Tensor::FromVector<T>(values, std::move(shape));
}
// Any numeric or bool dtype from doubles (f16 rounds, ints truncate).
Tensor MakeTensorOf(DType dtype, const std::vector<double>& values, TensorShape shape);
Tensor MakeHalf(const std::vector<float>& values, TensorShape shape);
Tensor MakeStrings(const std::vector<std::string>& values, TensorShape shape);

// Values of a numeric or bool tensor as doubles.
std::vector<double> ToDoubles(const Tensor& t);

// Checks shape and values within `tol` (absolute, plus `tol` relative for
// large magnitudes); NaN matches NaN, inf matches inf of the same sign.
void ExpectTensorNear(const Tensor& actual, const std::vector<double>& expected, const TensorShape& shape,
                      double tol = 1e-6);
// Checks dtype, shape and exact values.
template <typename T>
void ExpectTensorEq(const Tensor& actual, const std::vector<T>& expected, const TensorShape& shape) {
  ASSERT_TRUE(actual.IsInitialized()) << "output not initialized";
  ASSERT_EQ(actual.dtype(), kDTypeOf<T>) << actual.DebugString();
  ASSERT_EQ(actual.shape(), shape) << actual.DebugString();
  ASSERT_EQ(static_cast<size_t>(actual.num_elements()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual.data<T>()[i], expected[i]) << "at flat index " << i;
  }
}

// Expects `r` to fail with `code` and a message containing `substr`.
template <typename R>
void ExpectError(const R& r, Code code, const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing: " << substr;
  EXPECT_EQ(r.status().code(), code) << r.status().ToString();
  EXPECT_NE(r.status().message().find(substr), std::string::npos)
      << "message: " << r.status().message() << "\nexpected to contain: " << substr;
}

}  // namespace tfg::test
