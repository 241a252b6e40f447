// range vs numpy.arange (TensorFlow's errors where NumPy returns empty).
#include "tests/ops/array/array_test_util.h"

namespace tfg::test {
namespace {

template <typename T>
Result<Tensor> Range(T start, T limit, T delta) {
  return RunOp1("range", {Tensor::Scalar<T>(start), Tensor::Scalar<T>(limit), Tensor::Scalar<T>(delta)});
}

TEST(RangeOpTest, Integers) {
  auto r = Range<int32_t>(10, 1, -3);  // np.arange(10, 1, -3)
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ExpectTensorEq<int32_t>(*r, {10, 7, 4}, {3});
  auto n = Range<int64_t>(-1, -5, -1);  // np.arange(-1, -5, -1)
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  ExpectTensorEq<int64_t>(*n, {-1, -2, -3, -4}, {4});
  auto e = Range<int32_t>(3, 3, 1);
  ASSERT_TRUE(e.ok());
  ExpectTensorEq<int32_t>(*e, {}, {0});
  auto big = Range<int64_t>(INT64_MIN, INT64_MIN + 10, 4);  // 3 elements
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  ExpectTensorEq<int64_t>(*big, {INT64_MIN, INT64_MIN + 4, INT64_MIN + 8}, {3});
}

TEST(RangeOpTest, Floats) {
  auto q = Range<float>(0, 1, 0.25f);  // np.arange(0, 1, 0.25)
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  ExpectTensorEq<float>(*q, {0, 0.25f, 0.5f, 0.75f}, {4});
  auto d = Range<double>(1, 2, 0.3);  // np.arange(1, 2, 0.3)
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ExpectTensorNear(*d, {1.0, 1.3, 1.6, 1.9000000000000001}, {4}, 1e-15);
  auto h = RunOp1("range", {MakeHalf({2}, {}), MakeHalf({0}, {}), MakeHalf({-0.5f}, {})});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->dtype(), DType::kF16);
  ExpectTensorNear(*h, {2, 1.5, 1, 0.5}, {4}, 0);
}

TEST(RangeOpTest, Errors) {
  ExpectError(Range<int32_t>(0, 5, 0), Code::kInvalidArgument, "range: delta must not be 0");
  ExpectError(Range<int32_t>(5, 0, 1), Code::kInvalidArgument,
              "range: start (5) must be <= limit (0) when delta (1) is positive");
  ExpectError(Range<float>(0, 5, -1), Code::kInvalidArgument, "must be >= limit (5) when delta (-1) is negative");
  ExpectError(RunOp1("range", {Tensor::Vector<int32_t>({0}), Tensor::Scalar<int32_t>(2), Tensor::Scalar<int32_t>(1)}),
              Code::kInvalidArgument, "range: start must be a scalar, got shape [1]");
}

TEST(RangeOpTest, ShapeFunctionUsesConstantInputs) {
  const Tensor start = Tensor::Scalar<int32_t>(10), limit = Tensor::Scalar<int32_t>(1),
               delta = Tensor::Scalar<int32_t>(-3);
  const std::vector<PartialShape> scalars = {PartialShape::Scalar(), PartialShape::Scalar(), PartialShape::Scalar()};
  const std::vector<DType> types = {DType::kI32, DType::kI32, DType::kI32};
  auto known = InferShapes("range", scalars, types, {}, {&start, &limit, &delta});
  ASSERT_TRUE(known.ok()) << known.status().ToString();
  EXPECT_EQ((*known)[0], PartialShape({3}));
  auto unknown = InferShapes("range", scalars, types, {}, {&start, nullptr, &delta});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ((*unknown)[0], PartialShape({-1}));
  const Tensor zero = Tensor::Scalar<int32_t>(0);
  ExpectError(InferShapes("range", scalars, types, {}, {&start, &limit, &zero}), Code::kInvalidArgument,
              "delta must not be 0");
}

}  // namespace
}  // namespace tfg::test
