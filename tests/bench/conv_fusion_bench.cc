// conv2d -> bias_add -> relu on each convolution layer of the Fashion-MNIST
// CNN (batch 64), as the optimizer runs it with convolution fusion
// (interp/runtime/fuse_conv.h: one conv2d_bias_activation kernel) and
// without (conv2d, then bias_add + relu as one fused_elementwise kernel,
// what TFG_FUSE_CONV=0 gives), plus the conv2d alone; the three alternate
// in one process, best of several, so the ratios hold on a shared machine.
// Run by tests/bench/conv_fusion.sh; by hand:
//   build/conv_fusion_bench [threads]
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "interp/runtime/session.h"
#include "ops/core/graph.h"
#include "ops/nn/conv_backend.h"
#include "tests/bench/best_seconds.h"

namespace tfg {
namespace {

struct Layer {
  const char* name;
  int64_t h, w, c, k, o;
};

const Layer kLayers[] = {
    {"cnn conv1 28x28x1 3x3 ->32", 28, 28, 1, 3, 32},
    {"cnn conv2 14x14x32 3x3 ->64", 14, 14, 32, 3, 64},
};

void Check(const Status& s) {
  if (!s.ok()) {
    fmt::print(stderr, "conv_fusion_bench: {}\n", s.ToString());
    std::exit(1);
  }
}

Node* Add(Graph& g, const std::string& op, std::vector<Output> in, AttrMap attrs = {},
          std::vector<Node*> control = {}) {
  auto n = g.AddNode({op, std::move(in), std::move(control), std::move(attrs), "", "", {}});
  Check(n.status());
  return *n;
}

Tensor Filled(const TensorShape& shape) {
  Tensor t(HostAllocator(), DType::kF32, shape);
  uint32_t state = 7;
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  }
  return t;
}

void BenchLayer(const Layer& l, int threads) {
  const int64_t n = 64;
  const Tensor x = Filled(TensorShape({n, l.h, l.w, l.c})), f = Filled(TensorShape({l.k, l.k, l.c, l.o})),
               b = Filled(TensorShape({l.o}));
  Graph g;
  auto placeholder = [&](const Tensor& t) {
    return Add(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape(t.shape())}})->output(0);
  };
  const Output px = placeholder(x), pf = placeholder(f), pb = placeholder(b);
  const AttrMap attrs = {{"padding", std::string("SAME")}};
  // A control input keeps the fusion pass off a chain and changes nothing
  // else: bias_add + relu still become one fused_elementwise kernel.
  Node* gate = Add(g, "no_op", {});
  auto chain = [&](bool fusable) {
    std::vector<Node*> control;
    if (!fusable) control.push_back(gate);
    const Output conv = Add(g, "conv2d", {px, pf}, attrs, control)->output(0);
    return Add(g, "relu", {Add(g, "bias_add", {conv, pb})->output(0)})->output(0);
  };
  const Output fused = chain(true), unfused = chain(false);
  const Output conv_only = Add(g, "conv2d", {px, pf}, attrs)->output(0);
  // conv2d -> bias_add alone fuses with activation "none".
  const Output bias_only = Add(g, "bias_add", {Add(g, "conv2d", {px, pf}, attrs)->output(0), pb})->output(0);
  const std::vector<std::pair<Output, Tensor>> feeds = {{px, x}, {pf, f}, {pb, b}};
  Session session(&g, {threads, threads, 1});
  const Output outs[] = {fused, unfused, conv_only, bias_only};
  double best[4] = {1e30, 1e30, 1e30, 1e30};
  for (int round = 0; round < 25; ++round) {
    for (int k = 0; k < 4; ++k) {
      Check(session.Run(feeds, {outs[k]}, {}).status());
      best[k] = std::min(best[k], BestSeconds(5, [&] { Check(session.Run(feeds, {outs[k]}, {}).status()); }));
    }
  }
  fmt::print("{:<30}  fused {:.3f} ms  unfused {:.3f} ms  fused/unfused = {:.3f}  (conv2d alone {:.3f} ms, "
             "fused conv2d+bias_add {:.3f} ms)\n",
             l.name, best[0] * 1e3, best[1] * 1e3, best[0] / best[1], best[2] * 1e3, best[3] * 1e3);
}

}  // namespace
}  // namespace tfg

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  if (tfg::nn::CpuConvBackend() != tfg::nn::ConvBackend::kOneDnn) {
    fmt::print("oneDNN not in use: the fused kernel is the reference convolution plus one pass\n");
  }
  fmt::print("conv2d -> bias_add -> relu, batch 64, {} threads, best of 125 runs each\n", threads);
  for (const tfg::Layer& l : tfg::kLayers) tfg::BenchLayer(l, threads);
  return 0;
}
