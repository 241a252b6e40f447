// batch_norm: values from NumPy on x = gen((2, 3, 3), 7, 3, 11, 4.0):
//   training:  m, v = x.mean((0, 1)), x.var((0, 1)); y = (x - m) / sqrt(v + eps) * scale + offset,
//              batch_variance = x.var((0, 1), ddof=1)
//   inference: the same with the given mean and variance.
#include <gtest/gtest.h>

#include <string>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::MakeTensorOf;

class BatchNorm : public ::testing::TestWithParam<DType> {
 protected:
  std::vector<Tensor> Inputs(bool empty_stats) const {
    const DType dt = GetParam();
    return {test::Gen(dt, {2, 3, 3}, 7, 3, 11, 4.0), MakeTensorOf(dt, {1.0, 0.5, 2.0}, {3}),
            MakeTensorOf(dt, {0.0, 1.0, -1.0}, {3}),
            empty_stats ? MakeTensorOf(dt, {}, {0}) : MakeTensorOf(dt, {0.1, -0.2, 0.3}, {3}),
            empty_stats ? MakeTensorOf(dt, {}, {0}) : MakeTensorOf(dt, {1.0, 0.5, 2.0}, {3})};
  }
  double tol() const { return GetParam() == DType::kF16 ? 1e-2 : GetParam() == DType::kF32 ? 1e-5 : 1e-12; }
};

TEST_P(BatchNorm, TrainingUsesBatchStatistics) {
  for (bool empty : {false, true}) {
    auto out = test::RunOp("batch_norm", Inputs(empty));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectTensorNear(
        (*out)[0],
        {-0.2996887300140422, 1.7299257109683293, 1.9197028438733175, -0.5565647843117928, 1.4379554265809977,
         0.7518217063239905, -0.8134408386095433, 1.1459851421936658, -0.4160594312253365, -1.070316892907294,
         0.8540148578063341, -1.5839405687746635, 1.4984436500702112, 0.5620445734190024, -2.7518217063239905,
         1.2415675957724608, 0.27007428903167063, -3.9197028438733175},
        {2, 3, 3}, tol());
    ExpectTensorNear((*out)[1], {-0.20833333333333334, 0.625, -0.375}, {3}, tol());
    ExpectTensorNear((*out)[2], {1.1354166666666665, 0.21875, 0.21875}, {3}, tol());
  }
}

TEST_P(BatchNorm, InferenceUsesTheGivenStatistics) {
  auto out = test::RunOp("batch_norm", Inputs(false), {{"training", false}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectTensorNear(
      (*out)[0],
      {-0.5997002248126639, 2.024281063286238, -1.0706930070754903, -0.8495753184846072, 1.8476808799610245,
       -1.4241580424529414, -1.0994504121565507, 1.6710806966358112, -1.7776230778303925, -1.3493255058284939,
       1.4944805133105976, -2.131088113207844, 1.149425430890939, 1.3178803299853843, -2.484553148585295,
       0.8995503372189959, 1.1412801466601707, -2.8380181839627463},
      {2, 3, 3}, tol());
  ExpectTensorNear((*out)[1], {0.1, -0.2, 0.3}, {3}, tol());
  ExpectTensorNear((*out)[2], {1.0, 0.5, 2.0}, {3}, tol());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, BatchNorm, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(BatchNorm, SingleRowVarianceIsNotInfinite) {
  // One row: the biased variance is 0 and the unbiased one is taken with
  // n - 1 = 1 (TensorFlow's rule), so it is 0 too.
  auto out = test::RunOp("batch_norm", {test::MakeTensor<float>({3, 4}, {1, 2}), test::MakeTensor<float>({1, 1}, {2}),
                                        test::MakeTensor<float>({0, 0}, {2}), test::MakeTensor<float>({}, {0}),
                                        test::MakeTensor<float>({}, {0})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectTensorNear((*out)[0], {0, 0}, {1, 2});
  ExpectTensorNear((*out)[2], {0, 0}, {2});
}

TEST(BatchNorm, ShapesAndErrors) {
  const std::vector<DType> f32(5, DType::kF32);
  std::vector<PartialShape> shapes = {PartialShape({-1, 7, 7, -1}), PartialShape({-1}), PartialShape({16}),
                                      PartialShape({0}), PartialShape({0})};
  EXPECT_EQ(test::InferShapesString("batch_norm", shapes, f32), "[?, 7, 7, ?];[16];[16]");
  EXPECT_EQ(test::InferShapesString("batch_norm", shapes, f32, {{"training", false}}),
            "batch_norm: mean has 0 values, expected 16 (one per channel of x)");
  shapes[1] = PartialShape({8});
  EXPECT_EQ(test::InferShapesString("batch_norm", shapes, f32),
            "batch_norm: offset has 16 values, expected 8 (one per channel of x)");
  Tensor empty = test::MakeTensor<float>({}, {0});
  Tensor x = test::MakeTensor<float>({}, {2, 3});
  test::ExpectError(
      test::RunKernel("batch_norm",
                      {x, test::MakeTensor<float>({}, {3}), test::MakeTensor<float>({}, {2}), empty, empty}),
      Code::kInvalidArgument, "batch_norm: offset must have shape [3] (one value per channel of x), got [2]");
}

TEST(BatchNormGradient, TrainingMode) {
  // The loss reads all three outputs, so the gradient through batch_mean
  // and batch_variance is checked too.
  test::GradCheckOptions options;
  options.wrt = {0, 1, 2};
  std::vector<Tensor> in = {test::RandomF64({3, 2, 3}, -2, 2, 111), test::RandomF64({3}, 0.5, 1.5, 112),
                            test::RandomF64({3}, -1, 1, 113), test::RandomF64({3}, -1, 1, 114),
                            test::RandomF64({3}, 0.5, 1.5, 115)};
  EXPECT_GRADIENT_OK("batch_norm", in, {{"epsilon", 0.01}}, options);
}

TEST(BatchNormGradient, InferenceMode) {
  std::vector<Tensor> in = {test::RandomF64({4, 3}, -2, 2, 121), test::RandomF64({3}, 0.5, 1.5, 122),
                            test::RandomF64({3}, -1, 1, 123), test::RandomF64({3}, -1, 1, 124),
                            test::RandomF64({3}, 0.5, 1.5, 125)};
  EXPECT_GRADIENT_OK("batch_norm", in, {{"training", false}});
}

}  // namespace
}  // namespace tfg
