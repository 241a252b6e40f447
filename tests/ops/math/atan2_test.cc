// atan2(y, x). Values and gradients recorded from TensorFlow 2.21
// (tf.math.atan2 in float64, gradients from tf.GradientTape).
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/symbolic_grad_util.h"

namespace tfg::atan2_test {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

// The four quadrants, the axes and the sign of zero: atan2(0, -1) = pi,
// atan2(-0, -1) = -pi.
TEST(Atan2Test, QuadrantsAndSignedZeros) {
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64}) {
    SCOPED_TRACE(DTypeName(dtype));
    const Tensor y = MakeTensorOf(dtype, {0.0, 1.0, -1.0, 0.0, -0.0, 2.0}, {6});
    const Tensor x = MakeTensorOf(dtype, {0.0, 0.0, -1.0, -1.0, -1.0, 3.0}, {6});
    const Tensor z = Eval("atan2", {y, x});
    EXPECT_EQ(z.dtype(), dtype);
    ExpectTensorNear(z,
                     {0.0, 1.5707963267948966, -2.356194490192345, 3.141592653589793, -3.141592653589793,
                      0.5880026035475675},
                     {6}, dtype == DType::kF16 ? 2e-3 : 1e-6);
  }
}

const Tensor& ColumnY() {
  static const Tensor y = MakeTensor<double>({1.0, -2.0}, {2, 1});
  return y;
}
const Tensor& RowX() {
  static const Tensor x = MakeTensor<double>({0.5, -0.5, 2.0}, {3});
  return x;
}

TEST(Atan2Test, Broadcasts) {
  ExpectTensorNear(Eval("atan2", {ColumnY(), RowX()}),
                   {1.1071487177940904, 2.0344439357957027, 0.4636476090008061, -1.3258176636680323,
                    -1.8157749899217608, -0.7853981633974483},
                   {2, 3}, 1e-15);
  EXPECT_EQ(test::InferShapesString("atan2", {PartialShape({2, 1}), PartialShape({3})}, {DType::kF32, DType::kF32}),
            "[2, 3]");
  ExpectTensorNear(Eval("atan2", {MakeTensor<float>({}, {0, 3}), MakeTensor<float>({1}, {1})}), {}, {0, 3});
}

TEST(Atan2Test, GradientsMatchTensorFlow) {
  auto g = test::SymbolicGradients("atan2", {ColumnY(), RowX()}, {}, MakeTensor<double>({1, 1, 1, 1, 1, 1}, {2, 3}));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ExpectTensorNear((*g)[0], {0.4, 0.25}, {2, 1}, 1e-15);
  ExpectTensorNear((*g)[1], {-0.3294117647058824, -0.3294117647058824, 0.04999999999999999}, {3}, 1e-15);
}

TEST(Atan2Test, GradientMatchesFiniteDifferences) {
  EXPECT_GRADIENT_OK("atan2", {test::RandomF64({2, 3}, 0.5, 2, 1), test::RandomF64({2, 3}, -2, 2, 2)});
  EXPECT_GRADIENT_OK("atan2", {ColumnY(), RowX()});
}

TEST(Atan2Test, Errors) {
  ExpectError(test::RunOp1("atan2", {MakeTensor<int32_t>({1}, {1}), MakeTensor<int32_t>({1}, {1})}),
              Code::kInvalidArgument, "i32");
  ExpectError(test::RunOp1("atan2", {MakeTensor<float>({1, 2}, {2}), MakeTensor<float>({1, 2, 3}, {3})}),
              Code::kInvalidArgument, "atan2: ");
}

}  // namespace
}  // namespace tfg::atan2_test
