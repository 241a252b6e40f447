// matmul: values recorded from NumPy, plus large products checked against a
// double-precision triple loop written here.
#include <cmath>

#include <gtest/gtest.h>

#include "ops/math/matmul.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

using test::Eval;
using test::ExpectError;
using test::ExpectTensorNear;
using test::MakeTensor;
using test::MakeTensorOf;

AttrMap Transposes(bool ta, bool tb) { return {{"transpose_a", ta}, {"transpose_b", tb}}; }

class MatMulTypes : public ::testing::TestWithParam<DType> {};

TEST_P(MatMulTypes, TwoByThreeTimesThreeByTwo) {
  const DType dt = GetParam();
  // NumPy: [[1,2,3],[4,5,6]] @ [[7,8],[9,10],[11,12]] = [[58,64],[139,154]].
  Tensor a = MakeTensorOf(dt, {1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = MakeTensorOf(dt, {7, 8, 9, 10, 11, 12}, {3, 2});
  Tensor at = MakeTensorOf(dt, {1, 4, 2, 5, 3, 6}, {3, 2});    // a stored transposed
  Tensor bt = MakeTensorOf(dt, {7, 9, 11, 8, 10, 12}, {2, 3});  // b stored transposed
  const std::vector<double> want = {58, 64, 139, 154};
  ExpectTensorNear(Eval("matmul", {a, b}), want, {2, 2}, 0);
  ExpectTensorNear(Eval("matmul", {at, b}, Transposes(true, false)), want, {2, 2}, 0);
  ExpectTensorNear(Eval("matmul", {a, bt}, Transposes(false, true)), want, {2, 2}, 0);
  ExpectTensorNear(Eval("matmul", {at, bt}, Transposes(true, true)), want, {2, 2}, 0);
  EXPECT_EQ(Eval("matmul", {a, b}).dtype(), dt);
}

TEST_P(MatMulTypes, BatchDimsBroadcast) {
  const DType dt = GetParam();
  // NumPy: (np.arange(24.).reshape(2,1,3,4)*0.5-3) @ (np.arange(24.).reshape(3,4,2)*0.25-1).
  std::vector<double> a(24), b(24);
  for (int i = 0; i < 24; ++i) {
    a[i] = i * 0.5 - 3;
    b[i] = i * 0.25 - 1;
  }
  Tensor r = Eval("matmul", {MakeTensorOf(dt, a, {2, 1, 3, 4}), MakeTensorOf(dt, b, {3, 4, 2})});
  // Every intermediate value is a multiple of 1/8 below 2048: exact in f16 too.
  ExpectTensorNear(r, {3.5,   1.25,  1.5,   1.25,  -0.5,  1.25,  -14.5, -16.75, -0.5,  -0.75, 13.5,  15.25,
                       -32.5, -34.75, -2.5, -2.75, 27.5,  29.25, -2.5,  1.25,   -4.5,  1.25,  -6.5,  1.25,
                       27.5,  31.25, 41.5,  47.25, 55.5,  63.25, 57.5,  61.25,  87.5,  93.25, 117.5, 125.25},
                   {2, 3, 3, 2}, 0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, MatMulTypes, ::testing::Values(DType::kF32, DType::kF64, DType::kF16),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

TEST(MatMul, IntegerBatchedWithTransposes) {
  // NumPy: swapaxes(A2) @ swapaxes(B2), A2 = arange(24).reshape(3,4,2)%7-3, B2 = arange(60).reshape(3,5,4)%5-2.
  std::vector<double> a(24), b(60);
  for (int i = 0; i < 24; ++i) a[i] = i % 7 - 3;
  for (int i = 0; i < 60; ++i) b[i] = i % 5 - 2;
  const std::vector<double> want = {10, -5, -10, -5, 10, 1,  -6, -3, 10, -2, 1,  -6, -3, 10, -2,
                                    -1, -7, -3,  11, 0,  -1, -7, -3, 11, 0,  -3, -1, 11, -2, -5};
  for (DType dt : {DType::kI32, DType::kI64, DType::kF32}) {
    Tensor r = Eval("matmul", {MakeTensorOf(dt, a, {3, 4, 2}), MakeTensorOf(dt, b, {3, 5, 4})}, Transposes(true, true));
    ExpectTensorNear(r, want, {3, 2, 5}, 0);
  }
}

TEST(MatMul, SharedRightOperandAndSharedLeftOperand) {
  // NumPy: (arange(12).reshape(2,2,3)-4) @ [[1,-1],[2,.5],[0,3]]  (one tall product inside).
  std::vector<double> a(12);
  for (int i = 0; i < 12; ++i) a[i] = i - 4;
  Tensor b = MakeTensor<double>({1, -1, 2, 0.5, 0, 3}, {3, 2});
  ExpectTensorNear(Eval("matmul", {MakeTensorOf(DType::kF64, a, {2, 2, 3}), b}),
                   {-10.0, -3.5, -1.0, 4.0, 8.0, 11.5, 17.0, 19.0}, {2, 2, 2}, 0);
  // NumPy: [[1,2,3],[4,5,6]] @ arange(12).reshape(2,3,2).
  std::vector<double> bb(12);
  for (int i = 0; i < 12; ++i) bb[i] = i;
  ExpectTensorNear(Eval("matmul", {MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3}), MakeTensorOf(DType::kF32, bb, {2, 3, 2})}),
                   {16, 22, 34, 49, 52, 58, 124, 139}, {2, 2, 2}, 0);
}

// Reference product in double, for the BLAS-sized and many-batch cases.
std::vector<double> Reference(const std::vector<double>& a, const std::vector<double>& b, int batch, int m, int k,
                              int n, bool ta, bool tb) {
  std::vector<double> c(static_cast<size_t>(batch) * m * n, 0.0);
  for (int z = 0; z < batch; ++z) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int p = 0; p < k; ++p) {
          const double av = ta ? a[z * m * k + p * m + i] : a[z * m * k + i * k + p];
          const double bv = tb ? b[z * k * n + j * k + p] : b[z * k * n + p * n + j];
          s += av * bv;
        }
        c[(z * m + i) * n + j] = s;
      }
    }
  }
  return c;
}

