// pad vs numpy.pad on m = arange(1, 7).reshape(2, 3) with [[1, 1], [2, 2]].
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

AttrMap PadAttrs(Ints paddings, std::string mode, double value = 0) {
  return {{"paddings", std::move(paddings)}, {"mode", std::move(mode)}, {"constant_values", value}};
}

// pad_grad's attrs for paddings [[1, 1], [2, 2]].
AttrMap GradAttrs(std::string mode) { return {{"paddings", Ints{1, 1, 2, 2}}, {"mode", std::move(mode)}}; }

const std::vector<double> kM = {1, 2, 3, 4, 5, 6};

TEST(PadOpTest, Constant) {
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    ExpectOp("pad", {Make(dtype, kM, {2, 3})}, PadAttrs({1, 1, 2, 2}, "CONSTANT", 9), dtype, {4, 7},
             {9, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 3, 9, 9, 9, 9, 4, 5, 6, 9, 9, 9, 9, 9, 9, 9, 9, 9});
  }
  // Strings pad with "" and bools with false by default.
  auto s = RunOp1("pad", {MakeStrings({"a", "b"}, {2})}, PadAttrs({1, 0}, "CONSTANT"));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectTensorEq<std::string>(*s, {"", "a", "b"}, {3});
  ExpectOp("pad", {Make(DType::kBool, {1, 1}, {2})}, PadAttrs({0, 2}, "constant"), DType::kBool, {4}, {1, 1, 0, 0});
}

TEST(PadOpTest, ReflectAndSymmetric) {
  for (DType dtype : kAllDTypes) {
    if (dtype == DType::kBool) continue;  // values would collapse to true
    ExpectOp("pad", {Make(dtype, kM, {2, 3})}, PadAttrs({1, 1, 2, 2}, "REFLECT"), dtype, {4, 7},
             {6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1});
    ExpectOp("pad", {Make(dtype, kM, {2, 3})}, PadAttrs({1, 1, 2, 2}, "SYMMETRIC"), dtype, {4, 7},
             {2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5});
  }
  // np.pad(arange(1, 5), [[3, 1]], "reflect") and [[4, 2]], "symmetric": the largest pads allowed.
  ExpectOp("pad", {Make(DType::kF32, {1, 2, 3, 4}, {4})}, PadAttrs({3, 1}, "REFLECT"), DType::kF32, {8},
           {4, 3, 2, 1, 2, 3, 4, 3});
  ExpectOp("pad", {Make(DType::kF32, {1, 2, 3, 4}, {4})}, PadAttrs({4, 2}, "SYMMETRIC"), DType::kF32, {10},
           {4, 3, 2, 1, 1, 2, 3, 4, 4, 3});
}

TEST(PadOpTest, Errors) {
  ExpectError(RunOp1("pad", {Make(DType::kF32, kM, {2, 3})}, PadAttrs({0, 0, 3, 0}, "REFLECT")),
              Code::kInvalidArgument, "REFLECT padding of dimension 1 (size 3) can be at most 2, got [3, 0]");
  ExpectError(RunOp1("pad", {Make(DType::kF32, kM, {2, 3})}, PadAttrs({0, 0, 0, 4}, "SYMMETRIC")),
              Code::kInvalidArgument, "SYMMETRIC padding of dimension 1 (size 3) can be at most 3, got [0, 4]");
  ExpectError(RunOp1("pad", {Make(DType::kF32, kM, {2, 3})}, PadAttrs({1, 1}, "CONSTANT")), Code::kInvalidArgument,
              "paddings [1, 1] must have 2 entries (before, after) per dimension of the input [2, 3]");
  ExpectError(RunOp1("pad", {Make(DType::kF32, kM, {2, 3})}, PadAttrs({1, 1, 0, 0}, "EDGE")),
              Code::kInvalidArgument, "mode must be");
  ExpectError(RunOp1("pad", {MakeStrings({"a"}, {1})}, PadAttrs({1, 1}, "CONSTANT", 3)), Code::kInvalidArgument,
              "a string tensor cannot hold the number 3");
}

TEST(PadOpTest, ShapeFunction) {
  EXPECT_EQ(InferShapesString("pad", {PartialShape({-1, 3})}, {DType::kF32}, PadAttrs({1, 2, 0, 1}, "CONSTANT")),
            "[?, 4]");
  EXPECT_EQ(InferShapesString("pad", {PartialShape({2, 3})}, {DType::kF32}, PadAttrs({2, 0, 0, 0}, "REFLECT")),
            "pad: REFLECT padding of dimension 0 (size 2) can be at most 1, got [2, 0]");
}

TEST(PadOpTest, LargeInputsAcrossThreads) {
  // SYMMETRIC pad of a 500x40 iota by [[2, 3], [1, 1]]: out[i, j] = x[s(i - 2, 500), s(j - 1, 40)]
  // with s(k, n) = -k - 1 for k < 0, 2n - 1 - k for k >= n.
  auto s = [](int64_t k, int64_t n) { return k < 0 ? -k - 1 : (k >= n ? 2 * n - 1 - k : k); };
  auto r = RunOp1("pad", {Iota(DType::kI32, {500, 40})}, PadAttrs({2, 3, 1, 1}, "SYMMETRIC"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->shape(), TensorShape({505, 42}));
  for (int64_t i = 0; i < 505; i += 3) {
    for (int64_t j = 0; j < 42; ++j) ASSERT_EQ(r->data<int32_t>()[42 * i + j], 40 * s(i - 2, 500) + s(j - 1, 40));
  }
}

TEST(PadOpTest, Gradients) {
  for (const char* mode : {"CONSTANT", "REFLECT", "SYMMETRIC"}) {
    SCOPED_TRACE(mode);
    EXPECT_GRADIENT_OK("pad", {RandomF64({2, 3})}, PadAttrs({1, 1, 2, 2}, mode, 0.5));
  }
}

TEST(PadOpTest, PadGradSumsIntoTheSourceElements) {
  // x of shape (2, 3) padded by [[1, 1], [2, 2]]; dy = arange(28).reshape(4, 7). Expected: numpy's
  // np.add.at(dx, idx, dy) with idx = np.pad(arange(6).reshape(2, 3), pads, mode) (constant -1 skipped).
  const Tensor dy = Iota(DType::kF64, {4, 7}), like = Iota(DType::kF32, {2, 3});
  ExpectOp("pad_grad", {dy, like}, GradAttrs("CONSTANT"), DType::kF64, {2, 3}, {9, 10, 11, 16, 17, 18});
  ExpectOp("pad_grad", {dy, like}, GradAttrs("REFLECT"), DType::kF64, {2, 3}, {72, 102, 64, 44, 60, 36});
  ExpectOp("pad_grad", {dy, like}, GradAttrs("SYMMETRIC"), DType::kF64, {2, 3},
           {20, 39, 32, 76, 123, 88});
  ExpectError(RunOp1("pad_grad", {Iota(DType::kF64, {4, 6}), like}, GradAttrs("REFLECT")),
              Code::kInvalidArgument, "pad_grad: dy has shape [4, 6] but padding [2, 3] gives [4, 7]");
  GradCheckOptions wrt_dy;
  wrt_dy.wrt = {0};
  EXPECT_GRADIENT_OK("pad_grad", {RandomF64({4, 7}), like}, GradAttrs("SYMMETRIC"), wrt_dy);
}

}  // namespace
}  // namespace tfg::test
