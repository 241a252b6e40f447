// one_hot vs NumPy: (indices[..., None] == arange(depth)), the new axis
// moved with np.moveaxis for other `axis` values.
#include "tests/ops/array/array_test_util.h"

namespace tfg::test {
namespace {

TEST(OneHotOpTest, LastAxisWithOutOfRangeIndices) {
  // Indices -1 and 5 are outside [0, 3): rows of off_value.
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool}) {
    ExpectOp("one_hot", {Tensor::Vector<int32_t>({0, 2, -1, 5})}, {{"depth", int64_t{3}}, {"dtype", dtype}}, dtype,
             {4, 3}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  }
  ExpectOp("one_hot", {Tensor::Vector<int64_t>({0, 2, -1, 5})}, {{"depth", int64_t{3}}, {"axis", int64_t{0}}},
           DType::kF32, {3, 4}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0});
}

TEST(OneHotOpTest, AxisOf2dIndices) {
  const Tensor idx = MakeTensor<int32_t>({0, 2, 1, 0}, {2, 2});
  ExpectOp("one_hot", {idx}, {{"depth", int64_t{3}}}, DType::kF32, {2, 2, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0});
  ExpectOp("one_hot", {idx}, {{"depth", int64_t{3}}, {"axis", int64_t{1}}}, DType::kF32, {2, 3, 2},
           {1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0});
  ExpectOp("one_hot", {idx}, {{"depth", int64_t{3}}, {"axis", int64_t{0}}}, DType::kF32, {3, 2, 2},
           {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0});
}

TEST(OneHotOpTest, OnOffValuesScalarsAndEmpty) {
  ExpectOp("one_hot", {Tensor::Scalar<int32_t>(1)},
           {{"depth", int64_t{4}}, {"on_value", 5.0}, {"off_value", -2.0}, {"dtype", DType::kI32}}, DType::kI32, {4},
           {-2, 5, -2, -2});
  ExpectOp("one_hot", {MakeTensor<int32_t>({}, {0})}, {{"depth", int64_t{3}}}, DType::kF32, {0, 3}, {});
  ExpectOp("one_hot", {Tensor::Vector<int32_t>({0})}, {{"depth", int64_t{0}}}, DType::kF32, {1, 0}, {});
}

TEST(OneHotOpTest, ErrorsAndShapes) {
  ExpectError(RunOp1("one_hot", {Tensor::Vector<int32_t>({0})}, {{"depth", int64_t{2}}, {"axis", int64_t{2}}}),
              Code::kInvalidArgument, "one_hot: axis 2 is out of range for indices of rank 1 (expected -1 or 0..1)");
  ExpectError(RunOp1("one_hot", {Tensor::Vector<int32_t>({0})}, {{"depth", int64_t{-1}}}), Code::kInvalidArgument,
              "depth must be >= 0");
  EXPECT_EQ(InferShapesString("one_hot", {PartialShape({-1, 5})}, {DType::kI32},
                              {{"depth", int64_t{10}}, {"axis", int64_t{1}}}),
            "[?, 10, 5]");
}

}  // namespace
}  // namespace tfg::test
