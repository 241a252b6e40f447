// scatter_update, scatter_nd_update, scatter_nd_add, scatter_nd_sub on
// variables. Expected values recorded from TensorFlow 2.21
// (tf.compat.v1.scatter_update / scatter_nd_update / _add / _sub on
// ref variables) where named, else by hand.
#include <gtest/gtest.h>

#include "ops/core/resource_mgr.h"
#include "tests/ops/op_test_util.h"
#include "tests/ops/state/state_test_util.h"

namespace tfg::scatter_nd_update_test {
namespace {

Node* Scatter(test::StateGraph& g, const std::string& op, const std::string& name, Tensor values, Tensor indices) {
  return g.Add(op, {g.Const(std::move(values)), g.Const(std::move(indices))}, {{"shared_name", name}},
               name + "/" + op);
}

Result<Tensor> RunOnce(test::StateGraph& g, Node* init, Node* update) {
  TFG_RETURN_IF_ERROR(g.Run({}, {init}).status());
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> out, g.Run({update->output(0)}));
  return out[0];
}

// TensorFlow: scatter_update(v = [[1, 2], [3, 4], [5, 6]], [2, 0, 2],
// [[10, 10], [20, 20], [30, 30]]) -> [[20, 20], [3, 4], [30, 30]] (the last
// write of a repeated row wins on the CPU).
TEST(ScatterNdUpdateTest, ScatterUpdateRows) {
  test::StateGraph g;
  Node* init = g.Update("assign", "W", test::MakeTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2}));
  Node* up = Scatter(g, "scatter_update", "W", test::MakeTensor<float>({10, 10, 20, 20, 30, 30}, {3, 2}),
                     test::MakeTensor<int32_t>({2, 0, 2}, {3}));
  auto r = RunOnce(g, init, up);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<float>(*r, {20, 20, 3, 4, 30, 30}, TensorShape({3, 2}));
  test::ExpectTensorEq<float>((*g.Run({g.Read("W", DType::kF32, PartialShape({3, 2}))}))[0], {20, 20, 3, 4, 30, 30},
                              TensorShape({3, 2}));
}

// TensorFlow: scatter_nd_update(v = zeros(4, 2) int32, [[1, 0], [3, 1]], [7, 8])
// -> [[0, 0], [7, 0], [0, 0], [0, 8]].
TEST(ScatterNdUpdateTest, ElementTuples) {
  test::StateGraph g;
  Node* init = g.Update("assign", "V", test::MakeTensor<int32_t>(std::vector<int32_t>(8, 0), {4, 2}));
  Node* up = Scatter(g, "scatter_nd_update", "V", test::MakeTensor<int32_t>({7, 8}, {2}),
                     test::MakeTensor<int64_t>({1, 0, 3, 1}, {2, 2}));
  auto r = RunOnce(g, init, up);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<int32_t>(*r, {0, 0, 7, 0, 0, 0, 0, 8}, TensorShape({4, 2}));
}

// TensorFlow: scatter_nd_add(v = ones(3, 2), [[0], [2], [0]],
// [[1, 2], [3, 4], [5, 6]]) -> [[7, 9], [1, 1], [4, 5]]; then scatter_nd_sub
// of [[1, 1]] at [[2]] -> [[7, 9], [1, 1], [3, 4]].
TEST(ScatterNdUpdateTest, AddAndSubSlicesWithRepeats) {
  test::StateGraph g;
  Node* init = g.Update("assign", "A", test::MakeTensor<double>({1, 1, 1, 1, 1, 1}, {3, 2}));
  Node* add = Scatter(g, "scatter_nd_add", "A", test::MakeTensor<double>({1, 2, 3, 4, 5, 6}, {3, 2}),
                      test::MakeTensor<int32_t>({0, 2, 0}, {3, 1}));
  Node* sub = Scatter(g, "scatter_nd_sub", "A", test::MakeTensor<double>({1, 1}, {1, 2}),
                      test::MakeTensor<int32_t>({2}, {1, 1}));
  auto r = RunOnce(g, init, add);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<double>(*r, {7, 9, 1, 1, 4, 5}, TensorShape({3, 2}));
  auto s = g.Run({sub->output(0)});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  test::ExpectTensorEq<double>((*s)[0], {7, 9, 1, 1, 3, 4}, TensorShape({3, 2}));
}

