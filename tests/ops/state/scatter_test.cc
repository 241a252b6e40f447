// scatter_add / scatter_sub on variables: expected values worked by hand.
#include <gtest/gtest.h>

#include "ops/core/resource_mgr.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg {
namespace {

// scatter_<op>(values, indices) on variable `name`.
Node* Scatter(test::StateGraph& g, const std::string& op, const std::string& name, Tensor values, Tensor indices,
              AttrMap extra = {}) {
  extra["shared_name"] = name;
  return g.Add(op, {g.Const(std::move(values)), g.Const(std::move(indices))}, std::move(extra), name + "/" + op);
}

TEST(ScatterTest, AddAndSubtractRowsWithRepeats) {
  test::StateGraph g;
  Node* init = g.Update("assign", "W", test::MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  Node* add = Scatter(g, "scatter_add", "W", test::MakeTensor<float>({1, 1, 10, 10}, {2, 2}),
                      test::MakeTensor<int32_t>({2, 2}, {2}));
  Node* sub = Scatter(g, "scatter_sub", "W", test::MakeTensor<float>({1, 2, 3, 4}, {2, 2}),
                      test::MakeTensor<int64_t>({0, 1}, {2}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  auto r = g.Run({add->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>((*r)[0], {1, 2, 3, 4, 16, 17}, TensorShape({3, 2}));
  r = g.Run({sub->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>((*r)[0], {0, 0, 0, 0, 16, 17}, TensorShape({3, 2}));
  test::ExpectTensorEq<float>((*g.Run({g.Read("W", DType::kF32, PartialShape({3, 2}))}))[0], {0, 0, 0, 0, 16, 17},
                              TensorShape({3, 2}));
}

TEST(ScatterTest, MatrixIndicesIntoA3DVariable) {
  test::StateGraph g;
  Node* init = g.Update("assign", "E", test::MakeTensor<int64_t>(std::vector<int64_t>(12, 0), {3, 2, 2}));
  // indices [2, 1] -> values [2, 1, 2, 2].
  Node* add = Scatter(g, "scatter_add", "E", test::MakeTensor<int64_t>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 1, 2, 2}),
                      test::MakeTensor<int32_t>({2, 0}, {2, 1}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  auto r = g.Run({add->output(0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<int64_t>((*r)[0], {5, 6, 7, 8, 0, 0, 0, 0, 1, 2, 3, 4}, TensorShape({3, 2, 2}));
}

TEST(ScatterTest, InPlaceUnlessAReaderHoldsTheValue) {
  test::StateGraph g;
  Output w = g.Read("W", DType::kF32, PartialShape({2, 2}));
  Node* init = g.Update("assign", "W", test::MakeTensor<float>({1, 2, 3, 4}, {2, 2}));
  Node* add =
      Scatter(g, "scatter_add", "W", test::MakeTensor<float>({1, 1}, {1, 2}), test::MakeTensor<int32_t>({1}, {1}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  ASSERT_TRUE(g.Run({}, {add}).ok());
  auto var = g.session().resources()->Lookup<Variable>("", "W");
  const void* buffer = var->value.raw_data();
  ASSERT_TRUE(g.Run({}, {add}).ok());
  EXPECT_EQ(var->value.raw_data(), buffer);
  auto before = g.Run({w});
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(g.Run({}, {add}).ok());
  test::ExpectTensorEq<float>((*before)[0], {1, 2, 5, 6}, TensorShape({2, 2}));
  test::ExpectTensorEq<float>(var->value, {1, 2, 6, 7}, TensorShape({2, 2}));
}

TEST(ScatterTest, Errors) {
  test::StateGraph g;
  Node* init = g.Update("assign", "W", test::MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  Node* bad_index = Scatter(g, "scatter_sub", "W", test::MakeTensor<float>({1, 1, 1, 1}, {2, 2}),
                            test::MakeTensor<int32_t>({0, 3}, {2}));
  Node* bad_shape =
      Scatter(g, "scatter_add", "W", test::MakeTensor<float>({1, 1, 1}, {1, 3}), test::MakeTensor<int32_t>({0}, {1}));
  Node* bad_dtype =
      Scatter(g, "scatter_add", "W", test::MakeTensor<double>({1, 1}, {1, 2}), test::MakeTensor<int32_t>({0}, {1}));
  Node* uninit = Scatter(g, "scatter_add", "V", test::MakeTensor<float>({1}, {1}), test::MakeTensor<int32_t>({0}, {1}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  test::ExpectError(g.Run({}, {bad_index}), Code::kInvalidArgument,
                    "scatter_sub: index 3 at flat position 1 of indices is out of range [0, 3) for variable 'W'");
  test::ExpectError(g.Run({}, {bad_shape}), Code::kInvalidArgument,
                    "scatter_add: values have shape [1, 3] but indices [1] into variable 'W' of shape [3, 2] need "
                    "[1, 2]");
  test::ExpectError(g.Run({}, {bad_dtype}), Code::kInvalidArgument,
                    "scatter_add: values have dtype f64 but variable 'W' holds f32[3, 2]");
  test::ExpectError(g.Run({}, {uninit}), Code::kFailedPrecondition, "variable 'V' is used before it is initialized");
  // The failed updates left the variable alone.
  test::ExpectTensorEq<float>((*g.Run({g.Read("W", DType::kF32, PartialShape({3, 2}))}))[0], {1, 2, 3, 4, 5, 6},
                              TensorShape({3, 2}));
}

TEST(ScatterTest, ShapeFunction) {
  const std::vector<DType> types = {DType::kF32, DType::kI32};
  EXPECT_EQ(test::InferShapesString("scatter_add", {PartialShape({-1, 8}), PartialShape({-1})}, types,
                                    {{"shared_name", std::string("E")}, {"shape", PartialShape({100, 8})}}),
            "[100, 8]");
  EXPECT_EQ(test::InferShapesString("scatter_sub", {PartialShape({4, 2, 8}), PartialShape({4, 2})}, types,
                                    {{"shared_name", std::string("E")}}),
            "[?, 8]");
  EXPECT_EQ(test::InferShapesString("scatter_add", {PartialShape({4, 7}), PartialShape({4})}, types,
                                    {{"shared_name", std::string("E")}, {"shape", PartialShape({100, 8})}}),
            "scatter_add: values of shape [4, 7] with indices of shape [4] do not fit a variable of shape [100, 8]");
}

}  // namespace
}  // namespace tfg
