// split vs numpy.split of s = arange(12).reshape(2, 6).
#include "tests/ops/array/array_test_util.h"
#include "tests/ops/grad_check_util.h"

namespace tfg::test {
namespace {

void ExpectPieces(const Result<std::vector<Tensor>>& r, DType dtype, const std::vector<TensorShape>& shapes,
                  const std::vector<std::vector<double>>& values) {
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i) ExpectValues((*r)[i], dtype, shapes[i], values[i]);
}

TEST(SplitOpTest, EqualPieces) {
  for (DType dtype : kAllDTypes) {
    // np.split(s, 3, axis=1)
    ExpectPieces(RunOp("split", {Iota(dtype, {2, 6})}, {{"num", int64_t{3}}, {"axis", int64_t{1}}}), dtype,
                 {{2, 2}, {2, 2}, {2, 2}}, {{0, 1, 6, 7}, {2, 3, 8, 9}, {4, 5, 10, 11}});
  }
  ExpectPieces(RunOp("split", {Iota(DType::kF32, {2, 6})}, {{"num", int64_t{2}}}), DType::kF32, {{1, 6}, {1, 6}},
               {{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}});
}

TEST(SplitOpTest, GivenSizes) {
  // np.split(s, [1, 4], axis=1): sizes 1, 3, 2.
  for (DType dtype : kAllDTypes) {
    ExpectPieces(RunOp("split", {Iota(dtype, {2, 6})},
                       {{"num", int64_t{3}}, {"axis", int64_t{-1}}, {"sizes", Ints{1, 3, 2}}}),
                 dtype, {{2, 1}, {2, 3}, {2, 2}}, {{0, 6}, {1, 2, 3, 7, 8, 9}, {4, 5, 10, 11}});
  }
  // -1 takes the rest; a zero size gives an empty piece.
  ExpectPieces(RunOp("split", {Iota(DType::kI64, {2, 6})},
                     {{"num", int64_t{3}}, {"axis", int64_t{1}}, {"sizes", Ints{1, -1, 0}}}),
               DType::kI64, {{2, 1}, {2, 5}, {2, 0}}, {{0, 6}, {1, 2, 3, 4, 5, 7, 8, 9, 10, 11}, {}});
}

TEST(SplitOpTest, Errors) {
  ExpectError(RunOp("split", {Iota(DType::kF32, {2, 6})}, {{"num", int64_t{4}}, {"axis", int64_t{1}}}),
              Code::kInvalidArgument, "dimension 1 of size 6 cannot be split into 4 equal pieces");
  ExpectError(RunOp("split", {Iota(DType::kF32, {2, 6})},
                    {{"num", int64_t{2}}, {"axis", int64_t{1}}, {"sizes", Ints{1, 2}}}),
              Code::kInvalidArgument, "sizes [1, 2] sum to 3 but dimension 1 has size 6");
  ExpectError(RunOp("split", {Iota(DType::kF32, {2, 6})},
                    {{"num", int64_t{2}}, {"axis", int64_t{1}}, {"sizes", Ints{7, -1}}}),
              Code::kInvalidArgument, "exceed it (7)");
  ExpectError(RunOp("split", {Iota(DType::kF32, {6})}, {{"num", int64_t{0}}, {"sizes", Ints{3, 3}}}),
              Code::kInvalidArgument, "num is 0 but sizes [3, 3] has 2 entries");
  ExpectError(RunOp("split", {Make(DType::kF32, {1}, {})}, {{"num", int64_t{1}}}), Code::kInvalidArgument,
              "cannot split a scalar");
}

TEST(SplitOpTest, ShapeFunction) {
  EXPECT_EQ(InferShapesString("split", {PartialShape({-1, 6})}, {DType::kF32}, {{"num", int64_t{2}}, {"axis", int64_t{1}}}),
            "[?, 3];[?, 3]");
  EXPECT_EQ(InferShapesString("split", {PartialShape({4, -1})}, {DType::kF32},
                              {{"num", int64_t{2}}, {"axis", int64_t{1}}, {"sizes", Ints{2, -1}}}),
            "[4, 2];[4, ?]");
}

TEST(SplitOpTest, Gradients) {
  EXPECT_GRADIENT_OK("split", {RandomF64({2, 6})}, {{"num", int64_t{3}}, {"axis", int64_t{1}}});
  EXPECT_GRADIENT_OK("split", {RandomF64({6, 2})}, {{"num", int64_t{3}}, {"sizes", Ints{1, -1, 2}}});
}

}  // namespace
}  // namespace tfg::test