TEST(MatMul, LargeProductsMatchReference) {
  const int m = 67, k = 130, n = 91;
  std::vector<double> a(m * k), b(k * n);
  for (int i = 0; i < m * k; ++i) a[i] = std::sin(i * 0.37);
  for (int i = 0; i < k * n; ++i) b[i] = std::cos(i * 0.11);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(testing::Message() << "ta=" << ta << " tb=" << tb);
      const std::vector<double> want = Reference(a, b, 1, m, k, n, ta, tb);
      TensorShape sa = ta ? TensorShape{k, m} : TensorShape{m, k};
      TensorShape sb = tb ? TensorShape{n, k} : TensorShape{k, n};
      ExpectTensorNear(Eval("matmul", {MakeTensorOf(DType::kF32, a, sa), MakeTensorOf(DType::kF32, b, sb)},
                            Transposes(ta, tb)),
                       want, {m, n}, 1e-4);
      ExpectTensorNear(Eval("matmul", {MakeTensorOf(DType::kF64, a, sa), MakeTensorOf(DType::kF64, b, sb)},
                            Transposes(ta, tb)),
                       want, {m, n}, 1e-12);
    }
  }
}

TEST(MatMul, ManySmallMatrices) {
  const int batch = 777, m = 3, k = 5, n = 4;
  std::vector<double> a(batch * m * k), b(batch * k * n);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i % 13) - 6;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<double>(i % 7) - 3;
  const std::vector<double> want = Reference(a, b, batch, m, k, n, false, true);
  Tensor r = Eval("matmul", {MakeTensorOf(DType::kI64, a, {batch, m, k}), MakeTensorOf(DType::kI64, b, {batch, n, k})},
                  Transposes(false, true));
  ExpectTensorNear(r, want, {batch, m, n}, 0);
}

TEST(MatMul, EmptyDimensions) {
  ExpectTensorNear(Eval("matmul", {MakeTensor<float>({}, {0, 3}), MakeTensor<float>({1, 2, 3}, {3, 1})}), {}, {0, 1});
  // k == 0: an empty sum is 0.
  ExpectTensorNear(Eval("matmul", {MakeTensor<float>({}, {2, 0}), MakeTensor<float>({}, {0, 3})}), {0, 0, 0, 0, 0, 0},
                   {2, 3});
  ExpectTensorNear(Eval("matmul", {MakeTensor<int32_t>({}, {0, 2, 2}), MakeTensor<int32_t>({1, 0, 0, 1}, {2, 2})}), {},
                   {0, 2, 2});
}

