// einsum. Expected values computed with NumPy's np.einsum (recorded below);
// error cases follow TensorFlow's tf.einsum, which refuses the same
// equations.
#include <gtest/gtest.h>

#include <cstdint>

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

AttrMap EinsumEq(const std::string& equation) { return {{"equation", equation}}; }

class EinsumOp : public ::testing::TestWithParam<DType> {};

// a = np.arange(6).reshape(2, 3) + 1, b = np.arange(12).reshape(3, 4) * 0.5 - 2
// (b's halves are exact in f16 too).
TEST_P(EinsumOp, MatrixProduct) {
  const DType t = GetParam();
  const Tensor a = MakeTensorOf(t, {1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = MakeTensorOf(t, {-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5}, {3, 4});
  const Tensor y = Eval("einsum", {a, b}, EinsumEq("ij,jk->ik"));
  EXPECT_EQ(y.dtype(), t);
  ExpectTensorNear(y, {4, 7, 10, 13, 4, 11.5, 19, 26.5}, {2, 4});
  ExpectTensorNear(Eval("einsum", {a, b}, EinsumEq(" ij , jk ")), {4, 7, 10, 13, 4, 11.5, 19, 26.5}, {2, 4});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, EinsumOp, ::testing::Values(DType::kF16, DType::kF32, DType::kF64),
                         [](const auto& info) { return std::string(DTypeName(info.param)); });

// m = [[1, 2, 3], [4, 5, 6], [7, 8, 10]]
TEST(EinsumOps, OneOperand) {
  const Tensor m = MakeTensor<double>({1, 2, 3, 4, 5, 6, 7, 8, 10}, {3, 3});
  ExpectTensorNear(Eval("einsum", {m}, EinsumEq("ii->")), {16}, {});
  ExpectTensorNear(Eval("einsum", {m}, EinsumEq("ii")), {16}, {});
  ExpectTensorNear(Eval("einsum", {m}, EinsumEq("ii->i")), {1, 5, 10}, {3});
  const Tensor a = MakeTensor<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectTensorNear(Eval("einsum", {a}, EinsumEq("ba")), {1, 4, 2, 5, 3, 6}, {3, 2});  // implicit: sorted, a transpose
  ExpectTensorNear(Eval("einsum", {a}, EinsumEq("ij->ji")), {1, 4, 2, 5, 3, 6}, {3, 2});
  ExpectTensorNear(Eval("einsum", {a}, EinsumEq("ij->")), {21}, {});
  ExpectTensorNear(Eval("einsum", {a}, EinsumEq("ij->i")), {6, 15}, {2});
  ExpectTensorNear(Eval("einsum", {a}, EinsumEq("ij")), {1, 2, 3, 4, 5, 6}, {2, 3});
  // tfg's extension, used by the gradient of "ii->i": a repeated output label
  // writes the diagonal.
  ExpectTensorNear(Eval("einsum", {MakeTensor<double>({1, 5, 10}, {3}), MakeTensor<double>(std::vector<double>(9, 1), {3, 3})},
                        EinsumEq("i,ii->ii")),
                   {1, 0, 0, 0, 5, 0, 0, 0, 10}, {3, 3});
}

TEST(EinsumOps, SeveralOperandsAndBroadcasting) {
  ExpectTensorNear(Eval("einsum", {MakeTensor<float>({1, 2}, {2}), MakeTensor<float>({3, 4, 5}, {3})}, EinsumEq("i,j->ij")),
                   {3, 4, 5, 6, 8, 10}, {2, 3});
  ExpectTensorNear(Eval("einsum",
                        {MakeTensor<double>({1, 2, 3}, {3}), MakeTensor<double>({4, 5, 6}, {3}),
                         MakeTensor<double>({7, 8, 9}, {3})},
                        EinsumEq("i,i,i->")),
                   {270}, {});
  // x = np.arange(12).reshape(2, 1, 2, 3) - 3, y = np.arange(18).reshape(3, 3, 2) * 0.25:
  // "..." dims [2, 1] and [3] broadcast to [2, 3].
  std::vector<double> x, y;
  for (int i = 0; i < 12; ++i) x.push_back(i - 3);
  for (int i = 0; i < 18; ++i) y.push_back(i * 0.25);
  ExpectTensorNear(Eval("einsum", {MakeTensor<double>(x, {2, 1, 2, 3}), MakeTensor<double>(y, {3, 3, 2})},
                        EinsumEq("...ij,...jk->...ik")),
                   {-2,   -3.5, 2.5,  3.25,  -11, -12.5, 7,  7.75,  -20, -21.5, 11.5, 12.25,
                    7,    10,   11.5, 16.75, 25,  28,    43, 48.25, 43,  46,    74.5, 79.75},
                   {2, 3, 2, 2});
  // "..." after a letter: u = np.arange(6).reshape(2, 3, 1), v = [1, -1, 2, 0.5].
  ExpectTensorNear(Eval("einsum", {MakeTensor<double>({0, 1, 2, 3, 4, 5}, {2, 3, 1}),
                                   MakeTensor<double>({1, -1, 2, 0.5}, {4})},
                        EinsumEq("i...,...->i...")),
                   {0, 0, 0, 0, 1, -1, 2, 0.5, 2, -2, 4, 1, 3, -3, 6, 1.5, 4, -4, 8, 2, 5, -5, 10, 2.5}, {2, 3, 4});
}

TEST(EinsumOps, IntegersAndEmpty) {
  ExpectTensorEq<int32_t>(
      Eval("einsum", {MakeTensor<int32_t>({1, 2, 3, 4}, {2, 2}), MakeTensor<int32_t>({5, 6, 7, 8}, {2, 2})},
           EinsumEq("ij,jk->ik")),
      {19, 22, 43, 50}, {2, 2});
  // 2^16 * 2^16 wraps to 0 in i32, as TensorFlow's.
  ExpectTensorEq<int32_t>(Eval("einsum", {MakeTensor<int32_t>({65536}, {1}), MakeTensor<int32_t>({65536}, {1})},
                               EinsumEq("i,i->")),
                          {0}, {});
  ExpectTensorEq<int64_t>(
      Eval("einsum", {MakeTensor<int64_t>({1, 2, 3}, {3}), MakeTensor<int64_t>({}, {0})}, EinsumEq("i,j->ij")), {}, {3, 0});
  // Summing over an empty label gives zeros.
  ExpectTensorNear(Eval("einsum", {MakeTensor<float>({}, {2, 0}), MakeTensor<float>({}, {0, 3})}, EinsumEq("ij,jk->ik")),
                   {0, 0, 0, 0, 0, 0}, {2, 3});
}

TEST(EinsumOps, Shapes) {
  using test::InferShapesString;
  EXPECT_EQ(InferShapesString("einsum", {PartialShape({-1, 3}), PartialShape({3, 5})}, {DType::kF32, DType::kF32},
                              EinsumEq("ij,jk->ik")),
            "[?, 5]");
  EXPECT_EQ(InferShapesString("einsum", {PartialShape(), PartialShape({3, 5})}, {DType::kF32, DType::kF32},
                              EinsumEq("ij,jk->ki")),
            "[?, ?]");
  EXPECT_EQ(InferShapesString("einsum", {PartialShape({4, 1, 2}), PartialShape({-1, 2, 6})},
                              {DType::kF32, DType::kF32}, EinsumEq("...ij,...jk->...ik")),
            "[4, 1, 6]");
}

TEST(EinsumOps, Errors) {
  const Tensor a = MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = MakeTensor<float>(std::vector<float>(16, 1), {4, 4});
  ExpectError(test::RunOp1("einsum", {a, b}, EinsumEq("ij,jk->ik")), Code::kInvalidArgument,
              "einsum: equation 'ij,jk->ik': label 'j' has size 3 and 4 in operands [2, 3], [4, 4]");
  ExpectError(test::RunOp1("einsum", {a}, EinsumEq("ij->ik")), Code::kInvalidArgument,
              "einsum: equation 'ij->ik': output label 'k' is in no input");
  ExpectError(test::RunOp1("einsum", {a}, EinsumEq("ijk->i")), Code::kInvalidArgument,
              "einsum: equation 'ijk->i': operand 0 has rank 2, which does not fit its term 'ijk'");
  ExpectError(test::RunOp1("einsum", {a, a}, EinsumEq("ij->i")), Code::kInvalidArgument,
              "einsum: equation 'ij->i' has 1 input terms but 2 operands were given");
  ExpectError(test::RunOp1("einsum", {a}, EinsumEq("i2->i")), Code::kInvalidArgument,
              "einsum: equation 'i2->i' has '2' in term 'i2'");
  ExpectError(test::RunOp1("einsum", {a}, EinsumEq("...i...->i")), Code::kInvalidArgument, "more than one '...'");
  ExpectError(test::RunOp1("einsum", {a}, EinsumEq("...i->i")), Code::kInvalidArgument,
              "einsum: equation '...i->i': the operands have 1 '...' dims but the output has no '...'");
  ExpectError(test::RunOp1("einsum", {MakeTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3, 1}), MakeTensor<float>({1, 2}, {2, 1})},
                           EinsumEq("...i,...i->...")),
              Code::kInvalidArgument, "the '...' dims of operands [2, 3, 1], [2, 1] do not broadcast");
  ExpectError(test::RunOp1("einsum", {a}, EinsumEq("i,j->ij")), Code::kInvalidArgument, "has 2 input terms");
  // The kernel repeats the checks for shapes unknown at build time.
  ExpectError(test::RunKernel("einsum", {a, b}, EinsumEq("ij,jk->ik")), Code::kInvalidArgument, "label 'j' has size 3 and 4");
  EXPECT_FALSE(test::RunOp1("einsum", {MakeTensor<bool>({true}, {1})}, EinsumEq("i->i")).ok());
}

