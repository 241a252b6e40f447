// dropout: keep-rate statistics, scaling, seeding and the gradient. The
// expected values follow from the definition (kept elements are x / (1 -
// rate), dropped ones 0, mask = output / x), not from recorded output.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "interp/runtime/session.h"
#include "ops/autodiff/gradients.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg {
namespace {

using test::MakeTensor;

// x (placeholder) -> dropout -> [output, mask], in one session.
class DropoutGraph {
 public:
  DropoutGraph(const TensorShape& shape, AttrMap attrs, uint64_t graph_seed = 0) {
    x_ = g_.AddNode({"placeholder", {}, {}, {{"dtype", DType::kF32}, {"shape", PartialShape(shape)}}, "x", "", {}})
             .value()
             ->output(0);
    node_ = g_.AddNode({"dropout", {x_}, {}, std::move(attrs), "drop", "", {}}).value();
    session_ = std::make_unique<Session>(&g_, SessionOptions{1, 2, graph_seed});
  }
  std::vector<Tensor> Run(const Tensor& x, std::vector<Output> extra = {}) {
    std::vector<Output> fetches = {node_->output(0), node_->output(1)};
    fetches.insert(fetches.end(), extra.begin(), extra.end());
    auto r = session_->Run({{x_, x}}, fetches, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<Tensor>{};
  }
  Graph& graph() { return g_; }
  Output x() const { return x_; }
  Node* node() const { return node_; }

 private:
  Graph g_;
  Output x_;
  Node* node_ = nullptr;
  std::unique_ptr<Session> session_;
};

Tensor Ones(const TensorShape& shape) {
  return MakeTensor<float>(std::vector<float>(shape.num_elements(), 1.0f), shape);
}

TEST(Dropout, DropsTheRateAndScalesTheRest) {
  const TensorShape shape({200, 500});
  auto out = test::RunOp("dropout", {Ones(shape)}, {{"rate", 0.3}, {"seed", int64_t{7}}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const float* y = (*out)[0].data<float>();
  const float* mask = (*out)[1].data<float>();
  int64_t dropped = 0;
  double sum = 0;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    ASSERT_EQ(y[i], mask[i]) << i;  // x is all ones
    ASSERT_TRUE(y[i] == 0.0f || y[i] == static_cast<float>(1 / 0.7)) << y[i];
    dropped += y[i] == 0.0f;
    sum += y[i];
  }
  // 100000 Bernoulli(0.3) draws: standard deviation 0.00145 of the fraction.
  EXPECT_NEAR(static_cast<double>(dropped) / shape.num_elements(), 0.3, 0.01);
  EXPECT_NEAR(sum / shape.num_elements(), 1.0, 0.015);  // the scaling keeps the mean
}

TEST(Dropout, SeededMasksAreReproducibleAndDtypeIndependent) {
  const TensorShape shape({10, 10});
  AttrMap seeded = {{"rate", 0.5}, {"seed", int64_t{42}}};
  Tensor a = test::RunOp("dropout", {Ones(shape)}, seeded).value()[1];
  Tensor b = test::RunOp("dropout", {Ones(shape)}, seeded).value()[1];
  EXPECT_TRUE(TensorsEqual(a, b));
  Tensor c = test::RunOp("dropout", {Ones(shape)}, {{"rate", 0.5}, {"seed", int64_t{43}}}).value()[1];
  EXPECT_FALSE(TensorsEqual(a, c));
  Tensor d = test::RunOp("dropout", {test::MakeTensorOf(DType::kF64, std::vector<double>(100, 1.0), shape)}, seeded)
                 .value()[1];
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.data<float>()[i] == 0, d.data<double>()[i] == 0) << i;
}

TEST(Dropout, EachRunDrawsANewMaskAndTheSequenceRepeats) {
  const TensorShape shape({64});
  DropoutGraph g1(shape, {{"rate", 0.5}, {"seed", int64_t{3}}});
  Tensor first = g1.Run(Ones(shape))[1];
  Tensor second = g1.Run(Ones(shape))[1];
  EXPECT_FALSE(TensorsEqual(first, second));
  DropoutGraph g2(shape, {{"rate", 0.5}, {"seed", int64_t{3}}});
  EXPECT_TRUE(TensorsEqual(g2.Run(Ones(shape))[1], first));
  EXPECT_TRUE(TensorsEqual(g2.Run(Ones(shape))[1], second));
  // A graph seed alone fixes the sequence too.
  DropoutGraph g3(shape, {{"rate", 0.5}}, 99), g4(shape, {{"rate", 0.5}}, 99);
  EXPECT_TRUE(TensorsEqual(g3.Run(Ones(shape))[1], g4.Run(Ones(shape))[1]));
}

TEST(Dropout, RateZeroPassesThrough) {
  Tensor x = MakeTensor<float>({1, -2, 3}, {3});
  auto out = test::RunOp("dropout", {x}, {{"rate", 0.0}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectTensorEq<float>((*out)[0], {1, -2, 3}, {3});
  test::ExpectTensorEq<float>((*out)[1], {1, 1, 1}, {3});
}

TEST(Dropout, RateMustBeAFraction) {
  for (double rate : {1.0, -0.1, 1.5, std::nan("")}) {
    EXPECT_EQ(test::InferShapesString("dropout", {PartialShape({3})}, {DType::kF32}, {{"rate", rate}}),
              fmt::format("dropout: rate is the fraction of elements dropped and must be in [0, 1), got {}", rate));
    test::ExpectError(test::RunKernel("dropout", {MakeTensor<float>({1, 2, 3}, {3})}, {{"rate", rate}}),
                      Code::kInvalidArgument, "rate is the fraction of elements dropped");
  }
  EXPECT_FALSE(test::RunOp("dropout", {MakeTensor<int32_t>({1}, {1})}, {{"rate", 0.5}}).ok());
}

TEST(DropoutGradient, IsTheIncomingGradientTimesTheMask) {
  const TensorShape shape({4, 5});
  DropoutGraph g(shape, {{"rate", 0.4}});
  Tensor w = test::MakeTensorOf(DType::kF32, test::ToDoubles(test::RandomF64(shape, -1, 1, 131)), shape);
  Node* seed = g.graph().AddNode({"constant", {}, {}, {{"value", w}, {"dtype", DType::kF32}}, "w", "", {}}).value();
  auto grads = AddGradients(g.graph(), {g.node()->output(0)}, {g.x()}, {seed->output(0)}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  Tensor x = test::MakeTensorOf(DType::kF32, test::ToDoubles(test::RandomF64(shape, -1, 1, 132)), shape);
  std::vector<Tensor> out = g.Run(x, {(*grads)[0]});
  ASSERT_EQ(out.size(), 3u);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    const float m = out[1].data<float>()[i];
    EXPECT_EQ(out[0].data<float>()[i], x.data<float>()[i] * m);
    EXPECT_EQ(out[2].data<float>()[i], w.data<float>()[i] * m);
  }
  EXPECT_GRADIENT_OK("dropout", {test::RandomF64({3, 4}, -1, 1, 133)}, {{"rate", 0.0}});
}

}  // namespace
}  // namespace tfg
