// Fused elementwise kernels on a GPU (ops/math/fused/fused_elementwise_cuda.cc,
// made by FusePlacedGraph): they run where the plan says, give the same
// bits as the same nodes run one by one on the GPU, stay within float
// tolerance of the CPU, and fail at the member's line. Without a GPU:
// SKIPPED.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "devices/cuda/cuda_devices.h"
#include "interp/runtime/session.h"
#include "tests/interp/runtime/graph_test_util.h"

namespace tfg {
namespace {

using test::AddNode;

class GpuFusionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  }
  Output Placeholder(DType d, PartialShape shape, const std::string &name) {
    return AddNode(g_, "placeholder", {}, {{"dtype", d}, {"shape", shape}}, name)->output(0);
  }
  Output Op(const std::string &op, std::vector<Output> in, int line = 0) {
    SourceSpan span;
    if (line > 0) {
      span.file = file_;
      span.line = span.end_line = line;
      span.col = span.end_col = 1;
    }
    return AddNode(g_, op, std::move(in), {}, "", span)->output(0);
  }
  Output C(float v) { return test::Const(g_, Tensor::Scalar<float>(v)); }
  // The 8-op chain, then a bias and a relu.
  Output Chain(Output x, Output bias) {
    Output y = Op("mul", {x, C(1.5f)});
    y = Op("add", {y, C(0.25f)});
    y = Op("mul", {y, x});
    y = Op("sub", {y, C(0.5f)});
    y = Op("mul", {y, C(0.75f)});
    y = Op("add", {y, x});
    y = Op("mul", {y, y});
    y = Op("add", {y, C(1.0f)});
    return Op("relu", {Op("bias_add", {Op("tanh", {y}), bias}, 30)});
  }
  // Runs with every node that has a GPU kernel preferring the GPU;
  // `optimize` false: no fusion. `log` gets the placement.
  Result<std::vector<Tensor>> Run(std::vector<std::pair<Output, Tensor>> feeds, std::vector<Output> fetches,
                                  bool optimize, const std::string &device, std::string *log = nullptr) {
    std::ostringstream placement;
    SessionOptions o;
    o.optimize = optimize;
    o.intra_op_threads = 2;
    o.default_device_type = device;
    o.placement_log = &placement;
    Session s(&g_, o);
    auto r = s.Run(feeds, fetches, {});
    if (log != nullptr) *log = placement.str();
    return r;
  }
  static Tensor Wave(int64_t rows, int64_t cols, float scale) {
    std::vector<float> v(rows * cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = scale * std::sin(0.37f * static_cast<float>(i));
    return Tensor::FromVector(v, TensorShape({rows, cols}));
  }

  std::shared_ptr<SourceFile> file_ = std::make_shared<SourceFile>("gpu.tfg", std::string(40, '\n'));
  Graph g_;
};

TEST_F(GpuFusionTest, AChainIsOneGpuKernelWithTheUnfusedGpuBits) {
  Output x = Placeholder(DType::kF32, PartialShape({-1, 37}), "x");
  Output bias = Placeholder(DType::kF32, PartialShape({37}), "bias");
  Output y = Chain(x, bias);
  std::vector<std::pair<Output, Tensor>> feeds = {{x, Wave(4099, 37, 3.0f)},
                                                  {bias, Wave(1, 37, 0.5f).Reshaped(TensorShape({37}))}};
  std::string log;
  auto fused = Run(feeds, {y}, true, "gpu", &log);
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  EXPECT_NE(log.find("(fused_elementwise) on /job:localhost/task:0/device:gpu:0"), std::string::npos) << log;
  auto plain = Run(feeds, {y}, false, "gpu");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  const Tensor &a = (*fused)[0], &b = (*plain)[0];
  ASSERT_EQ(a.shape(), b.shape());
  int64_t differ = 0, first = -1;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (std::memcmp(a.data<float>() + i, b.data<float>() + i, sizeof(float)) != 0 && differ++ == 0) first = i;
  }
  EXPECT_EQ(differ, 0) << "first at " << first << ": fused " << (first >= 0 ? a.data<float>()[first] : 0) << " unfused "
                       << (first >= 0 ? b.data<float>()[first] : 0);
  // Against the CPU: CUDA's tanh is within a few ulps of glibc's.
  auto cpu = Run(feeds, {y}, false, "cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    ASSERT_NEAR(a.data<float>()[i], (*cpu)[0].data<float>()[i], 1e-5f) << i;
  }
}