// Index depth 0 addresses the whole variable; an empty index list changes
// nothing. By hand.
TEST(ScatterNdUpdateTest, WholeVariableAndNoIndices) {
  test::StateGraph g;
  Node* init = g.Update("assign", "Z", test::MakeTensor<int64_t>({1, 2}, {2}));
  Node* whole = Scatter(g, "scatter_nd_add", "Z", test::MakeTensor<int64_t>({10, 20, 100, 200}, {2, 2}),
                        test::MakeTensor<int32_t>({}, {2, 0}));
  Node* none = Scatter(g, "scatter_update", "Z", test::MakeTensor<int64_t>({}, {0}),
                       test::MakeTensor<int32_t>({}, {0}));
  auto r = RunOnce(g, init, whole);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  test::ExpectTensorEq<int64_t>(*r, {111, 222}, TensorShape({2}));
  auto n = g.Run({none->output(0)});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  test::ExpectTensorEq<int64_t>((*n)[0], {111, 222}, TensorShape({2}));
}

TEST(ScatterNdUpdateTest, ErrorsLeaveTheVariableUnchanged) {
  test::StateGraph g;
  Node* init = g.Update("assign", "E", test::MakeTensor<float>({1, 2, 3, 4}, {2, 2}));
  Node* out_of_range = Scatter(g, "scatter_nd_update", "E", test::MakeTensor<float>({9, 9}, {2}),
                               test::MakeTensor<int32_t>({0, 0, 2, 1}, {2, 2}));
  Node* bad_shape = Scatter(g, "scatter_update", "E", test::MakeTensor<float>({9, 9, 9}, {3}),
                            test::MakeTensor<int32_t>({0}, {1}));
  Node* too_deep = Scatter(g, "scatter_nd_add", "E", test::MakeTensor<float>({9}, {1}),
                           test::MakeTensor<int32_t>({0, 0, 0}, {1, 3}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  test::ExpectError(g.Run({out_of_range->output(0)}), Code::kInvalidArgument,
                    "scatter_nd_update: index tuple [2, 1] at position [1] of indices is out of range for variable "
                    "'E' of shape [2, 2]: entry 0 is 2, not in [0, 2)");
  test::ExpectError(g.Run({bad_shape->output(0)}), Code::kInvalidArgument,
                    "scatter_update: values have shape [3] but indices [1] into variable 'E' of shape [2, 2] need "
                    "[1, 2]");
  test::ExpectError(g.Run({too_deep->output(0)}), Code::kInvalidArgument,
                    "scatter_nd_add: indices [1, 3] have index depth 3 but variable 'E' has shape [2, 2]");
  test::ExpectError(test::InferShapes("scatter_nd_sub", {PartialShape({}), PartialShape({})},
                                      {DType::kF32, DType::kI32}, {{"shared_name", std::string("E")}}),
                    Code::kInvalidArgument, "scatter_nd_sub: indices must have rank >= 1, got a scalar");
  test::ExpectTensorEq<float>((*g.Run({g.Read("E", DType::kF32, PartialShape({2, 2}))}))[0], {1, 2, 3, 4},
                              TensorShape({2, 2}));
}

TEST(ScatterNdUpdateTest, UninitializedAndWrongDtype) {
  test::StateGraph g;
  Node* early = Scatter(g, "scatter_update", "U", test::MakeTensor<float>({1}, {1}),
                        test::MakeTensor<int32_t>({0}, {1}));
  test::ExpectError(g.Run({early->output(0)}), Code::kFailedPrecondition, "before it is initialized");
  Node* init = g.Update("assign", "U", test::MakeTensor<int32_t>({1, 2}, {2}));
  Node* wrong = Scatter(g, "scatter_nd_update", "U", test::MakeTensor<float>({1}, {1}),
                        test::MakeTensor<int32_t>({0}, {1, 1}));
  ASSERT_TRUE(g.Run({}, {init}).ok());
  test::ExpectError(g.Run({wrong->output(0)}), Code::kInvalidArgument,
                    "scatter_nd_update: values have dtype f32 but variable 'U' holds");
}

}  // namespace
}  // namespace tfg::scatter_nd_update_test
