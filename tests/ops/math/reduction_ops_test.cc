// sum/mean/max/min/prod: values recorded from NumPy on a [3, 2, 4] input,
// covering every kernel layout (all axes, rows, columns, a middle axis and
// non-adjacent axes).
#include <cmath>

#include <gtest/gtest.h>

#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorEq;
using test::ExpectTensorNear;
using test::MakeHalf;
using test::MakeTensor;
using test::MakeTensorOf;

const std::vector<double> kX = {1, -2, 3, 0.5, 4, 5, -6, 2, 7, 8, 9, -1, -10, 11, 12, 3, 0, 1, -1, 2, 2, 2, 2, 2};

AttrMap Axes(std::vector<int64_t> axes, bool keepdims = false) {
  return {{"axis", std::move(axes)}, {"keepdims", keepdims}};
}

struct Case {
  std::string op;
  std::vector<int64_t> axes;  // empty: none (all axes)
  TensorShape shape;
  std::vector<double> want;
};

class Reduce : public ::testing::TestWithParam<DType> {};

TEST_P(Reduce, MatchesNumPyOnEveryLayout) {
  const std::vector<Case> cases = {
      {"sum", {}, {}, {56.5}},
      {"mean", {}, {}, {2.3541666666666665}},
      {"max", {}, {}, {12}},
      {"min", {}, {}, {-10}},
      {"sum", {0}, {2, 4}, {8, 7, 11, 1.5, -4, 18, 8, 7}},
      {"max", {0}, {2, 4}, {7, 8, 9, 2, 4, 11, 12, 3}},
      {"prod", {0}, {2, 4}, {0, -16, -27, -1, -80, 110, -144, 12}},
      {"mean", {1}, {3, 4}, {2.5, 1.5, -1.5, 1.25, -1.5, 9.5, 10.5, 1, 1, 1.5, 0.5, 2}},
      {"min", {1}, {3, 4}, {1, -2, -6, 0.5, -10, 8, 9, -1, 0, 1, -1, 2}},
      {"sum", {2}, {3, 2}, {2.5, 5, 23, 16, 2, 8}},
      {"prod", {-1}, {3, 2}, {-3, -240, -504, -3960, 0, 16}},
      {"mean", {0, 2}, {2}, {2.2916666666666665, 2.4166666666666665}},
      {"max", {2, 0}, {2}, {9, 12}},
      {"min", {0, 1}, {4}, {-10, -2, -6, -1}},
      {"sum", {-2, -1}, {3}, {7.5, 39, 10}},
      {"mean", {1, 2}, {3}, {0.9375, 4.875, 1.25}},
  };
  const DType dt = GetParam();
  const double tol = dt == DType::kF16 ? 4e-3 : dt == DType::kF32 ? 1e-6 : 1e-14;
  Tensor x = MakeTensorOf(dt, kX, {3, 2, 4});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " over " + std::to_string(c.axes.size()) + " axes");
    AttrMap attrs;
    if (!c.axes.empty()) attrs = Axes(c.axes);
    Tensor r = Eval(c.op, {x}, attrs);
    EXPECT_EQ(r.dtype(), dt);
    ExpectTensorNear(r, c.want, c.shape, tol);
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Reduce, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(Reduce, IntegersIncludingTruncatedMean) {
  for (DType dt : {DType::kI32, DType::kI64}) {
    Tensor x = MakeTensorOf(dt, {7, -7, 3, 4, 5, -6}, {2, 3});
    ExpectTensorNear(Eval("sum", {x}, Axes({1})), {3, 3}, {2}, 0);
    // TF: integer mean truncates: 3/3 = 1, [11, -2, -3] / 2 = [5, -1, -1].
    ExpectTensorNear(Eval("mean", {x}, Axes({1})), {1, 1}, {2}, 0);
    ExpectTensorNear(Eval("mean", {x}, Axes({0})), {5, -1, -1}, {3}, 0);
    ExpectTensorNear(Eval("prod", {x}), {7 * -7 * 3 * 4 * 5 * -6}, {}, 0);
    ExpectTensorNear(Eval("max", {x}, Axes({0}, true)), {7, 5, 3}, {1, 3}, 0);
    ExpectTensorNear(Eval("min", {x}, Axes({-1}, true)), {-7, -6}, {2, 1}, 0);
  }
}

TEST(Reduce, KeepdimsAndSingleIntAxis) {
  Tensor x = MakeTensorOf(DType::kF32, kX, {3, 2, 4});
  ExpectTensorNear(Eval("sum", {x}, Axes({0, 2}, true)), {27.5, 29}, {1, 2, 1});
  ExpectTensorNear(Eval("max", {x}, {{"keepdims", true}}), {12}, {1, 1, 1});
  // Reducing no axis (an empty list) copies.
  ExpectTensorNear(Eval("sum", {MakeTensor<float>({1, 2}, {2})}, Axes({})), {1, 2}, {2});
  ExpectTensorNear(Eval("mean", {Tensor::Scalar<double>(4)}), {4}, {});
}

