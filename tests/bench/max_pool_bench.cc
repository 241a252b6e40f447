// The compiled copies of the max_pool loops (ops/nn/max_pool_loops.h) side
// by side on the Fashion-MNIST CNN's two pooling layers (batch 64, 2x2
// windows, stride 2): max_pool, max_pool_grad, max_pool_relu_grad and
// max_pool_grad_grad on one
// thread, each copy timed in the same process, alternating, best of
// several, so the ratio holds on a shared machine. Run by hand when
// changing the loops:
//   build/max_pool_bench
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "ops/nn/max_pool_loops.h"
#include "tests/bench/best_seconds.h"

namespace tfg {
namespace {

namespace loops = nn::max_pool_loops;

struct Layer {
  const char* name;
  int64_t h, c;
};

const Layer kLayers[] = {{"cnn pool1 64x28x28x32", 28, 32}, {"cnn pool2 64x14x14x64", 14, 64}};

struct Times {
  double forward = 1e30, backward = 1e30, backward_relu = 1e30, gather = 1e30;
};

struct Buffers {
  std::vector<float> x, dy, dx, y;
};

void TimeOnce(const loops::Loops<float>& run, const nn::Geometry& g, Buffers& b, Times& t) {
  const int reps = 20;
  t.forward = std::min(t.forward, BestSeconds(reps, [&] { run.forward(g, b.x.data(), b.y.data(), 0, g.n * g.oh); }));
  t.backward =
      std::min(t.backward, BestSeconds(reps, [&] { run.backward(g, b.x.data(), b.dy.data(), b.dx.data(), 0, g.n); }));
  std::vector<float> sums(static_cast<size_t>(g.n * g.c));
  t.backward_relu = std::min(t.backward_relu, BestSeconds(reps, [&] {
                               run.backward_relu(g, b.x.data(), b.dy.data(), b.dx.data(), sums.data(), 0, g.n);
                             }));
  t.gather = std::min(t.gather,
                      BestSeconds(reps, [&] { run.gather(g, b.x.data(), b.dx.data(), b.y.data(), 0, g.n * g.oh); }));
}

void BenchLayer(const Layer& layer, const std::vector<const loops::LoopSet*>& sets) {
  nn::Geometry g;
  g.n = 64;
  g.h = g.w = layer.h;
  g.c = layer.c;
  g.kh = g.kw = g.sh = g.sw = 2;
  g.oh = g.ow = layer.h / 2;
  std::vector<Buffers> buffers(sets.size());
  for (Buffers& b : buffers) {
    b.x.resize(static_cast<size_t>(g.n * g.in_image()));
    b.dx.resize(b.x.size());
    b.dy.resize(static_cast<size_t>(g.n * g.oh * g.ow * g.c));
    b.y.resize(b.dy.size());
    // Few distinct values: ties in most windows, as after a ReLU.
    for (size_t i = 0; i < b.x.size(); ++i) b.x[i] = static_cast<float>((i * 7919) % 13) * 0.25f;
    for (size_t i = 0; i < b.dy.size(); ++i) b.dy[i] = static_cast<float>((i * 104729) % 17) - 8.0f;
  }
  std::vector<Times> times(sets.size());
  for (int round = 0; round < 3; ++round) {
    for (size_t s = 0; s < sets.size(); ++s) TimeOnce(sets[s]->f32, g, buffers[s], times[s]);
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    const bool same = std::memcmp(buffers[s].dx.data(), buffers[0].dx.data(), buffers[0].dx.size() * 4) == 0 &&
                      std::memcmp(buffers[s].y.data(), buffers[0].y.data(), buffers[0].y.size() * 4) == 0;
    fmt::print(
        "{:24} {:9} max_pool {:.3f} ms  max_pool_grad {:.3f} ms ({:.2f}x)  max_pool_relu_grad {:.3f} ms  "
        "max_pool_grad_grad {:.3f} ms{}\n",
        layer.name, sets[s]->isa, times[s].forward * 1e3, times[s].backward * 1e3, times[0].backward / times[s].backward,
        times[s].backward_relu * 1e3, times[s].gather * 1e3, same ? "" : "  OUTPUTS DIFFER");
  }
}

}  // namespace
}  // namespace tfg

int main() {
  std::vector<const tfg::loops::LoopSet*> sets = {&tfg::loops::BaselineLoops()};
  if (tfg::loops::Avx512Loops() != nullptr) sets.push_back(tfg::loops::Avx512Loops());
  for (const tfg::Layer& layer : tfg::kLayers) tfg::BenchLayer(layer, sets);
  return 0;
}
