// The CPU convolution backends side by side (ops/nn/conv_backend.h): each
// pass of each layer shape of the benchmark models (the Fashion-MNIST CNN
// and ResNet-20, batch 64) timed with oneDNN and with the im2col + GEMM
// reference in the same process, alternating, best of several, so the
// ratio holds on a shared machine. Not run by scripts/bench (the training
// steps there show the outcome); run by hand when changing a backend:
//   build/conv_bench [threads]
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
  int64_t h, w, c, k, o, stride;
};

const Layer kLayers[] = {
    {"cnn conv1 28x28x1 3x3 ->32", 28, 28, 1, 3, 32, 1},   {"cnn conv2 14x14x32 3x3 ->64", 14, 14, 32, 3, 64, 1},
    {"resnet stem 32x32x3 ->16", 32, 32, 3, 3, 16, 1},      {"resnet 32x32x16 ->16", 32, 32, 16, 3, 16, 1},
    {"resnet 32x32x16 s2 ->32", 32, 32, 16, 3, 32, 2},      {"resnet 16x16x32 ->32", 16, 16, 32, 3, 32, 1},
    {"resnet 1x1 s2 16x16x32 ->64", 16, 16, 32, 1, 64, 2}, {"resnet 8x8x64 ->64", 8, 8, 64, 3, 64, 1},
};

void Check(const Status& s) {
  if (!s.ok()) {
    fmt::print(stderr, "conv_bench: {}\n", s.ToString());
    std::exit(1);
  }
}

Node* Add(Graph& g, const std::string& op, std::vector<Output> in, AttrMap attrs = {}) {
  auto n = g.AddNode({op, std::move(in), {}, std::move(attrs), "", "", {}});
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
  const int64_t n = 64, oh = (l.h + l.stride - 1) / l.stride, ow = (l.w + l.stride - 1) / l.stride;
  const Tensor x = Filled(TensorShape({n, l.h, l.w, l.c})), f = Filled(TensorShape({l.k, l.k, l.c, l.o})),
               dy = Filled(TensorShape({n, oh, ow, l.o}));
  Graph g;
  auto placeholder = [&](const Tensor& t) {
    return Add(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape(t.shape())}});
  };
  Node *px = placeholder(x), *pf = placeholder(f), *pdy = placeholder(dy);
  const AttrMap attrs = {{"strides", std::vector<int64_t>{l.stride, l.stride}}, {"padding", std::string("SAME")}};
  const std::vector<std::pair<Output, Tensor>> feeds = {{px->output(0), x}, {pf->output(0), f}, {pdy->output(0), dy}};
  const std::vector<std::string> passes = {"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"};
  const char* labels[] = {"fwd", "bwd_input", "bwd_filter"};
  std::vector<Output> outs;
  for (const std::string& op : passes) {
    std::vector<Output> in = {px->output(0), pf->output(0)};
    if (op != "conv2d") in.push_back(pdy->output(0));
    outs.push_back(Add(g, op, in, attrs)->output(0));
  }
  Session session(&g, {threads, threads, 1});
  std::string line = fmt::format("{:<30}", l.name);
  for (size_t p = 0; p < passes.size(); ++p) {
    const Output out = outs[p];
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 5; ++round) {
      for (int b = 0; b < 2; ++b) {
        nn::SetCpuConvBackend(b == 0 ? nn::ConvBackend::kOneDnn : nn::ConvBackend::kReference);
        Check(session.Run(feeds, {out}, {}).status());
        best[b] = std::min(best[b], BestSeconds(4, [&] { Check(session.Run(feeds, {out}, {}).status()); }));
      }
    }
    line += fmt::format("  {} {:.2f}/{:.2f} ms ({:.2f}x)", labels[p], best[0] * 1e3, best[1] * 1e3, best[1] / best[0]);
  }
  fmt::print("{}\n", line);
}

}  // namespace
}  // namespace tfg

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  if (!tfg::nn::OneDnnBuilt()) {
    fmt::print("built without oneDNN: nothing to compare\n");
    return 0;
  }
  fmt::print("batch 64, {} threads; each pass: oneDNN / reference ms (reference / oneDNN)\n", threads);
  for (const tfg::Layer& l : tfg::kLayers) tfg::BenchLayer(l, threads);
  return 0;
}
