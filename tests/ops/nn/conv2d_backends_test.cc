// conv2d and its backprops through each CPU backend (ops/nn/conv_backend.h):
// the im2col + GEMM reference and, when built in, oneDNN. Shapes larger
// and more varied than conv2d_test.cc's (channel counts that make oneDNN
// pick blocked filter layouts, batches that do not split evenly over its
// slices, strides, dilations, VALID windows that leave input unused), on
// pseudo-random inputs; the expected values come from the direct sums
// below, computed in double precision, independent of both backends.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "ops/nn/conv_backend.h"
#include "tests/ops/nn/conv_backend_fixture.h"
#include "tests/ops/nn/conv_test_shapes.h"
#include "tests/ops/nn/nn_test_util.h"

namespace tfg::conv2d_backends_test {
namespace {

using Shape = test::ConvShape;
const auto& kShapes = test::kConvShapes;

struct Geom {
  int64_t oh, ow, pt, pl;
};

// TensorFlow's output size and leading padding.
Geom GeomOf(const Shape& s) {
  const int64_t eh = (s.kh - 1) * s.dh + 1, ew = (s.kw - 1) * s.dw + 1;
  Geom g{};
  if (s.same) {
    g.oh = (s.h + s.sh - 1) / s.sh;
    g.ow = (s.w + s.sw - 1) / s.sw;
    g.pt = std::max<int64_t>((g.oh - 1) * s.sh + eh - s.h, 0) / 2;
    g.pl = std::max<int64_t>((g.ow - 1) * s.sw + ew - s.w, 0) / 2;
  } else {
    g.oh = (s.h - eh) / s.sh + 1;
    g.ow = (s.w - ew) / s.sw + 1;
  }
  return g;
}

std::vector<double> Values(int64_t count, uint64_t seed) { return test::LcgValues(count, seed); }

struct Expected {
  std::vector<double> y, dx, df;
};

// y = the convolution; dx and df its adjoints at dy, by direct sums.
Expected Direct(const Shape& s, const Geom& g, const std::vector<double>& x, const std::vector<double>& f,
                const std::vector<double>& dy) {
  Expected e;
  e.y.assign(static_cast<size_t>(s.n * g.oh * g.ow * s.o), 0.0);
  e.dx.assign(x.size(), 0.0);
  e.df.assign(f.size(), 0.0);
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t i = 0; i < g.oh; ++i)
      for (int64_t j = 0; j < g.ow; ++j)
        for (int64_t p = 0; p < s.kh; ++p)
          for (int64_t q = 0; q < s.kw; ++q) {
            const int64_t ih = i * s.sh - g.pt + p * s.dh, iw = j * s.sw - g.pl + q * s.dw;
            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
            for (int64_t c = 0; c < s.c; ++c) {
              const size_t xi = static_cast<size_t>(((b * s.h + ih) * s.w + iw) * s.c + c);
              for (int64_t o = 0; o < s.o; ++o) {
                const size_t fi = static_cast<size_t>(((p * s.kw + q) * s.c + c) * s.o + o);
                const size_t yi = static_cast<size_t>(((b * g.oh + i) * g.ow + j) * s.o + o);
                e.y[yi] += x[xi] * f[fi];
                e.dx[xi] += dy[yi] * f[fi];
                e.df[fi] += x[xi] * dy[yi];
              }
            }
          }
  return e;
}

class Conv2DBackends : public test::EachConvBackend {};

TEST_P(Conv2DBackends, MatchDirectSums) {
  EXPECT_EQ(nn::CpuConvBackend(), GetParam());
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    const Geom g = GeomOf(s);
    const TensorShape xs({s.n, s.h, s.w, s.c}), fs({s.kh, s.kw, s.c, s.o}), ys({s.n, g.oh, g.ow, s.o});
    const std::vector<double> x = Values(xs.num_elements(), 1), f = Values(fs.num_elements(), 2),
                              dy = Values(ys.num_elements(), 3);
    const Expected e = Direct(s, g, x, f, dy);
    const Tensor tx = test::MakeTensorOf(DType::kF32, x, xs), tf = test::MakeTensorOf(DType::kF32, f, fs),
                 tdy = test::MakeTensorOf(DType::kF32, dy, ys);
    const AttrMap attrs = {{"strides", std::vector<int64_t>{s.sh, s.sw}},
                           {"padding", std::string(s.same ? "SAME" : "VALID")},
                           {"dilations", std::vector<int64_t>{s.dh, s.dw}}};
    // f32 rounding grows with the number of terms in each sum.
    const double tol_y = 1e-6 * static_cast<double>(s.kh * s.kw * s.c) + 1e-5;
    const double tol_df = 1e-6 * static_cast<double>(s.n * g.oh * g.ow) + 1e-5;
    test::ExpectTensorNear(test::Eval("conv2d", {tx, tf}, attrs), e.y, ys, tol_y);
    test::ExpectTensorNear(test::Eval("conv2d_backprop_input", {tx, tf, tdy}, attrs), e.dx, xs,
                           1e-6 * static_cast<double>(s.kh * s.kw * s.o) + 1e-5);
    test::ExpectTensorNear(test::Eval("conv2d_backprop_filter", {tx, tf, tdy}, attrs), e.df, fs, tol_df);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Conv2DBackends,
                         ::testing::Values(nn::ConvBackend::kReference, nn::ConvBackend::kOneDnn),
                         [](const auto& info) {
                           return std::string(info.param == nn::ConvBackend::kOneDnn ? "OneDnn" : "Reference");
                         });

// oneDNN's f32 Winograd needs AVX-512 (avx512_core).
bool CpuHasAvx512Core() {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

// The Winograd shapes run another algorithm than the direct convolution
// (the bits differ), and both match the direct sums (MatchDirectSums runs
// under the default policy; this runs the direct one too).
TEST(Conv2DWinograd, RunsWhereItFitsAndMatchesTheDirectConvolution) {
  if (!nn::OneDnnBuilt()) GTEST_SKIP() << "built without oneDNN";
  if (!CpuHasAvx512Core()) GTEST_SKIP() << "oneDNN has no Winograd convolution for this CPU";
  const nn::ConvBackend saved = nn::CpuConvBackend();
  nn::SetCpuConvBackend(nn::ConvBackend::kOneDnn);
  const Shape& s = kShapes[std::size(kShapes) - 2];
  ASSERT_EQ(std::string(s.name), "winograd_same");
  const Geom g = GeomOf(s);
  const TensorShape xs({s.n, s.h, s.w, s.c}), fs({s.kh, s.kw, s.c, s.o}), ys({s.n, g.oh, g.ow, s.o});
  const std::vector<double> x = Values(xs.num_elements(), 4), f = Values(fs.num_elements(), 5);
  const Tensor tx = test::MakeTensorOf(DType::kF32, x, xs), tf = test::MakeTensorOf(DType::kF32, f, fs);
  const AttrMap attrs = {{"strides", std::vector<int64_t>{1, 1}}, {"padding", std::string("SAME")}};
  const Tensor winograd = test::Eval("conv2d", {tx, tf}, attrs);
  nn::SetCpuConvWinograd(nn::WinogradPolicy::kOff);
  const Tensor direct = test::Eval("conv2d", {tx, tf}, attrs);
  nn::SetCpuConvWinograd(nn::WinogradPolicy::kAuto);
  nn::SetCpuConvBackend(saved);
  const std::vector<double> sums = Direct(s, g, x, f, std::vector<double>(static_cast<size_t>(ys.num_elements()))).y;
  const double tol = 1e-6 * static_cast<double>(s.kh * s.kw * s.c) + 1e-5;
  test::ExpectTensorNear(winograd, sums, ys, tol);
  test::ExpectTensorNear(direct, sums, ys, tol);
  EXPECT_NE(std::memcmp(winograd.data<float>(), direct.data<float>(), static_cast<size_t>(ys.num_elements()) * 4), 0);
}

// The Winograd shape of the tests below, and its operands' shapes.
struct WinogradShape {
  const Shape& s = kShapes[std::size(kShapes) - 2];
  const Geom g = GeomOf(s);
  const TensorShape xs{s.n, s.h, s.w, s.c}, fs{s.kh, s.kw, s.c, s.o}, ys{s.n, g.oh, g.ow, s.o};
};

// The passes on (x, f, dy) (0 conv2d, 1 its input gradient, 2 its filter
// gradient) under oneDNN's default policy give the bits of the direct
// convolution (Winograd off).
void ExpectTheDirectConvolutionsBits(const WinogradShape& w, const std::vector<double>& x,
                                     const std::vector<double>& f, const std::vector<double>& dy,
                                     const std::vector<size_t>& passes = {0, 1, 2}) {
  const nn::ConvBackend saved = nn::CpuConvBackend();
  nn::SetCpuConvBackend(nn::ConvBackend::kOneDnn);
  const Tensor tx = test::MakeTensorOf(DType::kF32, x, w.xs), tf = test::MakeTensorOf(DType::kF32, f, w.fs),
               tdy = test::MakeTensorOf(DType::kF32, dy, w.ys);
  const AttrMap attrs = {{"strides", std::vector<int64_t>{1, 1}}, {"padding", std::string("SAME")}};
  auto run_all = [&] {
    return std::vector<Tensor>{test::Eval("conv2d", {tx, tf}, attrs),
                               test::Eval("conv2d_backprop_input", {tx, tf, tdy}, attrs),
                               test::Eval("conv2d_backprop_filter", {tx, tf, tdy}, attrs)};
  };
  const std::vector<Tensor> automatic = run_all();
  nn::SetCpuConvWinograd(nn::WinogradPolicy::kOff);
  const std::vector<Tensor> direct = run_all();
  nn::SetCpuConvWinograd(nn::WinogradPolicy::kAuto);
  nn::SetCpuConvBackend(saved);
  for (size_t i : passes) {
    SCOPED_TRACE(i);
    ASSERT_EQ(automatic[i].shape(), direct[i].shape());
    EXPECT_EQ(std::memcmp(automatic[i].data<float>(), direct[i].data<float>(),
                          static_cast<size_t>(direct[i].num_elements()) * 4),
              0);
  }
}

// An Inf in what a Winograd shape reads takes the direct convolution (and
// its bits): Winograd would spread it over whole output tiles as NaN.
TEST(Conv2DWinograd, AnInfInAnOperandTakesTheDirectConvolution) {
  if (!nn::OneDnnBuilt()) GTEST_SKIP() << "built without oneDNN";
  const WinogradShape w;
  std::vector<double> x = Values(w.xs.num_elements(), 6), dy = Values(w.ys.num_elements(), 7);
  x[x.size() / 3] = HUGE_VAL;
  dy[dy.size() / 5] = -HUGE_VAL;
  ExpectTheDirectConvolutionsBits(w, x, Values(w.fs.num_elements(), 8), dy);
}

// The backward passes check what Winograd wrote rather than what they
// read: a NaN in the filter alone (the input gradient's other operand)
// must still give the direct convolution's bits. (The filter gradient
// does not read the filter: it stays Winograd's.)
TEST(Conv2DWinograd, ANaNInTheFilterTakesTheDirectConvolution) {
  if (!nn::OneDnnBuilt()) GTEST_SKIP() << "built without oneDNN";
  const WinogradShape w;
  std::vector<double> f = Values(w.fs.num_elements(), 9);
  f[f.size() / 2] = NAN;
  ExpectTheDirectConvolutionsBits(w, Values(w.xs.num_elements(), 10), f, Values(w.ys.num_elements(), 11), {0, 1});
}

// Selecting oneDNN in a build without it leaves the reference in use.
TEST(Conv2DBackendSwitch, FallsBackWithoutOneDnn) {
  const nn::ConvBackend saved = nn::CpuConvBackend();
  nn::SetCpuConvBackend(nn::ConvBackend::kOneDnn);
  EXPECT_EQ(nn::CpuConvBackend(), nn::OneDnnBuilt() ? nn::ConvBackend::kOneDnn : nn::ConvBackend::kReference);
  nn::SetCpuConvBackend(saved);
}

}  // namespace
}  // namespace tfg::conv2d_backends_test