TEST(Reduce, EmptySets) {
  Tensor e = MakeTensor<float>({}, {0, 3});
  ExpectTensorNear(Eval("sum", {e}, Axes({0})), {0, 0, 0}, {3});
  ExpectTensorNear(Eval("prod", {e}, Axes({0})), {1, 1, 1}, {3});
  ExpectTensorNear(Eval("mean", {e}, Axes({0})), {NAN, NAN, NAN}, {3});
  ExpectTensorNear(Eval("sum", {e}), {0}, {});
  // Reducing the non-empty axis leaves an empty result: nothing to reduce.
  ExpectTensorNear(Eval("max", {e}, Axes({1})), {}, {0});
  // max and min give their identity, as TensorFlow (tf.reduce_max of a
  // [0, 3] f32 tensor over axis 0 is [-inf, -inf, -inf]).
  ExpectTensorNear(Eval("max", {e}, Axes({0})), {-INFINITY, -INFINITY, -INFINITY}, {3});
  ExpectTensorNear(Eval("min", {e}), {INFINITY}, {});
  ExpectTensorEq<int32_t>(Eval("max", {MakeTensor<int32_t>({}, {2, 0})}, Axes({1})), {INT32_MIN, INT32_MIN}, {2});
  ExpectTensorEq<int64_t>(Eval("min", {MakeTensor<int64_t>({}, {0})}), {INT64_MAX}, {});
  ExpectTensorEq<half>(Eval("max", {MakeHalf({}, {0})}), {half(-INFINITY)}, {});
  // TensorFlow's integer mean of nothing is 0.
  ExpectTensorEq<int32_t>(Eval("mean", {MakeTensor<int32_t>({}, {0})}), {0}, {});
}

TEST(Reduce, NaNPropagatesThroughMaxAndMin) {
  Tensor x = MakeTensor<float>({1, NAN, 3, -1, -2, -3}, {2, 3});
  ExpectTensorNear(Eval("max", {x}, Axes({1})), {NAN, -1}, {2});
  ExpectTensorNear(Eval("min", {x}, Axes({0})), {-1, NAN, -3}, {3});
  Tensor inf = MakeTensor<float>({-INFINITY, -INFINITY}, {2});
  ExpectTensorNear(Eval("max", {inf}), {-INFINITY}, {});
}

TEST(Reduce, LargeInputsAcrossThreads) {
  // sum(1..n) = n(n+1)/2; columns of a [1000, 700] matrix of i % 10.
  const int n = 200001;
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i + 1;
  ExpectTensorNear(Eval("sum", {MakeTensorOf(DType::kF64, v, {n})}), {20000300001.0}, {}, 0);
  ExpectTensorNear(Eval("sum", {MakeTensorOf(DType::kI64, v, {n})}), {20000300001.0}, {}, 0);
  ExpectTensorNear(Eval("sum", {MakeTensorOf(DType::kF32, v, {n})}), {20000300001.0}, {}, 1e-6);
  ExpectTensorNear(Eval("max", {MakeTensorOf(DType::kF32, v, {n})}), {200001}, {}, 0);
  const int rows = 1000, cols = 700;
  std::vector<double> m(rows * cols);
  for (int i = 0; i < rows * cols; ++i) m[i] = i % 10;
  std::vector<double> col_sums(cols), row_sums(rows);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      col_sums[j] += (i * cols + j) % 10;
      row_sums[i] += (i * cols + j) % 10;
    }
  }
  Tensor t = MakeTensorOf(DType::kI32, m, {rows, cols});
  ExpectTensorNear(Eval("sum", {t}, Axes({0})), col_sums, {cols}, 0);
  ExpectTensorNear(Eval("sum", {t}, Axes({1})), row_sums, {rows}, 0);
}

TEST(ReduceShapeFn, ShapesAndErrors) {
  auto infer = [](PartialShape s, AttrMap attrs) {
    return test::InferShapesString("sum", {std::move(s)}, {DType::kF32}, std::move(attrs));
  };
  EXPECT_EQ(infer(PartialShape({-1, 3}), Axes({0})), "[3]");
  EXPECT_EQ(infer(PartialShape({-1, 3}), Axes({0}, true)), "[1, 3]");
  EXPECT_EQ(infer(PartialShape({-1, 3, 5}), Axes({-1, 0})), "[3]");
  EXPECT_EQ(infer(PartialShape({-1, 3}), {}), "[]");
  EXPECT_EQ(infer(PartialShape({-1, 3}), {{"keepdims", true}}), "[1, 1]");
  EXPECT_EQ(infer(PartialShape(), {}), "[]");
  EXPECT_EQ(infer(PartialShape(), Axes({1})), "<unknown>");
  EXPECT_EQ(infer(PartialShape({2, 3}), Axes({2})), "sum: axis 2 is out of range for rank 2 (input shape [2, 3])");
  EXPECT_EQ(infer(PartialShape({2, 3}), Axes({-3})), "sum: axis -3 is out of range for rank 2 (input shape [2, 3])");
  EXPECT_EQ(infer(PartialShape({2, 3}), Axes({1, -1})), "sum: axis -1 is listed more than once (input shape [2, 3])");
  EXPECT_EQ(test::InferShapesString("mean", {PartialShape({})}, {DType::kF32}, Axes({0})),
            "mean: axis 0 is out of range for rank 0 (input shape [])");
  EXPECT_FALSE(test::RunOp1("sum", {MakeTensor<bool>({true}, {1})}).ok());
}

}  // namespace
}  // namespace tfg
