// where(cond, x, y), checked by hand.
#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectTensorEq;
using test::MakeTensor;

TEST(Where, SameShapes) {
  Tensor c = MakeTensor<bool>({true, false, false, true}, {2, 2});
  ExpectTensorEq<float>(Eval("where", {c, MakeTensor<float>({1, 2, 3, 4}, {2, 2}), MakeTensor<float>({-1, -2, -3, -4}, {2, 2})}),
                        {1, -2, -3, 4}, {2, 2});
}

TEST(Where, AllThreeBroadcast) {
  // cond [2,1], x [3], y scalar -> [2, 3].
  Tensor c = MakeTensor<bool>({true, false}, {2, 1});
  Tensor x = MakeTensor<int64_t>({1, 2, 3}, {3});
  ExpectTensorEq<int64_t>(Eval("where", {c, x, Tensor::Scalar<int64_t>(0)}), {1, 2, 3, 0, 0, 0}, {2, 3});
  // cond [3] against x [2,1], y [1,3].
  Tensor c2 = MakeTensor<bool>({true, false, true}, {3});
  Tensor x2 = MakeTensor<double>({10, 20}, {2, 1});
  Tensor y2 = MakeTensor<double>({-1, -2, -3}, {1, 3});
  ExpectTensorEq<double>(Eval("where", {c2, x2, y2}), {10, -2, 10, 20, -2, 20}, {2, 3});
}

TEST(Where, EveryDtype) {
  Tensor c = MakeTensor<bool>({false, true}, {2});
  ExpectTensorEq<std::string>(Eval("where", {c, test::MakeStrings({"a", "b"}, {2}), test::MakeStrings({"z"}, {})}),
                              {"z", "b"}, {2});
  ExpectTensorEq<bool>(Eval("where", {c, Tensor::Scalar<bool>(true), MakeTensor<bool>({false, false}, {2})}),
                       {false, true}, {2});
  ExpectTensorEq<int32_t>(Eval("where", {c, Tensor::Scalar<int32_t>(7), Tensor::Scalar<int32_t>(8)}), {8, 7}, {2});
  Tensor h = Eval("where", {c, test::MakeHalf({1.5f, 2.5f}, {2}), test::MakeHalf({-1.f, -2.f}, {2})});
  test::ExpectTensorNear(h, {-1, 2.5}, {2}, 0);
}

TEST(Where, ScalarAndEmpty) {
  ExpectTensorEq<float>(Eval("where", {Tensor::Scalar<bool>(false), Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)}),
                        {2}, {});
  ExpectTensorEq<float>(Eval("where", {MakeTensor<bool>({}, {0}), Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)}),
                        {}, {0});
}

TEST(Where, ErrorsNameShapes) {
  EXPECT_EQ(test::InferShapesString("where", {PartialShape({2}), PartialShape({3}), PartialShape({3})},
                                    {DType::kBool, DType::kF32, DType::kF32}),
            "where: shapes [2] and [3] cannot be broadcast together (dimension 0: 2 vs 3)");
  test::ExpectError(test::RunKernel("where", {MakeTensor<bool>({true, false}, {2}), MakeTensor<float>({1, 2, 3}, {3}),
                                              MakeTensor<float>({1, 2, 3}, {3})}),
                    Code::kInvalidArgument, "where: shapes [2] and [3] cannot be broadcast together");
  EXPECT_EQ(test::InferShapesString("where", {PartialShape({-1, 1}), PartialShape({4}), PartialShape()},
                                    {DType::kBool, DType::kF32, DType::kF32}),
            "<unknown>");
  EXPECT_EQ(test::InferShapesString("where", {PartialShape({-1, 1}), PartialShape({4}), PartialShape({})},
                                    {DType::kBool, DType::kF32, DType::kF32}),
            "[?, 4]");
  // The condition must be bool; x and y must agree.
  EXPECT_FALSE(test::RunOp1("where", {MakeTensor<float>({1}, {1}), MakeTensor<float>({1}, {1}),
                                      MakeTensor<float>({1}, {1})}).ok());
  EXPECT_FALSE(test::RunOp1("where", {MakeTensor<bool>({true}, {1}), MakeTensor<float>({1}, {1}),
                                      MakeTensor<double>({1}, {1})}).ok());
}

}  // namespace
}  // namespace tfg
