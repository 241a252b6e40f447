// AddGradients at the graph level: a small MLP's loss (matmul, broadcast
// bias, relu, softmax / log_softmax, mean) differentiated on a batch whose
// size is known only at run time, against central differences; gradients
// summed over several paths; and the errors AddGradients reports.
#include "ops/autodiff/gradients.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interp/runtime/session.h"
#include "tests/ops/grad_check_util.h"
#include "tests/ops/op_test_util.h"

namespace tfg {
namespace {

// An op with neither a gradient nor a reason for having none ("test_"
// ops are exempt from the gradient coverage test).
TFG_REGISTER_OP(OpDefBuilder("test_grad_opaque")
                    .Input("x", "T")
                    .Output("y", "T")
                    .TypeAttr("T", FloatTypes())
                    .SetShapeFn(shape_fns::Unchanged));

using Feeds = std::vector<std::pair<Output, Tensor>>;

class GraphBuilder {
 public:
  explicit GraphBuilder(Graph& g) : g_(g) {}
  Output Op(const std::string& op, std::vector<Output> in, AttrMap attrs = {}, const std::string& name = "") {
    auto n = g_.AddNode({op, std::move(in), {}, std::move(attrs), name, "", span_});
    EXPECT_TRUE(n.ok()) << op << ": " << n.status().ToString();
    return n.ok() ? (*n)->output(0) : Output{};
  }
  Output Placeholder(const std::string& name, PartialShape shape, DType dtype = DType::kF64) {
    return Op("placeholder", {}, {{"dtype", dtype}, {"shape", shape}}, name);
  }
  SourceSpan span_;