TEST(EinsumOps, Gradients) {
  const Tensor a = test::RandomF64({2, 3}, -1, 1, 1);
  const Tensor b = test::RandomF64({3, 4}, -1, 1, 2);
  const Tensor m = test::RandomF64({3, 3}, -1, 1, 3);
  EXPECT_GRADIENT_OK("einsum", {a, b}, EinsumEq("ij,jk->ik"));
  EXPECT_GRADIENT_OK("einsum", {a, b}, EinsumEq("ij,jk"));
  EXPECT_GRADIENT_OK("einsum", {a, b}, EinsumEq("ij,jk->kji"));
  EXPECT_GRADIENT_OK("einsum", {a}, EinsumEq("ij->"));
  EXPECT_GRADIENT_OK("einsum", {a}, EinsumEq("ij->ji"));
  EXPECT_GRADIENT_OK("einsum", {m}, EinsumEq("ii->"));
  EXPECT_GRADIENT_OK("einsum", {m}, EinsumEq("ii->i"));
  EXPECT_GRADIENT_OK("einsum", {m, a}, EinsumEq("ij,kl->ik"));  // j, l only in one operand each
  EXPECT_GRADIENT_OK("einsum", {test::RandomF64({3}, -1, 1, 4), test::RandomF64({3}, -1, 1, 5),
                                test::RandomF64({3}, -1, 1, 6)},
                     EinsumEq("i,i,i->i"));
  // Broadcast "..." dims are summed back to each operand's shape.
  EXPECT_GRADIENT_OK("einsum", {test::RandomF64({2, 1, 2, 3}, -1, 1, 7), test::RandomF64({3, 3, 2}, -1, 1, 8)},
                     EinsumEq("...ij,...jk->...ik"));
  EXPECT_GRADIENT_OK("einsum", {test::RandomF64({2, 3, 1}, -1, 1, 9), test::RandomF64({4}, -1, 1, 10)},
                     EinsumEq("i...,...->i..."));
}

}  // namespace
}  // namespace tfg
