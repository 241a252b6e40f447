// What every apply op shares: errors for bad variables, shapes and indices,
// in-place updates, copy-on-write, lock ordering, and the shape function.
#include "ops/train/train_util.h"

#include <gtest/gtest.h>

#include <thread>

#include "tests/ops/op_test_util.h"
#include "tests/ops/train/train_test_util.h"

namespace tfg {
namespace {

using test::MakeTensor;

Status Sgd(test::ApplyGraph& g, Tensor lr, Tensor grad, const std::string& var = "W") {
  return g.Apply("apply_gradient_descent", {{"var", var}}, {std::move(lr), std::move(grad)});
}

TEST(ApplyErrorsTest, UninitializedVariableIsFailedPrecondition) {
  test::ApplyGraph g;
  Status s = Sgd(g, Tensor::Scalar<float>(0.1f), Tensor::Vector<float>({1}));
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("variable 'W' is used before it is initialized"), std::string::npos) << s.message();
}

TEST(ApplyErrorsTest, UninitializedSlotIsNamed) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2}));
  Status s = g.Apply("apply_momentum", {{"var", "W"}, {"accum", "W/accum"}},
                     {Tensor::Scalar<float>(0.1f), Tensor::Vector<float>({1, 1}), Tensor::Scalar<float>(0.9f)});
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("variable 'W/accum' is used before it is initialized"), std::string::npos)
      << s.message();
}

TEST(ApplyErrorsTest, GradShapeMustMatchTheVariable) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2}));
  Status s = Sgd(g, Tensor::Scalar<float>(0.1f), Tensor::Vector<float>({1, 2, 3}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("apply_gradient_descent: grad has shape [3] but variable 'W' has shape [2]"),
            std::string::npos)
      << s.message();
  test::ExpectTensorEq<float>(g.Value("W"), {1, 2}, TensorShape({2}));
}

TEST(ApplyErrorsTest, SlotShapeMustMatchTheVariable) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<double>({1, 2}));
  g.Set("W/m", Tensor::Vector<double>({0, 0, 0}));
  g.Set("W/v", Tensor::Vector<double>({0, 0}));
  std::vector<Tensor> in;
  for (int i = 0; i < 6; ++i) in.push_back(Tensor::Scalar<double>(0.5));
  in.push_back(Tensor::Vector<double>({1, 1}));
  Status s = g.Apply("apply_adam", {{"var", "W"}, {"m", "W/m"}, {"v", "W/v"}}, in);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("apply_adam: variable 'W/m' (m) has shape [3] but variable 'W' (var) has shape [2]"),
            std::string::npos)
      << s.message();
}

TEST(ApplyErrorsTest, VariableDtypeMustMatchTheUpdate) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<double>({1, 2}));
  Status s = Sgd(g, Tensor::Scalar<float>(0.1f), Tensor::Vector<float>({1, 1}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("variable 'W' (var) holds f64[2] but the update is f32"), std::string::npos)
      << s.message();
}

TEST(ApplyErrorsTest, HyperParametersMustBeScalarsAtRunTime) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2}));
  Status s = Sgd(g, Tensor::Vector<float>({0.1f, 0.2f}), Tensor::Vector<float>({1, 1}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("apply_gradient_descent: lr must be a scalar, but has shape [2]"), std::string::npos)
      << s.message();
}

TEST(ApplyErrorsTest, OneVariableCannotBeTwoParameters) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2}));
  Status s = g.Apply("apply_momentum", {{"var", "W"}, {"accum", "W"}},
                     {Tensor::Scalar<float>(0.1f), Tensor::Vector<float>({1, 1}), Tensor::Scalar<float>(0.9f)});
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("'var' and 'accum' are both variable 'W'"), std::string::npos) << s.message();
}

Status SparseSgd(test::ApplyGraph& g, Tensor grad, Tensor indices, const std::string& var = "E") {
  return g.Apply("sparse_apply_gradient_descent", {{"var", var}},
                 {Tensor::Scalar<float>(1.0f), std::move(grad), std::move(indices)});
}

TEST(SparseApplyErrorsTest, OutOfRangeIndexNamesItAndTheRowCountAndChangesNothing) {
  test::ApplyGraph g;
  const TensorShape s({4, 1});
  g.Set("E", MakeTensor<float>({1, 2, 3, 4}, s));
  Status st = SparseSgd(g, MakeTensor<float>({1, 1}, TensorShape({2, 1})), Tensor::Vector<int32_t>({0, 5}));
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("index 5 (at position 1 of indices) is out of range for variable 'E' with 4 rows"),
            std::string::npos)
      << st.message();
  st = SparseSgd(g, MakeTensor<float>({1}, TensorShape({1, 1})), Tensor::Vector<int32_t>({-1}));
  EXPECT_NE(st.message().find("index -1 (at position 0 of indices) is out of range for variable 'E' with 4 rows"),
            std::string::npos)
      << st.message();
  test::ExpectTensorEq<float>(g.Value("E"), {1, 2, 3, 4}, s);
}

TEST(SparseApplyErrorsTest, GradShapeMustFitIndicesAndRows) {
  test::ApplyGraph g;
  g.Set("E", MakeTensor<float>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({4, 2})));
  Status s = SparseSgd(g, MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})), Tensor::Vector<int32_t>({0, 1}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("grad has shape [2, 3] but indices of shape [2] into variable 'E' of shape [4, 2] "
                             "need [2, 2]"),
            std::string::npos)
      << s.message();
}