 private:
  Graph& g_;
};

SourceSpan SpanAt(int line) {
  auto file = std::make_shared<SourceFile>("train.tfg", "x = 1\nloss = f(x)\ng = grad(loss, [x])\n");
  return SourceSpan{file, line, 1, line, 5};
}

struct Mlp {
  Graph g;
  Output x, labels, loss;
  std::vector<Output> params;
  Feeds feeds;
};

// loss = mean(-sum(labels * log_softmax(logits), 1)) or, with softmax,
// mean((softmax(logits) - labels)^2); logits = relu(x @ W1 + b1) @ W2 + b2.
void BuildMlp(Mlp& m, bool use_log_softmax) {
  GraphBuilder b(m.g);
  m.x = b.Placeholder("x", {-1, 4});
  m.labels = b.Placeholder("labels", {-1, 3});
  const char* names[] = {"W1", "b1", "W2", "b2"};
  const TensorShape shapes[] = {{4, 5}, {5}, {5, 3}, {3}};
  for (int i = 0; i < 4; ++i) {
    m.params.push_back(b.Placeholder(names[i], shapes[i]));
    m.feeds.emplace_back(m.params.back(), test::RandomF64(shapes[i], -1, 1, 10 + i));
  }
  Output h = b.Op("relu", {b.Op("add", {b.Op("matmul", {m.x, m.params[0]}), m.params[1]})});
  Output logits = b.Op("add", {b.Op("matmul", {h, m.params[2]}), m.params[3]});
  const AttrMap axis1{{"axis", std::vector<int64_t>{1}}};
  if (use_log_softmax) {
    Output picked = b.Op("sum", {b.Op("mul", {m.labels, b.Op("log_softmax", {logits})})}, axis1);
    m.loss = b.Op("mean", {b.Op("neg", {picked})});
  } else {
    m.loss = b.Op("mean", {b.Op("square", {b.Op("sub", {b.Op("softmax", {logits}), m.labels})})});
  }
  m.feeds.emplace_back(m.x, test::RandomF64({6, 4}, -2, 2, 3));
  m.feeds.emplace_back(m.labels, test::MakeTensorOf(DType::kF64, {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1},
                                                    {6, 3}));
}

double LossAt(Session& s, const Mlp& m, const Feeds& feeds) {
  auto r = s.Run(feeds, {m.loss}, {});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? (*r)[0].scalar<double>() : NAN;
}

class MlpGradient : public ::testing::TestWithParam<bool> {};

TEST_P(MlpGradient, MatchesFiniteDifferences) {
  Mlp m;
  BuildMlp(m, GetParam());
  auto grads = AddGradients(m.g, {m.loss}, m.params, {}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  Session session(&m.g, {1, 1, 1});
  auto symbolic = session.Run(m.feeds, *grads, {});
  ASSERT_TRUE(symbolic.ok()) << symbolic.status().ToString();
  const double step = 1e-6;
  for (size_t p = 0; p < m.params.size(); ++p) {
    ASSERT_EQ((*symbolic)[p].shape(), m.feeds[p].second.shape());
    for (int64_t e = 0; e < m.feeds[p].second.num_elements(); ++e) {
      Feeds feeds = m.feeds;
      feeds[p].second = m.feeds[p].second.DeepCopy();
      double* v = feeds[p].second.data<double>() + e;
      *v += step;
      const double up = LossAt(session, m, feeds);
      *v -= 2 * step;
      const double down = LossAt(session, m, feeds);
      EXPECT_NEAR((*symbolic)[p].data<double>()[e], (up - down) / (2 * step), 1e-7)
          << "param " << p << " [" << e << "]";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Losses, MlpGradient, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "LogSoftmax" : "SoftmaxSquare"; });

// loss = sum(x * x + x): the two paths' gradients add up to 2x + 1.
TEST(AddGradients, SumsEveryPath) {
  Graph g;
  GraphBuilder b(g);
  Output x = b.Placeholder("x", {3});
  Output loss = b.Op("sum", {b.Op("add", {b.Op("mul", {x, x}), x})});
  auto grads = AddGradients(g, {loss}, {x}, {}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
  Session s(&g, {1, 1, 1});
  auto out = s.Run({{x, test::MakeTensorOf(DType::kF64, {1, -2, 0.5}, {3})}}, *grads, {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  test::ExpectTensorNear((*out)[0], {3, -3, 2}, {3});
}

// Differentiating with respect to an intermediate tensor needs nothing of
// the op that produced it.
TEST(AddGradients, IntermediateXNeedsNoGradientOfItsProducer) {
  Graph g;
  GraphBuilder b(g);
  Output h = b.Op("test_grad_opaque", {b.Placeholder("x", {2})});
  Output loss = b.Op("sum", {b.Op("square", {h})});
  auto grads = AddGradients(g, {loss}, {h}, {}, {});
  ASSERT_TRUE(grads.ok()) << grads.status().ToString();
}

TEST(AddGradients, ResultNotDependingOnXIsNamed) {
  Graph g;
  GraphBuilder b(g);
  b.span_ = SpanAt(1);
  Output x = b.Placeholder("x", {2});
  Output unused = b.Placeholder("unused", {2});
  Output loss = b.Op("sum", {b.Op("square", {x})});
  auto r = AddGradients(g, {loss}, {x, unused}, {}, SpanAt(3));
  test::ExpectError(r, Code::kInvalidArgument, "grad: the result does not depend on 'unused'; no gradient flows to it");
  EXPECT_EQ(r.status().span().line, 3);
  ASSERT_EQ(r.status().notes().size(), 1u);
  EXPECT_EQ(r.status().notes()[0].message, "'unused' is defined here");
  EXPECT_EQ(r.status().notes()[0].span.line, 1);
}

TEST(AddGradients, OpWithoutGradientIsNamedAtItsLine) {
  Graph g;
  GraphBuilder b(g);
  Output x = b.Placeholder("x", {2});
  b.span_ = SpanAt(2);
  Output loss = b.Op("sum", {b.Op("test_grad_opaque", {x}, {}, "opaque")});
  auto r = AddGradients(g, {loss}, {x}, {}, SpanAt(3));
  test::ExpectError(r, Code::kUnimplemented, "no gradient is defined for op 'test_grad_opaque' (node 'opaque')");
  EXPECT_EQ(r.status().span().line, 2);
  ASSERT_EQ(r.status().notes().size(), 1u);
  EXPECT_EQ(r.status().notes()[0].message, "gradient requested here");
  EXPECT_EQ(r.status().notes()[0].span.line, 3);
}

// x reaches the loss only through integers: the error says so and names
// the op where the gradient stops.
TEST(AddGradients, PathThroughIntegersIsExplained) {
  Graph g;
  GraphBuilder b(g);
  Output x = b.Placeholder("x", {2});
  b.span_ = SpanAt(2);
  Output as_int = b.Op("cast", {x}, {{"DstT", DType::kI32}}, "to_int");
  Output loss = b.Op("sum", {b.Op("cast", {as_int}, {{"DstT", DType::kF64}}, "to_float")});
  auto r = AddGradients(g, {loss}, {x}, {}, SpanAt(3));
  test::ExpectError(r, Code::kInvalidArgument,
                    "grad: no gradient flows to 'x': every path from it to the result passes through an op that "
                    "has no gradient");
  ASSERT_EQ(r.status().notes().size(), 2u);
  EXPECT_EQ(r.status().notes()[1].message,
            "'to_float' (cast) passes no gradient: its input 'x' (i32) is not a float tensor");
  EXPECT_EQ(r.status().notes()[1].span.line, 2);
}

TEST(AddGradients, NoGradientOpIsExplained) {
  Graph g;
  GraphBuilder b(g);
  Output x = b.Placeholder("x", {2});
  Output loss = b.Op("sum", {b.Op("floor", {x}, {}, "s")});
  auto r = AddGradients(g, {loss}, {x}, {}, {});
  test::ExpectError(r, Code::kInvalidArgument, "grad: no gradient flows to 'x'");
  ASSERT_EQ(r.status().notes().size(), 2u);
  EXPECT_EQ(r.status().notes()[1].message,
            "'s' (floor) passes no gradient: piecewise constant: gradient is zero almost everywhere");
}

TEST(AddGradients, RefusesNonFloatTensors) {
  Graph g;
  GraphBuilder b(g);
  Output i = b.Placeholder("i", {2}, DType::kI32);
  Output x = b.Placeholder("x", {2});
  test::ExpectError(AddGradients(g, {i}, {x}, {}, {}), Code::kInvalidArgument, "grad: y 'i");
  test::ExpectError(AddGradients(g, {i}, {x}, {}, {}), Code::kInvalidArgument, "is i32; gradients need a float tensor");
  test::ExpectError(AddGradients(g, {b.Op("sum", {x})}, {i}, {}, {}), Code::kInvalidArgument, "grad: x 'i");
}

}  // namespace
}  // namespace tfg
