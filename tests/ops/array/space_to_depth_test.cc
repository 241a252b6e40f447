// space_to_depth and depth_to_space. Expected values recorded from
// TensorFlow 2 (tf.nn.space_to_depth(np.arange(32).reshape(1, 4, 4, 2), 2),
// tf.nn.depth_to_space(np.arange(16).reshape(1, 1, 2, 8), 2)).
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

AttrMap SpaceDepthBlock(int64_t b) { return {{"block_size", b}}; }

std::vector<double> SpaceDepthIota(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

class SpaceToDepthOp : public ::testing::TestWithParam<DType> {};

TEST_P(SpaceToDepthOp, MatchesTensorFlow) {
  const Tensor y = Eval("space_to_depth", {MakeTensorOf(GetParam(), SpaceDepthIota(32), {1, 4, 4, 2})}, SpaceDepthBlock(2));
  EXPECT_EQ(y.dtype(), GetParam());
  ExpectTensorNear(y, {0,  1,  2,  3,  8,  9,  10, 11, 4,  5,  6,  7,  12, 13, 14, 15,
                       16, 17, 18, 19, 24, 25, 26, 27, 20, 21, 22, 23, 28, 29, 30, 31},
                   {1, 2, 2, 8});
  ExpectTensorNear(Eval("depth_to_space", {MakeTensorOf(GetParam(), SpaceDepthIota(16), {1, 1, 2, 8})}, SpaceDepthBlock(2)),
                   {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15}, {1, 2, 4, 2});
  // Round trips, with a batch of 2 and block 3.
  const Tensor x = MakeTensorOf(GetParam(), SpaceDepthIota(2 * 3 * 6 * 2), {2, 3, 6, 2});
  const Tensor d = Eval("space_to_depth", {x}, SpaceDepthBlock(3));
  ExpectTensorNear(Eval("depth_to_space", {d}, SpaceDepthBlock(3)), SpaceDepthIota(72), {2, 3, 6, 2});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SpaceToDepthOp,
                         ::testing::Values(DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(SpaceToDepthOps, StringsBoolsAndEmpty) {
  const Tensor s = test::MakeStrings({"a", "b", "c", "d"}, {1, 2, 2, 1});
  const Tensor y = Eval("space_to_depth", {s}, SpaceDepthBlock(2));
  ASSERT_EQ(y.shape(), TensorShape({1, 1, 1, 4}));
  EXPECT_EQ(y.data<std::string>()[0], "a");
  EXPECT_EQ(y.data<std::string>()[3], "d");
  ExpectTensorEq<bool>(Eval("depth_to_space", {MakeTensor<bool>({true, false, false, true}, {1, 1, 1, 4})}, SpaceDepthBlock(2)),
                       {true, false, false, true}, {1, 2, 2, 1});
  ExpectTensorNear(Eval("space_to_depth", {MakeTensor<float>({}, {0, 4, 2, 3})}, SpaceDepthBlock(2)), {}, {0, 2, 1, 12});
}

// Found by op_fuzz: zero channels over 2**31 - 1 pixels took minutes
// walking the pixels; an empty output returns at once.
TEST(SpaceToDepthOps, EmptyOutputsOfManyPixelsReturnAtOnce) {
  const Tensor x = MakeTensor<float>({}, {1, 1, int64_t{2147483647}, 0});
  EXPECT_EQ(Eval("depth_to_space", {x}, SpaceDepthBlock(3)).shape(), TensorShape({1, 3, int64_t{6442450941}, 0}));
}

TEST(SpaceToDepthOps, ShapesAndErrors) {
  using test::InferShapesString;
  EXPECT_EQ(InferShapesString("space_to_depth", {PartialShape({-1, 4, -1, 3})}, {DType::kF32}, SpaceDepthBlock(2)),
            "[?, 2, ?, 12]");
  EXPECT_EQ(InferShapesString("depth_to_space", {PartialShape({2, 3, 4, 8})}, {DType::kF32}, SpaceDepthBlock(2)),
            "[2, 6, 8, 2]");
  const Tensor x = MakeTensor<float>(std::vector<float>(18, 1), {1, 3, 3, 2});
  ExpectError(test::RunOp1("space_to_depth", {x}, SpaceDepthBlock(2)), Code::kInvalidArgument,
              "space_to_depth: height and width of input [1, 3, 3, 2] must be multiples of block_size 2");
  ExpectError(test::RunOp1("depth_to_space", {x}, SpaceDepthBlock(2)), Code::kInvalidArgument,
              "depth_to_space: channels of input [1, 3, 3, 2] must be a multiple of block_size^2 = 4");
  ExpectError(test::RunOp1("space_to_depth", {x}, SpaceDepthBlock(1)), Code::kInvalidArgument,
              "space_to_depth: block_size must be at least 2, got 1");
  ExpectError(test::RunOp1("depth_to_space", {MakeTensor<float>({1, 2}, {2})}, SpaceDepthBlock(2)), Code::kInvalidArgument,
              "depth_to_space: input must be 4-D [batch, height, width, channels], got [2]");
  ExpectError(test::RunKernel("space_to_depth", {x}, SpaceDepthBlock(2)), Code::kInvalidArgument, "must be multiples");
}

TEST(SpaceToDepthOps, Gradients) {
  EXPECT_GRADIENT_OK("space_to_depth", {test::RandomF64({2, 4, 6, 3}, -1, 1, 1)}, SpaceDepthBlock(2));
  EXPECT_GRADIENT_OK("depth_to_space", {test::RandomF64({2, 2, 3, 8}, -1, 1, 2)}, SpaceDepthBlock(2));
}

}  // namespace
}  // namespace tfg
