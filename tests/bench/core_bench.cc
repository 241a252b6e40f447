// Core benchmarks (issue: executor overhead and GEMM), run by scripts/bench.
// Every figure is printed next to a peer measured in the same process, since
// the machines are shared and absolute numbers drift.
#include <cblas.h>
#include <fmt/format.h>

#include <cstdlib>

#include <unsupported/Eigen/CXX11/Tensor>
#include <vector>

#include "interp/runtime/session.h"
#include "ops/core/graph.h"
#include "tests/bench/best_seconds.h"
#include "tests/bench/fma_peak.h"

extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename();

namespace tfg {
namespace {

Node* Add(Graph& g, const std::string& op, std::vector<Output> in, AttrMap attrs = {}) {
  auto n = g.AddNode({op, std::move(in), {}, std::move(attrs), "", "", {}});
  if (!n.ok()) {
    fmt::print(stderr, "bench: {}\n", n.status().ToString());
    std::exit(1);
  }
  return *n;
}

Node* Const(Graph& g, const Tensor& t) { return Add(g, "constant", {}, {{"value", t}, {"dtype", t.dtype()}}); }

// The benchmarks' inputs are fed, not constants: the session's optimizer
// would fold a graph of constants into its result once, and every run
// after would time nothing.
Node* Placeholder(Graph& g, const TensorShape& shape) {
  return Add(g, "placeholder", {}, {{"dtype", DType::kF32}, {"shape", PartialShape(shape)}});
}

void Check(const Status& s) {
  if (!s.ok()) {
    fmt::print(stderr, "bench: {}\n", s.ToString());
    std::exit(1);
  }
}

void BenchExecutor(int threads) {
  const int kNodes = 10000;
  Graph g;
  Node* one = Placeholder(g, TensorShape({}));
  Node* x = one;
  for (int i = 0; i < kNodes; ++i) x = Add(g, "add", {x->output(0), one->output(0)});
  // Each with a constant of its own, so that no two are the same
  // expression for the optimizer to merge.
  std::vector<Node*> independent;
  for (int i = 0; i < kNodes; ++i) {
    independent.push_back(Add(g, "add", {one->output(0), Const(g, Tensor::Scalar<float>(i))->output(0)}));
  }
  const std::vector<std::pair<Output, Tensor>> feeds = {{one->output(0), Tensor::Scalar<float>(1.0f)}};

  Session session(&g, {threads, threads, 1});
  Check(session.Run(feeds, {x->output(0)}, {}).status());  // prepares the plan
  double chain = BestSeconds(20, [&] { Check(session.Run(feeds, {x->output(0)}, {}).status()); });
  Check(session.Run(feeds, {}, independent).status());
  double wide = BestSeconds(20, [&] { Check(session.Run(feeds, {}, independent).status()); });
  fmt::print("executor  threads={}  chain of {} dependent scalar adds: {:.3f} us/node   "
             "{} independent scalar adds, each with its constant: {:.3f} us/add\n",
             threads, kNodes, chain * 1e6 / kNodes, kNodes, wide * 1e6 / kNodes);
}

Tensor RandomMatrix(int64_t n) {
  Tensor t(HostAllocator(), DType::kF32, TensorShape({n, n}));
  uint32_t state = 12345;
  for (int64_t i = 0; i < n * n; ++i) {
    state = state * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  }
  return t;
}

// The OpenBLAS peer runs the kernel OpenBLAS picks for this CPU unless the
// environment forces one (scripts/bench unsets OPENBLAS_CORETYPE and
// OPENBLAS_L2_SIZE for this program alone); which one it runs is printed.
void PrintGemmContext(const std::vector<double>& peaks) {
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  fmt::print("OpenBLAS kernel: {} ({})\n", openblas_get_corename(),
             forced ? fmt::format("forced by OPENBLAS_CORETYPE={}", forced) : std::string("its own choice"));
  for (size_t t = 1; t < peaks.size(); ++t) {
    fmt::print("f32 FMA peak, measured, {} thread(s): {:.1f} GFLOP/s\n", t, peaks[t]);
  }
}

void BenchMatMul(int64_t n, int threads, double peak) {
  Tensor a = RandomMatrix(n), b = RandomMatrix(n);
  double flops = 2.0 * n * n * n;
  int reps = n >= 2048 ? 3 : 6;

  Graph g;
  Node* pa = Placeholder(g, a.shape());
  Node* pb = Placeholder(g, b.shape());
  Node* mm = Add(g, "matmul", {pa->output(0), pb->output(0)});
  const std::vector<std::pair<Output, Tensor>> feeds = {{pa->output(0), a}, {pb->output(0), b}};
  Session session(&g, {threads, threads, 1});
  Check(session.Run(feeds, {mm->output(0)}, {}).status());
  double t_tfg = BestSeconds(reps, [&] { Check(session.Run(feeds, {mm->output(0)}, {}).status()); });

  openblas_set_num_threads(threads);
  std::vector<float> c(n * n);
  double t_blas = BestSeconds(reps, [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data<float>(), n, b.data<float>(), n, 0.0f,
                c.data(), n);
  });

  Eigen::ThreadPool pool(threads);
  Eigen::ThreadPoolDevice device(&pool, threads);
  using Map = Eigen::TensorMap<Eigen::Tensor<const float, 2, Eigen::RowMajor>>;
  Eigen::Tensor<float, 2, Eigen::RowMajor> out(n, n);
  Map ea(a.data<float>(), n, n), eb(b.data<float>(), n, n);
  Eigen::array<Eigen::IndexPair<int>, 1> dims = {Eigen::IndexPair<int>(1, 0)};
  double t_eigen = BestSeconds(reps, [&] { out.device(device) = ea.contract(eb, dims); });

  double best_peer = std::min(t_blas, t_eigen);
  auto of_peak = [&](double t) { return 100.0 * flops / t / 1e9 / peak; };
  fmt::print("matmul f32 {}x{}  threads={}  tfg {:.1f} GFLOP/s ({:.0f}% of peak)   OpenBLAS {:.1f} ({:.0f}%)   "
             "Eigen {:.1f} ({:.0f}%)   tfg / OpenBLAS = {:.2f}   tfg / faster peer = {:.2f}\n",
             n, n, threads, flops / t_tfg / 1e9, of_peak(t_tfg), flops / t_blas / 1e9, of_peak(t_blas),
             flops / t_eigen / 1e9, of_peak(t_eigen), t_blas / t_tfg, best_peer / t_tfg);
}

}  // namespace
}  // namespace tfg

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  for (int threads : {1, 2}) tfg::BenchExecutor(threads);
  std::vector<double> peaks = {0.0};
  for (int threads : {1, 2}) peaks.push_back(tfg::bench::MeasureFmaPeak(threads).gflops);
  tfg::PrintGemmContext(peaks);
  // 1000: a size that is no multiple of the kernels' tiles.
  for (int64_t n : {int64_t{1000}, int64_t{1024}, int64_t{2048}}) {
    if (quick && n > 1024) continue;
    for (int threads : {1, 2}) tfg::BenchMatMul(n, threads, peaks[static_cast<size_t>(threads)]);
  }
  return 0;
}
