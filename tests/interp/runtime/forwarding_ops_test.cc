// Buffer forwarding (ops/core/forward_input.h) in the kernels beyond the
// cwise loops: the activations and their gradient helpers, bias_add, where
// and clip_by_value write into a dead input's buffer, and never into a fed
// or fetched one. Expected values are by hand (relu6, leaky_relu, bias
// rows, clipping of a ramp are exact in float).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "interp/runtime/session.h"
#include "ops/core/forward_input.h"
#include "ops/core/host_bfc_allocator.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

constexpr int64_t kN = int64_t{1} << 16;  // 256 KiB of floats: a large block

Tensor Ramp() {
  std::vector<float> v(kN);
  for (int64_t i = 0; i < kN; ++i) v[i] = static_cast<float>(i % 64) - 20.0f;  // -20 .. 43
  return Tensor::Vector<float>(v);
}

Output Scalar(Graph& g, float v) { return test::Const(g, Tensor::Scalar<float>(v)); }

SessionOptions Unoptimized() {
  SessionOptions o;
  o.optimize = false;  // each op its own kernel
  o.intra_op_threads = 2;
  return o;
}

class ForwardingOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HostBlockCacheEnabled() || !InputForwardingEnabled()) GTEST_SKIP() << "block cache or forwarding off";
    x_ = AddNode(g_, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape({kN})}}, "x")->output(0);
    // t = x * 1: an intermediate nothing else holds.
    t_ = AddNode(g_, "mul", {x_, Scalar(g_, 1.0f)})->output(0);
  }
  // Runs `fetches` with x fed; expects `forwards` forwarded outputs and x
  // unchanged afterwards.
  std::vector<Tensor> Run(std::vector<Output> fetches, int64_t forwards) {
    Session s(&g_, Unoptimized());
    Tensor xs = Ramp();
    const int64_t before = ForwardedInputCount();
    auto r = s.Run({{x_, xs}}, fetches, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    EXPECT_EQ(ForwardedInputCount() - before, forwards);
    const Tensor fresh = Ramp();
    EXPECT_EQ(std::memcmp(xs.raw_data(), fresh.raw_data(), fresh.bytes()), 0) << "the fed x changed";
    return *r;
  }
  static void ExpectEach(const Tensor& t, const std::function<float(int64_t)>& want, const char* what) {
    ASSERT_EQ(t.num_elements(), kN) << what;
    int64_t wrong = 0;
    for (int64_t i = 0; i < kN; ++i) wrong += t.data<float>()[i] != want(i);
    EXPECT_EQ(wrong, 0) << what;
  }
  static float X(int64_t i) { return static_cast<float>(i % 64) - 20.0f; }

  Graph g_;
  Output x_, t_;
};

TEST_F(ForwardingOpsTest, ActivationsTakeTheirDeadInput) {
  Output y = AddNode(g_, "relu6", {t_})->output(0);
  y = AddNode(g_, "leaky_relu", {y}, {{"alpha", 0.5}})->output(0);
  auto r = Run({y}, 2);
  ASSERT_EQ(r.size(), 1u);
  ExpectEach(r[0], [](int64_t i) { return std::min(std::max(X(i), 0.0f), 6.0f); }, "leaky_relu(relu6(x))");
}

TEST_F(ForwardingOpsTest, AGradientHelperTakesDyOrX) {
  Output dy = AddNode(g_, "mul", {x_, Scalar(g_, 2.0f)})->output(0);
  Output dx = AddNode(g_, "relu6_grad", {dy, t_})->output(0);
  auto r = Run({dx}, 1);
  ASSERT_EQ(r.size(), 1u);
  ExpectEach(r[0], [](int64_t i) { return X(i) > 0 && X(i) < 6 ? 2 * X(i) : 0.0f; }, "relu6_grad(2x, x)");
}

TEST_F(ForwardingOpsTest, BiasAddWhereAndClipTakeTheirDeadInput) {
  Output m = AddNode(g_, "reshape", {t_}, {{"shape", std::vector<int64_t>{kN / 4, 4}}})->output(0);
  Output b = AddNode(g_, "bias_add", {m, test::Const(g_, Tensor::Vector<float>({0, 100, 200, 300}))})->output(0);
  Output flat = AddNode(g_, "reshape", {b}, {{"shape", std::vector<int64_t>{kN}}})->output(0);
  Output pos = AddNode(g_, "greater", {x_, Scalar(g_, 0.0f)})->output(0);
  Output w = AddNode(g_, "where", {pos, flat, Scalar(g_, -1.0f)})->output(0);
  Output c = AddNode(g_, "clip_by_value", {w, Scalar(g_, -0.5f), Scalar(g_, 250.0f)})->output(0);
  // mul (x * 1) is the only allocation among the float ops; bias_add,
  // where and clip_by_value each take their input's buffer.
  auto r = Run({c}, 3);
  ASSERT_EQ(r.size(), 1u);
  ExpectEach(r[0], [](int64_t i) {
    const float v = X(i) > 0 ? X(i) + 100.0f * static_cast<float>(i % 4) : -1.0f;
    return std::min(std::max(v, -0.5f), 250.0f);
  }, "clip(where(x > 0, bias_add(x, rows), -1))");
}

TEST_F(ForwardingOpsTest, AFetchedInputIsNotOverwritten) {
  Output y = AddNode(g_, "softplus", {t_})->output(0);
  Output z = AddNode(g_, "relu6", {y})->output(0);
  // t and y are fetched: neither op may write into them.
  auto r = Run({t_, y, z}, 0);
  ASSERT_EQ(r.size(), 3u);
  ExpectEach(r[0], [](int64_t i) { return X(i); }, "fetched t");
  ExpectEach(r[2], [&](int64_t i) { return std::min(r[1].data<float>()[i], 6.0f); }, "relu6(y) from the fetched y");
}

}  // namespace
}  // namespace tfg
