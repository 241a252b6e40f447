// unique. Values recorded from TensorFlow 2.21 (tf.unique) or by hand where
// noted.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::unique_test {
namespace {

using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

std::vector<Tensor> Unique(Tensor x, AttrMap attrs = {}) {
  auto r = test::RunOp("unique", {std::move(x)}, std::move(attrs));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<Tensor>(2);
}

// tf.unique([3, 1, 3, 2, 1, -0.0, 0.0]): y = [3, 1, 2, -0.0], idx = [0, 1, 0, 2, 1, 3, 3].
TEST(UniqueTest, FirstOccurrenceOrder) {
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    SCOPED_TRACE(DTypeName(dtype));
    auto out = Unique(MakeTensorOf(dtype, {3, 1, 3, 2, 1, -0.0, 0.0}, {7}));
    ExpectTensorNear(out[0], {3, 1, 2, 0}, {4}, 0);
    ExpectTensorEq<int32_t>(out[1], {0, 1, 0, 2, 1, 3, 3}, {7});
  }
  auto out = Unique(MakeTensor<double>({-0.0, 0.0}, {2}));
  EXPECT_TRUE(std::signbit(out[0].data<double>()[0]));  // the first zero seen is kept
}

TEST(UniqueTest, Int64IndicesBoolsStringsAndEmpty) {
  auto out = Unique(MakeTensor<int32_t>({5, 5, 5}, {3}), {{"out_idx", DType::kI64}});
  ExpectTensorEq<int32_t>(out[0], {5}, {1});
  ExpectTensorEq<int64_t>(out[1], {0, 0, 0}, {3});
  out = Unique(MakeTensor<bool>({false, true, false}, {3}));
  ExpectTensorEq<bool>(out[0], {false, true}, {2});
  out = Unique(test::MakeStrings({"b", "a", "b", ""}, {4}));
  EXPECT_EQ(out[0].num_elements(), 3);
  EXPECT_EQ(out[0].data<std::string>()[0], "b");
  EXPECT_EQ(out[0].data<std::string>()[2], "");
  ExpectTensorEq<int32_t>(out[1], {0, 1, 0, 2}, {4});
  out = Unique(MakeTensor<float>({}, {0}));
  ExpectTensorNear(out[0], {}, {0});
  ExpectTensorEq<int32_t>(out[1], {}, {0});
}

// Every NaN is its own element (NaN != NaN), by hand.
TEST(UniqueTest, NaNsAreDistinct) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto out = Unique(MakeTensor<double>({nan, 1, nan}, {3}));
  ExpectTensorNear(out[0], {nan, 1, nan}, {3});
  ExpectTensorEq<int32_t>(out[1], {0, 1, 2}, {3});
}

TEST(UniqueTest, ShapesAndErrors) {
  EXPECT_EQ(test::InferShapesString("unique", {PartialShape({5})}, {DType::kF32}), "[?];[5]");
  EXPECT_EQ(test::InferShapesString("unique", {PartialShape::Unknown()}, {DType::kF32}), "[?];[?]");
  ExpectError(test::RunOp("unique", {MakeTensor<float>({1, 2}, {1, 2})}), Code::kInvalidArgument,
              "unique: x must be a vector, got shape [1, 2]");
  ExpectError(test::RunKernel("unique", {MakeTensor<float>({1}, {})}), Code::kInvalidArgument,
              "unique: x must be a vector, got shape []");
}

// y is a selection of x: each x gets the dy of its element of y. By hand:
// x = [3, 1, 3, 2, 1], y = [3, 1, 2], dy = [1, 10, 100] -> [1, 10, 1, 100, 10].
TEST(UniqueTest, Gradient) {
  const Tensor x = MakeTensor<double>({3, 1, 3, 2, 1}, {5});
  auto g = test::SymbolicGradients("unique", {x}, {}, MakeTensor<double>({1, 10, 100}, {3}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], {1, 10, 1, 100, 10}, {5}, 0);
  EXPECT_GRADIENT_OK("unique", {test::RandomF64({4})});
}

}  // namespace
}  // namespace tfg::unique_test