TEST(SparseApplyErrorsTest, ScalarVariableHasNoRows) {
  test::ApplyGraph g;
  g.Set("s", Tensor::Scalar<float>(1));
  Status st = SparseSgd(g, Tensor::Vector<float>({1}), Tensor::Vector<int32_t>({0}), "s");
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.ToString();
  EXPECT_NE(st.message().find("variable 's' is a scalar; it has no rows to update"), std::string::npos)
      << st.message();
}

// Shape errors known when the graph is built surface there.
TEST(ApplyShapeFnTest, ChecksScalarsAndSparseGradAtBuildTime) {
  test::ApplyGraph g;
  auto constant = [&](Tensor t) {
    DType d = t.dtype();
    return (*g.graph().AddNode({"constant", {}, {}, {{"value", std::move(t)}, {"dtype", d}}, "", "", {}}))->output(0);
  };
  auto r = g.graph().AddNode({"apply_gradient_descent",
                              {constant(Tensor::Vector<float>({0.1f, 0.2f})), constant(Tensor::Vector<float>({1, 2}))},
                              {},
                              {{"var", std::string("W")}},
                              "",
                              "",
                              {}});
  test::ExpectError(r, Code::kInvalidArgument, "apply_gradient_descent: lr must be a scalar, but has shape [2]");
  r = g.graph().AddNode({"sparse_apply_gradient_descent",
                         {constant(Tensor::Scalar<float>(0.1f)), constant(MakeTensor<float>({1, 2, 3}, TensorShape({3, 1}))),
                          constant(Tensor::Vector<int32_t>({0, 1}))},
                         {},
                         {{"var", std::string("E")}},
                         "",
                         "",
                         {}});
  test::ExpectError(r, Code::kInvalidArgument, "grad of shape [3, 1] must start with the shape of indices [2]");
  r = g.graph().AddNode({"apply_gradient_descent",
                         {constant(Tensor::Scalar<float>(0.1f)), constant(Tensor::Vector<float>({1, 2}))},
                         {},
                         {},
                         "",
                         "",
                         {}});
  ASSERT_FALSE(r.ok()) << "a missing variable parameter must be an error";
}

TEST(ApplyStateTest, UpdatesInPlaceWhenNobodyHoldsTheValue) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2}));
  ASSERT_TRUE(Sgd(g, Tensor::Scalar<float>(1), Tensor::Vector<float>({1, 1})).ok());
  auto var = g.Var("W");
  const void* buffer = var->value.raw_data();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(Sgd(g, Tensor::Scalar<float>(1), Tensor::Vector<float>({1, 1})).ok());
  EXPECT_EQ(var->value.raw_data(), buffer);
  test::ExpectTensorEq<float>(var->value, {-3, -2}, TensorShape({2}));
}

TEST(ApplyStateTest, ReadersHoldingAValueNeverSeeItChange) {
  test::ApplyGraph g;
  g.Set("W", Tensor::Vector<float>({1, 2}));
  g.Set("W/accum", Tensor::Vector<float>({0, 0}));
  Tensor held_w = g.Var("W")->value;  // a reader's reference to the buffers
  Tensor held_acc = g.Var("W/accum")->value;
  ASSERT_TRUE(g.Apply("apply_momentum", {{"var", "W"}, {"accum", "W/accum"}},
                      {Tensor::Scalar<float>(1), Tensor::Vector<float>({1, 2}), Tensor::Scalar<float>(0.5f)}).ok());
  test::ExpectTensorEq<float>(held_w, {1, 2}, TensorShape({2}));
  test::ExpectTensorEq<float>(held_acc, {0, 0}, TensorShape({2}));
  test::ExpectTensorEq<float>(g.Value("W"), {0, 0}, TensorShape({2}));
  test::ExpectTensorEq<float>(g.Value("W/accum"), {1, 2}, TensorShape({2}));
}

// Two ops lock the same two variables named in opposite orders; run
// concurrently they must not deadlock. With lr 0 and momentum 0 each op
// only sets its accum to its gradient, so the end state is known.
TEST(ApplyStateTest, ConcurrentStepsOnSharedVariablesDoNotDeadlock) {
  test::ApplyGraph g;
  g.Set("X", Tensor::Vector<float>({0, 0}));
  g.Set("Y", Tensor::Vector<float>({0, 0}));
  auto step = [&](const char* var, const char* accum, float v) {
    return g.Apply("apply_momentum", {{"var", var}, {"accum", accum}},
                   {Tensor::Scalar<float>(0), Tensor::Vector<float>({v, v}), Tensor::Scalar<float>(0)});
  };
  ASSERT_TRUE(step("X", "Y", 1).ok());  // builds both nodes before the threads start
  ASSERT_TRUE(step("Y", "X", 2).ok());
  auto worker = [&](const char* var, const char* accum, float v) {
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(step(var, accum, v).ok());
  };
  std::thread t1(worker, "X", "Y", 1.0f), t2(worker, "Y", "X", 2.0f);
  t1.join();
  t2.join();
  test::ExpectTensorEq<float>(g.Value("Y"), {1, 1}, TensorShape({2}));
  test::ExpectTensorEq<float>(g.Value("X"), {2, 2}, TensorShape({2}));
}

TEST(GroupRowsTest, GroupsRepeatedRowsInPositionOrder) {
  auto rows = train::GroupRows("op", Tensor::Vector<int64_t>({3, 0, 3, 1, 0}), 4, "E");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->rows, (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(rows->begin, (std::vector<int64_t>{0, 2, 3, 5}));
  EXPECT_EQ(rows->sources, (std::vector<int64_t>{1, 4, 3, 0, 2}));
}

}  // namespace
}  // namespace tfg
