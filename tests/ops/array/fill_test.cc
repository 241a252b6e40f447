#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

TEST(FillOpTest, EveryDType) {
  for (DType dtype : kAllDTypes) {
    ExpectOp("fill", {Make(dtype, {7}, {})}, {{"dims", Ints{2, 3}}}, dtype, {2, 3}, {7, 7, 7, 7, 7, 7});
  }
  ExpectOp("fill", {Make(DType::kF32, {7}, {})}, {{"dims", Ints{}}}, DType::kF32, {}, {7});
  ExpectOp("fill", {Make(DType::kF32, {7}, {})}, {{"dims", Ints{3, 0}}}, DType::kF32, {3, 0}, {});
}

TEST(FillOpTest, Errors) {
  ExpectError(RunOp1("fill", {Iota(DType::kF32, {2})}, {{"dims", Ints{2}}}), Code::kInvalidArgument,
              "fill: value must be a scalar, got shape [2]");
  ExpectError(RunOp1("fill", {Make(DType::kF32, {1}, {})}, {{"dims", Ints{2, -1}}}), Code::kInvalidArgument,
              "fill: shape [2, -1] has a negative dimension");
}

TEST(ZerosOnesOpTest, ShapeAndDType) {
  ExpectOp("zeros", {}, {{"shape", Ints{2, 2}}}, DType::kF32, {2, 2}, {0, 0, 0, 0});
  ExpectOp("ones", {}, {{"shape", Ints{3}}}, DType::kF32, {3}, {1, 1, 1});
  for (DType dtype : {DType::kF16, DType::kF64, DType::kI32, DType::kI64, DType::kBool}) {
    ExpectOp("zeros", {}, {{"shape", Ints{2}}, {"dtype", dtype}}, dtype, {2}, {0, 0});
    ExpectOp("ones", {}, {{"shape", Ints{1, 2}}, {"dtype", dtype}}, dtype, {1, 2}, {1, 1});
    ExpectOp("zeros_like", {Iota(dtype, {3})}, {}, dtype, {3}, {0, 0, 0});
    ExpectOp("ones_like", {Iota(dtype, {2, 1})}, {}, dtype, {2, 1}, {1, 1});
  }
  auto s = RunOp1("zeros", {}, {{"shape", Ints{2}}, {"dtype", DType::kString}});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectTensorEq<std::string>(*s, {"", ""}, {2});
  ExpectOp("zeros", {}, {{"shape", Ints{}}}, DType::kF32, {}, {0});
  ExpectOp("ones_like", {Iota(DType::kF32, {0, 2})}, {}, DType::kF32, {0, 2}, {});
}

TEST(ZerosOnesOpTest, ErrorsAndShapes) {
  EXPECT_FALSE(RunOp1("ones", {}, {{"shape", Ints{2}}, {"dtype", DType::kString}}).ok());
  ExpectError(RunOp1("zeros", {}, {{"shape", Ints{-2}}}), Code::kInvalidArgument,
              "zeros: shape [-2] has a negative dimension");
  EXPECT_EQ(InferShapesString("zeros", {}, {}, {{"shape", Ints{4, 5}}}), "[4, 5]");
  EXPECT_EQ(InferShapesString("ones_like", {PartialShape({-1, 2})}, {DType::kI32}), "[?, 2]");
}

TEST(FillOpTest, ManyElements) {
  auto r = RunOp1("fill", {Tensor::Scalar<double>(2.5)}, {{"dims", Ints{37, 29}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int64_t i = 0; i < r->num_elements(); ++i) ASSERT_EQ(r->data<double>()[i], 2.5) << i;
  auto s = RunOp1("fill", {Tensor::Scalar<std::string>("ab")}, {{"dims", Ints{5}}});
  ASSERT_TRUE(s.ok());
  ExpectTensorEq<std::string>(*s, {"ab", "ab", "ab", "ab", "ab"}, {5});
}

TEST(FillOpTest, Gradient) {
  EXPECT_GRADIENT_OK("fill", {RandomF64({})}, {{"dims", Ints{2, 3}}});
}

}  // namespace
}  // namespace tfg::test