TEST(MatMul, ShapeFunction) {
  auto infer = [](PartialShape a, PartialShape b, AttrMap attrs = {}) {
    return test::InferShapesString("matmul", {std::move(a), std::move(b)}, {DType::kF32, DType::kF32},
                                   std::move(attrs));
  };
  EXPECT_EQ(infer(PartialShape({-1, 784}), PartialShape({784, 10})), "[?, 10]");
  EXPECT_EQ(infer(PartialShape({-1, 784}), PartialShape({10, 10})),
            "matmul: inner dimensions differ: a is [?, 784], b is [10, 10]");
  EXPECT_EQ(infer(PartialShape({3, 2}), PartialShape({3, 4}), Transposes(true, false)), "[2, 4]");
  EXPECT_EQ(infer(PartialShape({3, 2}), PartialShape({3, 4}), Transposes(true, true)),
            "matmul: inner dimensions differ: a is [3, 2], b is [3, 4] (transpose_a=true, transpose_b=true)");
  EXPECT_EQ(infer(PartialShape({5, 1, 2, 3}), PartialShape({4, 3, 7})), "[5, 4, 2, 7]");
  EXPECT_EQ(infer(PartialShape({2, 2, 3}), PartialShape({4, 3, 7})),
            "matmul: batch dimensions do not broadcast: a is [2, 2, 3], b is [4, 3, 7]");
  EXPECT_EQ(infer(PartialShape({3}), PartialShape({3, 4})), "matmul: inputs must have rank >= 2: a is [3], b is [3, 4]");
  EXPECT_EQ(infer(PartialShape(), PartialShape({3, 4})), "<unknown>");
  EXPECT_EQ(infer(PartialShape({-1, -1}), PartialShape({-1, 4})), "[?, 4]");
}

TEST(MatMul, KernelChecksShapesItself) {
  ExpectError(test::RunKernel("matmul", {MakeTensor<float>({1, 2}, {1, 2}), MakeTensor<float>({1, 2, 3}, {3, 1})}),
              Code::kInvalidArgument, "matmul: inner dimensions differ: a is [1, 2], b is [3, 1]");
  ExpectError(test::RunKernel("matmul", {MakeTensor<float>({1, 2}, {2}), MakeTensor<float>({1, 2}, {2, 1})}),
              Code::kInvalidArgument, "matmul: inputs must have rank >= 2: a is [2], b is [2, 1]");
  EXPECT_FALSE(test::RunOp1("matmul", {MakeTensor<bool>({true}, {1, 1}), MakeTensor<bool>({true}, {1, 1})}).ok());
}

// The checks the CPU and GPU kernels share (ops/math/matmul.h).
TEST(MatMulGeometry, BatchDimsBroadcastAndTransposesPickTheMatrixDims) {
  auto d = ComputeMatMulGeometry("matmul", {2, 1, 3, 4}, {3, 4, 5}, {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->a_batch, TensorShape({2, 1}));
  EXPECT_EQ(d->b_batch, TensorShape({3}));
  EXPECT_EQ(d->out_batch, TensorShape({2, 3}));
  EXPECT_EQ(std::make_tuple(d->m, d->k, d->n), std::make_tuple(3, 4, 5));
  EXPECT_EQ(d->out, TensorShape({2, 3, 3, 5}));
  // a stored [k, m] = [4, 3] and b stored [n, k] = [5, 4].
  auto t = ComputeMatMulGeometry("matmul", {4, 3}, {5, 4}, {true, true});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(std::make_tuple(t->m, t->k, t->n), std::make_tuple(3, 4, 5));
  EXPECT_EQ(t->out, TensorShape({3, 5}));
  EXPECT_EQ(t->out_batch, TensorShape());
}

TEST(MatMulGeometry, ErrorsNameTheShapesAndTransposes) {
  auto message = [](TensorShape a, TensorShape b, MatMulAttrs t) {
    return ComputeMatMulGeometry("matmul", a, b, t).status().message();
  };
  EXPECT_EQ(message({3, 2}, {3, 4}, {true, true}),
            "matmul: inner dimensions differ: a is [3, 2], b is [3, 4] (transpose_a=true, transpose_b=true)");
  EXPECT_EQ(message({2, 3}, {3, 4}, {false, true}),
            "matmul: inner dimensions differ: a is [2, 3], b is [3, 4] (transpose_b=true)");
  EXPECT_EQ(message({2, 3}, {2, 4}, {}), "matmul: inner dimensions differ: a is [2, 3], b is [2, 4]");
  EXPECT_EQ(message({3}, {3, 4}, {}), "matmul: inputs must have rank >= 2: a is [3], b is [3, 4]");
  EXPECT_EQ(message({2, 2, 3}, {4, 3, 7}, {}),
            "matmul: batch dimensions do not broadcast: a is [2, 2, 3], b is [4, 3, 7]");
  EXPECT_EQ(ComputeMatMulGeometry("matmul", {3}, {3, 4}, {}).status().code(), Code::kInvalidArgument);
}

TEST(MatMulGeometry, AttrsDefaultToNoTranspose) {
  const MatMulAttrs none = ReadMatMulAttrs({});
  EXPECT_FALSE(none.transpose_a);
  EXPECT_FALSE(none.transpose_b);
  const MatMulAttrs a = ReadMatMulAttrs({{"transpose_a", true}});
  EXPECT_TRUE(a.transpose_a);
  EXPECT_FALSE(a.transpose_b);
}

}  // namespace
}  // namespace tfg
