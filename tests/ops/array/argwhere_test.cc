// argwhere vs numpy.argwhere (TensorFlow's one-argument tf.where).
#include "tests/ops/array/array_test_util.h"

namespace tfg::test {
namespace {

TEST(ArgwhereOpTest, CoordinatesOfTrueElements) {
  // np.argwhere([[True, False, True], [False, False, True]])
  ExpectOp("argwhere", {MakeTensorOf(DType::kBool, {1, 0, 1, 0, 0, 1}, {2, 3})}, {}, DType::kI64, {3, 2},
           {0, 0, 0, 2, 1, 2});
  // Non-zero is true, in every number dtype: np.argwhere([0, 3, 0, -1]).
  for (DType dtype : {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64}) {
    SCOPED_TRACE(DTypeName(dtype));
    ExpectOp("argwhere", {MakeTensorOf(dtype, {0, 3, 0, -1}, {4})}, {}, DType::kI64, {2, 1}, {1, 3});
  }
  // Rank 3: np.argwhere(np.arange(8).reshape(2, 2, 2) % 3 == 0) -> elements 0, 3, 6.
  ExpectOp("argwhere", {MakeTensorOf(DType::kBool, {1, 0, 0, 1, 0, 0, 1, 0}, {2, 2, 2})}, {}, DType::kI64, {3, 3},
           {0, 0, 0, 0, 1, 1, 1, 1, 0});
}

TEST(ArgwhereOpTest, NoneTrueScalarsAndEmpty) {
  ExpectOp("argwhere", {MakeTensorOf(DType::kBool, {0, 0, 0, 0}, {2, 2})}, {}, DType::kI64, {0, 2}, {});
  ExpectOp("argwhere", {MakeTensorOf(DType::kBool, {1}, {})}, {}, DType::kI64, {1, 0}, {});
  ExpectOp("argwhere", {MakeTensorOf(DType::kF32, {0}, {})}, {}, DType::kI64, {0, 0}, {});
  ExpectOp("argwhere", {MakeTensorOf(DType::kI32, {}, {3, 0})}, {}, DType::kI64, {0, 2}, {});
}

TEST(ArgwhereOpTest, ShapeFunction) {
  EXPECT_EQ(InferShapesString("argwhere", {PartialShape({4, -1, 3})}, {DType::kBool}, {}), "[?, 3]");
  EXPECT_EQ(InferShapesString("argwhere", {PartialShape::Unknown()}, {DType::kF32}, {}), "[?, ?]");
}

TEST(ArgwhereOpTest, RefusesStrings) {
  ExpectError(RunOp("argwhere", {MakeStrings({"a"}, {1})}, {}), Code::kInvalidArgument, "argwhere");
}

}  // namespace
}  // namespace tfg::test