// Each prefix of a chain of every binary and unary f32 op with a fused GPU
// form: the first prefix whose bits differ names the member to blame.
TEST_F(GpuFusionTest, EveryPrefixOfAChainOfEachOpHasTheUnfusedBits) {
  const std::vector<std::string> ops = {
      "mul",       "add",       "sub",        "maximum", "minimum", "div", "pow",    "relu_grad", "sigmoid_grad",
      "tanh_grad", "sqrt_grad", "rsqrt_grad", "atan2",   "neg",     "abs", "square", "relu",      "exp",
      "log",       "sqrt",      "rsqrt",      "tanh",    "sigmoid", "sin", "cos",    "erf",       "erfc",
      "asin",      "acos",      "atan",       "sinh",    "cosh",    "tan", "selu"};
  Output x = Placeholder(DType::kF32, PartialShape({-1}), "x");
  std::vector<float> v(8192);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.9f * std::sin(0.37f * static_cast<float>(i));
  const Tensor xs = Tensor::FromVector(v, TensorShape({8192}));
  for (const std::string &op : ops) {
    // Two members: the op after a mul, so it is a fused kernel's member.
    Output a = Op("mul", {x, C(0.5f)});
    Output y = (op == "neg" || op == "abs" || op == "square" || op == "relu" || op == "exp" || op == "log" ||
                op == "sqrt" || op == "rsqrt" || op == "tanh" || op == "sigmoid" || op == "sin" || op == "cos" ||
                op == "erf" || op == "erfc" || op == "asin" || op == "acos" || op == "atan" || op == "sinh" ||
                op == "cosh" || op == "tan" || op == "selu")
                   ? Op(op, {Op("abs", {a})})
                   : Op(op, {Op("abs", {a}), Op("add", {a, C(1.0f)})});
    auto fused = Run({{x, xs}}, {y}, true, "gpu");
    auto plain = Run({{x, xs}}, {y}, false, "gpu");
    ASSERT_TRUE(fused.ok() && plain.ok()) << op;
    const float *f = (*fused)[0].data<float>();
    const float *p = (*plain)[0].data<float>();
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < 8192; ++i) {
      if (std::memcmp(f + i, p + i, sizeof(float)) != 0) {
        if (first < 0) first = i;
        ++differ;
      }
    }
    // A row of scripts/gpu-check's table.
    std::printf("GPUCHECK fused_elementwise[mul+abs+%s] f32 %s\n", op.c_str(), differ == 0 ? "match" : "mismatch");
    EXPECT_EQ(differ, 0) << op << ": " << differ << " elements differ, first at " << first << ": fused "
                         << (first >= 0 ? f[first] : 0) << " unfused " << (first >= 0 ? p[first] : 0) << " x "
                         << (first >= 0 ? v[first] : 0);
  }
}

TEST_F(GpuFusionTest, IntegerGroupsWrapAsTheCpuDoes) {
  Output x = Placeholder(DType::kI32, PartialShape({-1}), "x");
  Output big = test::Const(g_, Tensor::Scalar<int32_t>(2000000000));
  Output y = Op("maximum", {Op("mul", {Op("add", {x, big}), x}), Op("sub", {x, big})});
  std::vector<int32_t> v(10000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>(i * 7919) - 30000000;
  std::vector<std::pair<Output, Tensor>> feeds = {{x, Tensor::FromVector(v, TensorShape({10000}))}};
  std::string log;
  auto gpu = Run(feeds, {y}, true, "gpu", &log);
  ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
  EXPECT_NE(log.find("(fused_elementwise) on"), std::string::npos) << log;
  for (size_t i = 0; i < v.size(); ++i) {
    const uint32_t xi = static_cast<uint32_t>(v[i]);
    const int32_t sum = static_cast<int32_t>(xi + 2000000000u);
    const int32_t prod = static_cast<int32_t>(static_cast<uint32_t>(sum) * xi);
    const int32_t diff = static_cast<int32_t>(xi - 2000000000u);
    ASSERT_EQ(gpu->at(0).data<int32_t>()[i], std::max(prod, diff)) << i;
  }
}

TEST_F(GpuFusionTest, AFetchedIntermediateComesOutOfTheSameKernel) {
  Output x = Placeholder(DType::kF64, PartialShape({8192}), "x");
  Output e = Op("exp", {Op("mul", {x, x})});
  Output y = Op("sigmoid", {Op("neg", {e})});
  std::vector<double> v(8192);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(0.01 * static_cast<double>(i));
  std::vector<std::pair<Output, Tensor>> feeds = {{x, Tensor::FromVector(v, TensorShape({8192}))}};
  std::string log;
  auto fused = Run(feeds, {y, e}, true, "gpu", &log);
  auto plain = Run(feeds, {y, e}, false, "gpu");
  ASSERT_TRUE(fused.ok() && plain.ok());
  EXPECT_NE(log.find("(fused_elementwise) on"), std::string::npos) << log;
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(std::memcmp((*fused)[k].raw_data(), (*plain)[k].raw_data(), (*plain)[k].bytes()), 0) << k;
  }
  EXPECT_DOUBLE_EQ((*fused)[1].data<double>()[0], std::exp(1.0));
}

TEST_F(GpuFusionTest, ABadBiasFailsAtTheBiasAddsLine) {
  Output x = Placeholder(DType::kF32, PartialShape({-1, -1}), "x");
  Output bias = Placeholder(DType::kF32, PartialShape({-1}), "bias");
  Output y = Chain(x, bias);
  std::vector<std::pair<Output, Tensor>> feeds = {{x, Wave(4099, 37, 1.0f)},
                                                  {bias, Wave(1, 5, 1.0f).Reshaped(TensorShape({5}))}};
  auto r = Run(feeds, {y}, true, "gpu");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().span().line, 30) << r.status().ToString();
  EXPECT_NE(r.status().message().find("bias_add"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace tfg
