#include "ops/nn/pool_onednn.h"

#include "ops/nn/conv_backend.h"

#if !defined(TFG_HAVE_ONEDNN)

namespace tfg::nn::onednn {
bool MaxPoolForward(const OpKernelContext&, const Geometry&, const float*, float*) { return false; }
}  // namespace tfg::nn::onednn

#else

#include <algorithm>
#include <cfloat>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ops/nn/onednn_runtime.h"

namespace tfg::nn::onednn {
namespace max_pool {

namespace d = dnnl;
using Tag = d::memory::format_tag;
constexpr auto kF32 = d::memory::data_type::f32;

// The primitive of one slice shape.
struct Plan {
  bool usable = false;  // false: oneDNN has only its slow reference code for this shape
  d::pooling_forward forward;
  d::memory::desc pooled, scratch;
};

d::memory::desc Activations(int64_t n, int64_t h, int64_t w, int64_t c) { return {{n, c, h, w}, kF32, Tag::nhwc}; }

// Padding after the last window, never negative (VALID may leave input
// rows unused); oneDNN wants it with the leading padding.
int64_t PadEnd(int64_t in, int64_t out, int64_t stride, int64_t k, int64_t pad_begin) {
  return std::max<int64_t>(0, (out - 1) * stride + k - in - pad_begin);
}

d::primitive_attr Attr() {
  d::primitive_attr attr;
  attr.set_scratchpad_mode(d::scratchpad_mode::user);
  return attr;
}

Plan MakePlan(const Geometry& g, int64_t n) {
  const d::memory::dims strides = {g.sh, g.sw}, kernel = {g.kh, g.kw}, pad_l = {g.pad_top, g.pad_left},
                        pad_r = {PadEnd(g.h, g.oh, g.sh, g.kh, g.pad_top), PadEnd(g.w, g.ow, g.sw, g.kw, g.pad_left)};
  const d::memory::desc x = Activations(n, g.h, g.w, g.c), y = Activations(n, g.oh, g.ow, g.c);
  const d::pooling_forward::desc desc(d::prop_kind::forward_inference, d::algorithm::pooling_max, x, y, strides,
                                      kernel, pad_l, pad_r);
  const d::pooling_forward::primitive_desc pd(desc, Attr(), Engine());
  Plan plan;
  plan.usable = IsJitted(pd.impl_info_str());
  plan.forward = d::pooling_forward(pd);
  plan.pooled = y;
  plan.scratch = pd.scratchpad_desc();
  return plan;
}

// Plans by shape, kept for the life of the process (creating one JIT-
// compiles kernels); past kMaxPlans the cache starts over.
constexpr size_t kMaxPlans = 256;

std::shared_ptr<const Plan> FindPlan(const Geometry& g, int64_t n, int omp_threads) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, std::shared_ptr<const Plan>> plans;
  std::vector<int64_t> key = {n, g.h, g.w, g.c, g.kh, g.kw, g.sh, g.sw, g.pad_top, g.pad_left, g.oh, g.ow, omp_threads};
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
  }
  SetOmpThreads(omp_threads);  // a primitive keeps the thread count it was created under
  auto plan = std::make_shared<const Plan>(MakePlan(g, n));
  std::lock_guard<std::mutex> lock(mu);
  if (plans.size() >= kMaxPlans) plans.clear();
  return plans.emplace(std::move(key), plan).first->second;
}

// Whether no value is NaN or -inf: the values on which oneDNN's maximum
// (started at the lowest finite float) agrees with TensorFlow's (see
// pool_onednn.h). No early exit, so it vectorizes.
bool NoNaNOrMinusInf(const float* x, int64_t count) {
  int finite_below = 1;
  for (int64_t i = 0; i < count; ++i) finite_below &= x[i] >= -FLT_MAX;
  return finite_below != 0;
}

}  // namespace max_pool

bool MaxPoolForward(const OpKernelContext& ctx, const Geometry& g, const float* x, float* y) {
  using namespace max_pool;
  if (CpuConvBackend() != ConvBackend::kOneDnn || g.n <= 0 || g.oh <= 0 || g.ow <= 0 || g.c <= 0) return false;
  return Guarded([&] {
    const Slices s = SliceBatch(ctx, g.n);
    const auto full = FindPlan(g, s.size, s.omp_threads);
    const int64_t last_images = s.images(s.count - 1, g.n);
    const auto last = last_images == s.size ? full : FindPlan(g, last_images, s.omp_threads);
    if (!full->usable || !last->usable) return false;
    return ForEachSlice(ctx, s, [&](int64_t i, d::stream& stream) {
      const Plan& plan = i + 1 == s.count ? *last : *full;
      const int64_t b0 = s.begin(i), n = s.images(i, g.n);
      const float* xs = x + b0 * g.in_image();
      if (!NoNaNOrMinusInf(xs, n * g.in_image())) return false;
      plan.forward.execute(stream, {{DNNL_ARG_SRC, Memory(Activations(n, g.h, g.w, g.c), xs)},
                                    {DNNL_ARG_DST, Memory(plan.pooled, y + b0 * g.oh * g.ow * g.c)},
                                    {DNNL_ARG_SCRATCHPAD, ThreadBuffer(plan.scratch, Buffer::kScratchpad)}});
      stream.wait();
      return true;
    });
  });
}

}  // namespace tfg::nn::onednn

#endif  // TFG_HAVE_ONEDNN
