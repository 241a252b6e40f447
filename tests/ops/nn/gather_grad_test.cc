// gather_grad: values from NumPy's np.add.at (scatter-add with repeats).
#include <gtest/gtest.h>

#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::ExpectTensorNear;
using test::MakeTensor;

TEST(GatherGrad, RepeatedIndicesAddUp) {
  Tensor values = MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  Tensor params = MakeTensor<float>({}, {5, 2});
  for (Tensor indices : {MakeTensor<int32_t>({1, 3, 1}, {3}), MakeTensor<int64_t>({1, 3, 1}, {3})}) {
    ExpectTensorNear(test::Eval("gather_grad", {values, indices, params}), {0, 0, 6, 8, 0, 0, 3, 4, 0, 0}, {5, 2});
  }
}

TEST(GatherGrad, InnerAxisAndMatrixIndices) {
  // params [2, 4, 3], indices [[0, 3], [3, 3]] along axis 1: values [2, 2, 2, 3].
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[i] = (i - 10.0) / 4;
  Tensor values = test::MakeTensorOf(DType::kF64, v, {2, 2, 2, 3});
  Tensor indices = MakeTensor<int32_t>({0, 3, 3, 3}, {2, 2});
  Tensor params = MakeTensor<double>({}, {2, 4, 3});
  ExpectTensorNear(test::Eval("gather_grad", {values, indices, params}, {{"axis", int64_t{1}}}),
                   {-2.5, -2.25, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.0, -2.25, -1.5,
                    0.5,  0.75,  1.0,  0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0,  6.75,  7.5},
                   {2, 4, 3}, 1e-12);
  EXPECT_EQ(test::Eval("gather_grad", {values, indices, params}, {{"axis", int64_t{-2}}}).shape(),
            TensorShape({2, 4, 3}));
}

TEST(GatherGrad, ManyIndicesIntoFewRows) {
  // 3000 updates of one row each split over threads by destination row.
  std::vector<int64_t> idx(3000);
  for (int i = 0; i < 3000; ++i) idx[i] = i % 3;
  Tensor values = MakeTensor<float>(std::vector<float>(6000, 1.0f), {3000, 2});
  Tensor params = MakeTensor<float>({}, {4, 2});
  ExpectTensorNear(test::Eval("gather_grad", {values, MakeTensor<int64_t>(idx, {3000}), params}),
                   {1000, 1000, 1000, 1000, 1000, 1000, 0, 0}, {4, 2});
}

TEST(GatherGrad, Errors) {
  Tensor values = MakeTensor<float>({1, 2, 3, 4}, {2, 2});
  Tensor params = MakeTensor<float>({}, {3, 2});
  test::ExpectError(test::RunOp1("gather_grad", {values, MakeTensor<int32_t>({0, 3}, {2}), params}),
                    Code::kInvalidArgument,
                    "gather_grad: index 3 at flat position 1 of indices is out of range [0, 3)");
  test::ExpectError(test::RunOp1("gather_grad", {values, MakeTensor<int32_t>({0}, {1}), params}),
                    Code::kInvalidArgument,
                    "gather_grad: values have shape [2, 2] but gathering indices [1] from params [3, 2] gives [1, 2]");
  EXPECT_EQ(test::InferShapesString("gather_grad", {PartialShape({-1, 8}), PartialShape({-1}), PartialShape({100, 8})},
                                    {DType::kF32, DType::kI32, DType::kF32}),
            "[100, 8]");
  EXPECT_EQ(test::InferShapesString("gather_grad", {PartialShape({4, 8}), PartialShape({4}), PartialShape({100, 8})},
                                    {DType::kF32, DType::kI32, DType::kF32}, {{"axis", int64_t{2}}}),
            "gather_grad: axis 2 is out of range for params of rank 2");
}

TEST(GatherGradGradient, FiniteDifferences) {
  test::GradCheckOptions wrt_values;
  wrt_values.wrt = {0};
  EXPECT_GRADIENT_OK("gather_grad",
                     {test::RandomF64({4, 3}, -1, 1, 141), MakeTensor<int32_t>({2, 0, 2, 1}, {4}),
                      test::RandomF64({3, 3}, -1, 1, 142)},
                     {}, wrt_values);
}

}  // namespace
}  // namespace tfg
