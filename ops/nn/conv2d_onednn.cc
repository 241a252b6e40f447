#include "ops/nn/conv2d_onednn.h"

#include "ops/nn/conv_backend.h"

#if defined(TFG_HAVE_ONEDNN)
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ops/nn/all_finite.h"
#include "ops/nn/onednn_runtime.h"
#endif

#if !defined(TFG_HAVE_ONEDNN)

namespace tfg::nn::onednn {
bool Conv2DForward(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*, float*) {
  return false;
}
bool Conv2DBackpropInput(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*, float*) {
  return false;
}
bool Conv2DBackpropFilter(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*, float*) {
  return false;
}
bool Conv2DBiasActivationForward(const OpKernelContext&, const Geometry&, int64_t, const float*, const float*,
                                 const float*, bool, bool, float*) {
  return false;
}
}  // namespace tfg::nn::onednn

#else

namespace tfg::nn::onednn {
namespace {

namespace d = dnnl;
using Tag = d::memory::format_tag;
constexpr auto kF32 = d::memory::data_type::f32;

// kForwardBias and kForwardBiasRelu are conv2d_bias_activation's forward:
// the bias added, and ReLU applied, by oneDNN as the output is written.
enum class Pass { kForward, kBackpropInput, kBackpropFilter, kForwardBias, kForwardBiasRelu };
bool IsForward(Pass p) { return p == Pass::kForward || p == Pass::kForwardBias || p == Pass::kForwardBiasRelu; }

// An activation tensor (the image side, x or dx, or the output side, y or
// dy) as the primitive uses it: NHWC, the caller's memory itself, or the
// blocked layout Winograd works in, reached by a reorder through a thread
// buffer (toward it for what the pass reads, back from it for what it
// writes).
struct Activation {
  d::memory::desc chosen;
  bool nhwc = true;
  d::reorder reorder;
};

// A primitive for one pass over one slice shape, with what running it needs.
struct Plan {
  bool usable = false;  // false: oneDNN has only its slow reference code for this shape
  bool winograd = false;
  d::primitive conv;
  d::memory::desc filter;  // the filter (or filter gradient) layout `conv` uses
  bool filter_is_hwio = true;
  d::reorder filter_reorder;  // HWIO -> filter (or back, for kBackpropFilter)
  d::memory::desc scratch;
  Activation image, output;
};

d::memory::desc Activations(int64_t n, int64_t h, int64_t w, int64_t c, Tag tag = Tag::nhwc) {
  return {{n, c, h, w}, kF32, tag};
}
d::memory::desc Filter(const Geometry& g, int64_t oc, Tag tag) { return {{oc, g.c, g.kh, g.kw}, kF32, tag}; }

// Padding after the last window (oneDNN wants both sides): what the last
// output's window reaches past the input, never negative (VALID may leave
// input rows unused).
int64_t PadEnd(int64_t in, int64_t out, int64_t stride, int64_t k, int64_t dilation, int64_t pad_begin) {
  return std::max<int64_t>(0, (out - 1) * stride + (k - 1) * dilation + 1 - in - pad_begin);
}

struct Window {
  d::memory::dims strides, dilates, pad_l, pad_r;
};
Window WindowOf(const Geometry& g) {
  return {{g.sh, g.sw},
          {g.dh - 1, g.dw - 1},
          {g.pad_top, g.pad_left},
          {PadEnd(g.h, g.oh, g.sh, g.kh, g.dh, g.pad_top), PadEnd(g.w, g.ow, g.sw, g.kw, g.dw, g.pad_left)}};
}

d::memory::desc Bias(int64_t oc) { return {{oc}, kF32, Tag::x}; }

d::primitive_attr Attr(Pass pass = Pass::kForward) {
  d::primitive_attr attr;
  attr.set_scratchpad_mode(d::scratchpad_mode::user);
  if (pass == Pass::kForwardBiasRelu) {
    d::post_ops ops;
    ops.append_eltwise(1.0f, d::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// The algorithm, and the activation layout it works in.
struct Method {
  d::algorithm alg;
  Tag activations;
};
constexpr Method kDirect{d::algorithm::convolution_direct, Tag::nhwc};
constexpr Method kWinograd{d::algorithm::convolution_winograd, Tag::any};

// Winograd measured faster (all three passes, reorders included, on an
// AVX-512 Zen 4) from 32 channels in and out and 8 images a slice: 1.2-2x
// on 32-128 channels at 7x7 to 16x16. With 16 channels at 32x32, 3 input
// channels or a single image the transforms cost more than they save.
bool PrefersWinograd(const Geometry& g, int64_t n, int64_t oc) {
  return CpuConvWinograd() == WinogradPolicy::kAuto && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 &&
         g.dh == 1 && g.dw == 1 && g.c >= 32 && oc >= 32 && n >= 8;
}

d::convolution_forward::primitive_desc ForwardPd(const Geometry& g, int64_t n, int64_t oc, Pass pass, Method m) {
  const Window win = WindowOf(g);
  const auto prop = d::prop_kind::forward_training;
  const auto src = Activations(n, g.h, g.w, g.c, m.activations), dst = Activations(n, g.oh, g.ow, oc, m.activations);
  if (pass == Pass::kForward) {
    d::convolution_forward::desc desc(prop, m.alg, src, Filter(g, oc, Tag::any), dst, win.strides, win.dilates,
                                      win.pad_l, win.pad_r);
    return {desc, Attr(), Engine()};
  }
  d::convolution_forward::desc desc(prop, m.alg, src, Filter(g, oc, Tag::any), Bias(oc), dst, win.strides,
                                    win.dilates, win.pad_l, win.pad_r);
  return {desc, Attr(pass), Engine()};
}

// `chosen` against NHWC, and the reorder between them: toward `chosen`
// when the pass reads the tensor, back to NHWC when it writes it.
Activation ActivationAs(const d::memory::desc& chosen, const d::memory::desc& nhwc, bool read) {
  Activation a;
  a.chosen = chosen;
  a.nhwc = chosen == nhwc;
  if (!a.nhwc) {
    a.reorder = read ? d::reorder(d::reorder::primitive_desc(Engine(), nhwc, Engine(), chosen))
                     : d::reorder(d::reorder::primitive_desc(Engine(), chosen, Engine(), nhwc));
  }
  return a;
}

// The layout the primitive chose for the filter, and the reorder between it
// and HWIO (toward it for the forward and input passes, from it for the
// filter gradient).
void SetFilter(Plan& plan, const Geometry& g, int64_t oc, const d::memory::desc& chosen, bool from_chosen) {
  const d::memory::desc hwio = Filter(g, oc, Tag::hwio);
  plan.filter = chosen;
  plan.filter_is_hwio = chosen == hwio;
  if (plan.filter_is_hwio) return;
  const d::memory::desc& src = from_chosen ? chosen : hwio;
  const d::memory::desc& dst = from_chosen ? hwio : chosen;
  plan.filter_reorder = d::reorder(d::reorder::primitive_desc(Engine(), src, Engine(), dst));
}

Plan MakePlanWith(Method m, Pass pass, const Geometry& g, int64_t n, int64_t oc) {
  Plan plan;
  // The backward passes' hint is the plain forward convolution.
  const auto fwd = ForwardPd(g, n, oc, IsForward(pass) ? pass : Pass::kForward, m);
  const Window win = WindowOf(g);
  const auto image = Activations(n, g.h, g.w, g.c), output = Activations(n, g.oh, g.ow, oc);
  const auto image_as = Activations(n, g.h, g.w, g.c, m.activations);
  const auto output_as = Activations(n, g.oh, g.ow, oc, m.activations);
  if (IsForward(pass)) {
    plan.usable = IsJitted(fwd.impl_info_str());
    plan.conv = d::convolution_forward(fwd);
    plan.scratch = fwd.scratchpad_desc();
    SetFilter(plan, g, oc, fwd.weights_desc(), false);
    plan.image = ActivationAs(fwd.src_desc(), image, true);
    plan.output = ActivationAs(fwd.dst_desc(), output, false);
  } else if (pass == Pass::kBackpropInput) {
    d::convolution_backward_data::desc desc(m.alg, image_as, Filter(g, oc, Tag::any), output_as, win.strides,
                                            win.dilates, win.pad_l, win.pad_r);
    d::convolution_backward_data::primitive_desc pd(desc, Attr(), Engine(), fwd);
    plan.usable = IsJitted(pd.impl_info_str());
    plan.conv = d::convolution_backward_data(pd);
    plan.scratch = pd.scratchpad_desc();
    SetFilter(plan, g, oc, pd.weights_desc(), false);
    plan.image = ActivationAs(pd.diff_src_desc(), image, false);
    plan.output = ActivationAs(pd.diff_dst_desc(), output, true);
  } else {
    d::convolution_backward_weights::desc desc(m.alg, image_as, Filter(g, oc, Tag::any), output_as, win.strides,
                                               win.dilates, win.pad_l, win.pad_r);
    d::convolution_backward_weights::primitive_desc pd(desc, Attr(), Engine(), fwd);
    plan.usable = IsJitted(pd.impl_info_str());
    plan.conv = d::convolution_backward_weights(pd);
    plan.scratch = pd.scratchpad_desc();
    SetFilter(plan, g, oc, pd.diff_weights_desc(), true);
    plan.image = ActivationAs(pd.src_desc(), image, true);
    plan.output = ActivationAs(pd.diff_dst_desc(), output, true);
  }
  return plan;
}

// Winograd where it is preferred and oneDNN has it for the shape (and, for
// the fused forward, the bias and ReLU); the direct convolution otherwise.
Plan MakePlan(Pass pass, const Geometry& g, int64_t n, int64_t oc, bool winograd) {
  if (winograd) {
    try {
      Plan plan = MakePlanWith(kWinograd, pass, g, n, oc);
      plan.winograd = true;
      if (plan.usable) return plan;
    } catch (const d::error&) {
      // No Winograd implementation for this shape.
    }
  }
  return MakePlanWith(kDirect, pass, g, n, oc);
}

// Plans by pass and shape. Creating one JIT-compiles kernels (milliseconds),
// so they are kept for the life of the process; a program that sees very
// many shapes starts over past kMaxPlans rather than grow without bound.
constexpr size_t kMaxPlans = 512;

std::shared_ptr<const Plan> FindPlan(Pass pass, const Geometry& g, int64_t n, int64_t oc, int omp_threads,
                                     bool winograd_ok) {
  static std::mutex mu;
  static std::map<std::vector<int64_t>, std::shared_ptr<const Plan>> plans;
  const bool winograd = winograd_ok && PrefersWinograd(g, n, oc);
  std::vector<int64_t> key = {static_cast<int64_t>(pass), n, g.h, g.w, g.c, oc, g.kh, g.kw, g.sh,
                              g.sw, g.dh, g.dw, g.pad_top, g.pad_left, g.oh, g.ow, omp_threads, winograd};
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
  }
  SetOmpThreads(omp_threads);  // a primitive keeps the thread count it was created under
  auto plan = std::make_shared<const Plan>(MakePlan(pass, g, n, oc, winograd));
  std::lock_guard<std::mutex> lock(mu);
  if (plans.size() >= kMaxPlans) plans.clear();
  return plans.emplace(std::move(key), plan).first->second;
}

// The plans of the full slices and of the last one (the same when the
// batch divides evenly).
struct SlicePlans {
  std::shared_ptr<const Plan> full, last;
  const Plan& of(const Slices& s, int64_t i) const { return i + 1 == s.count ? *last : *full; }
  bool usable() const { return full->usable && last->usable; }
  bool winograd() const { return full->winograd || last->winograd; }
};
SlicePlans PlansFor(Pass pass, const Geometry& g, const Slices& s, int64_t oc, bool winograd_ok) {
  SlicePlans p;
  p.full = FindPlan(pass, g, s.size, oc, s.omp_threads, winograd_ok);
  const int64_t last = s.images(s.count - 1, g.n);
  p.last = last == s.size ? p.full : FindPlan(pass, g, last, oc, s.omp_threads, winograd_ok);
  return p;
}

struct Operand {
  const float* data;
  int64_t count;
};
// Winograd's transforms mix each tile's inputs: one Inf or NaN turns the
// whole output tile into NaN (1024 NaN outputs for one Inf, where the
// direct convolution gives 576 Inf and finite values elsewhere). Such
// operands take the direct convolution. The forward pass scans its operands
// first, where Winograd would run (its ReLU post-op would turn NaN into 0,
// hiding them in the output); the backward passes scan what they wrote
// instead, which is smaller (the filter gradient) or still in cache (each
// slice's input gradient), and run again direct when it is not all finite:
// a non-finite operand always reaches the output of a Winograd pass, since
// every product it enters is Inf or NaN.
bool WinogradSafe(const OpKernelContext& ctx, const Geometry& g, const Slices& s, int64_t oc,
                  std::initializer_list<Operand> operands) {
  if (!PrefersWinograd(g, s.size, oc)) return true;
  for (const Operand& o : operands) {
    if (!AllFinite(ctx, o.data, o.count)) return false;
  }
  return true;
}

// The HWIO filter in each plan's layout (the caller's own memory when that
// is HWIO already). Reordered once per call, on the calling thread.
struct Filters {
  d::memory full, last;
  std::vector<float> full_data, last_data;
};
d::memory FilterFor(const Plan& plan, const Geometry& g, int64_t oc, const float* filter, std::vector<float>& data) {
  d::memory hwio = Memory(Filter(g, oc, Tag::hwio), filter);
  if (plan.filter_is_hwio) return hwio;
  data.resize(plan.filter.get_size() / sizeof(float) + 1);
  d::memory out(plan.filter, Engine(), data.data());
  SetOmpThreads(1);
  d::stream stream(Engine());
  plan.filter_reorder.execute(stream, hwio, out);
  stream.wait();
  return out;
}

// What the primitive reads: the caller's NHWC memory, or a copy in the
// plan's layout in this thread's `slot` buffer.
d::memory ReadAs(const Activation& a, const d::memory& user, Buffer slot, d::stream& stream) {
  if (a.nhwc) return user;
  d::memory m = ThreadBuffer(a.chosen, slot);
  a.reorder.execute(stream, const_cast<d::memory&>(user), m);
  return m;
}
// Where the primitive writes; WriteBack() then brings a blocked result to
// the caller's NHWC memory.
d::memory WriteAs(const Activation& a, const d::memory& user) {
  return a.nhwc ? user : ThreadBuffer(a.chosen, Buffer::kOutput);
}
void WriteBack(const Activation& a, d::memory& written, const d::memory& user, d::stream& stream) {
  if (!a.nhwc) a.reorder.execute(stream, written, const_cast<d::memory&>(user));
}

bool Usable(const Geometry& g, int64_t oc) {
  return CpuConvBackend() == ConvBackend::kOneDnn && g.n > 0 && g.oh > 0 && g.ow > 0 && g.c > 0 && oc > 0;
}

// How a pass went: kNotFinite when Winograd wrote a NaN or Inf (the
// caller runs it again direct).
enum class Ran { kFailed, kDone, kNotFinite };
Ran RanFrom(bool ran, bool finite) { return !ran ? Ran::kFailed : finite ? Ran::kDone : Ran::kNotFinite; }

// Runs a forward or the input-gradient pass: `src` slices are read,
// `dst` slices written, the filter (and for the fused forward the bias) read.
// `winograd_ok`: Winograd may run (the forward's operands are known finite).
Ran RunDataPassWith(Pass pass, const OpKernelContext& ctx, const Geometry& g, int64_t oc, const float* filter,
                    const float* src, float* dst, const float* bias, bool winograd_ok) {
  std::atomic<bool> finite{true};
  const bool ran = Guarded([&] {
    const Slices s = SliceBatch(ctx, g.n);
    const SlicePlans plans = PlansFor(pass, g, s, oc, winograd_ok);
    if (!plans.usable()) return false;
    Filters f;
    f.full = FilterFor(*plans.full, g, oc, filter, f.full_data);
    f.last = plans.last == plans.full ? f.full : FilterFor(*plans.last, g, oc, filter, f.last_data);
    const bool forward = IsForward(pass);
    const int64_t src_image = forward ? g.in_image() : g.oh * g.ow * oc;
    const int64_t dst_image = forward ? g.oh * g.ow * oc : g.in_image();
    return ForEachSlice(ctx, s, [&](int64_t i, d::stream& stream) {
      const Plan& plan = plans.of(s, i);
      const int64_t n = s.images(i, g.n), b0 = s.begin(i);
      const d::memory x_user =
          Memory(Activations(n, g.h, g.w, g.c), forward ? src + b0 * src_image : dst + b0 * dst_image);
      const d::memory y_user =
          Memory(Activations(n, g.oh, g.ow, oc), forward ? dst + b0 * dst_image : src + b0 * src_image);
      d::memory x = forward ? ReadAs(plan.image, x_user, Buffer::kFirstInput, stream) : WriteAs(plan.image, x_user);
      d::memory y = forward ? WriteAs(plan.output, y_user) : ReadAs(plan.output, y_user, Buffer::kFirstInput, stream);
      const d::memory& w = i + 1 == s.count ? f.last : f.full;
      if (forward) {
        std::unordered_map<int, d::memory> args = {
            {DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, y},
            {DNNL_ARG_SCRATCHPAD, ThreadBuffer(plan.scratch, Buffer::kScratchpad)}};
        if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, Memory(Bias(oc), bias));
        plan.conv.execute(stream, args);
      } else {
        plan.conv.execute(stream, {{DNNL_ARG_DIFF_SRC, x}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DIFF_DST, y},
                                   {DNNL_ARG_SCRATCHPAD, ThreadBuffer(plan.scratch, Buffer::kScratchpad)}});
      }
      if (forward) {
        WriteBack(plan.output, y, y_user, stream);
      } else {
        WriteBack(plan.image, x, x_user, stream);
      }
      stream.wait();
      if (!forward && plan.winograd && !AllFinite(dst + b0 * dst_image, n * dst_image)) finite = false;
      return true;
    });
  });
  return RanFrom(ran, finite);
}

bool RunDataPass(Pass pass, const OpKernelContext& ctx, const Geometry& g, int64_t oc, const float* filter,
                 const float* src, float* dst, const float* bias = nullptr, bool operands_finite = false) {
  bool winograd_ok = true;
  if (IsForward(pass) && !operands_finite) {
    const Slices s = SliceBatch(ctx, g.n);
    winograd_ok = WinogradSafe(ctx, g, s, oc, {{src, g.n * g.in_image()}, {filter, g.patch() * oc}});
  }
  const Ran ran = RunDataPassWith(pass, ctx, g, oc, filter, src, dst, bias, winograd_ok);
  if (ran != Ran::kNotFinite) return ran == Ran::kDone;
  return RunDataPassWith(pass, ctx, g, oc, filter, src, dst, bias, false) != Ran::kFailed;
}

}  // namespace

bool Conv2DForward(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const float* input,
                   const float* filter, float* output) {
  return Usable(g, out_channels) && RunDataPass(Pass::kForward, ctx, g, out_channels, filter, input, output);
}

bool Conv2DBackpropInput(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const float* filter,
                         const float* dy, float* dx) {
  return Usable(g, out_channels) && RunDataPass(Pass::kBackpropInput, ctx, g, out_channels, filter, dy, dx);
}

bool Conv2DBiasActivationForward(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels,
                                 const float* input, const float* filter, const float* bias, bool relu,
                                 bool operands_finite, float* output) {
  const Pass pass = relu ? Pass::kForwardBiasRelu : Pass::kForwardBias;
  return Usable(g, out_channels) &&
         RunDataPass(pass, ctx, g, out_channels, filter, input, output, bias, operands_finite);
}

namespace {

// Each slice's filter gradient goes to a buffer of its own (slice 0's
// straight into dfilter when the layouts allow); the partial sums are
// added in slice order afterwards, so the result does not depend on which
// thread finished first.
Ran BackpropFilterWith(const OpKernelContext& ctx, const Geometry& g, int64_t oc, const float* input, const float* dy,
                       float* dfilter, bool winograd_ok) {
  const int64_t size = g.patch() * oc;
  bool winograd = false;
  const bool ran = Guarded([&] {
    const Slices s = SliceBatch(ctx, g.n);
    const SlicePlans plans = PlansFor(Pass::kBackpropFilter, g, s, oc, winograd_ok);
    if (!plans.usable()) return false;
    std::vector<std::vector<float>> partial(static_cast<size_t>(s.count));
    const bool ran = ForEachSlice(ctx, s, [&](int64_t i, d::stream& stream) {
      const Plan& plan = plans.of(s, i);
      const int64_t n = s.images(i, g.n), b0 = s.begin(i);
      float* hwio = dfilter;
      if (i > 0) {
        partial[static_cast<size_t>(i)].resize(static_cast<size_t>(size));
        hwio = partial[static_cast<size_t>(i)].data();
      }
      d::memory hwio_mem = Memory(Filter(g, oc, Tag::hwio), hwio);
      std::vector<float> blocked;
      d::memory dw = hwio_mem;
      if (!plan.filter_is_hwio) {
        blocked.resize(plan.filter.get_size() / sizeof(float) + 1);
        dw = d::memory(plan.filter, Engine(), blocked.data());
      }
      const d::memory x_user = Memory(Activations(n, g.h, g.w, g.c), input + b0 * g.in_image());
      const d::memory dy_user = Memory(Activations(n, g.oh, g.ow, oc), dy + b0 * g.oh * g.ow * oc);
      plan.conv.execute(stream, {{DNNL_ARG_SRC, ReadAs(plan.image, x_user, Buffer::kFirstInput, stream)},
                                 {DNNL_ARG_DIFF_DST, ReadAs(plan.output, dy_user, Buffer::kSecondInput, stream)},
                                 {DNNL_ARG_DIFF_WEIGHTS, dw},
                                 {DNNL_ARG_SCRATCHPAD, ThreadBuffer(plan.scratch, Buffer::kScratchpad)}});
      if (!plan.filter_is_hwio) plan.filter_reorder.execute(stream, dw, hwio_mem);
      stream.wait();
      return true;
    });
    if (!ran) return false;
    for (size_t i = 1; i < partial.size(); ++i) {
      const float* add = partial[i].data();
      for (int64_t j = 0; j < size; ++j) dfilter[j] += add[j];
    }
    winograd = plans.winograd();
    return true;
  });
  return RanFrom(ran, !winograd || AllFinite(ctx, dfilter, size));
}

}  // namespace

bool Conv2DBackpropFilter(const OpKernelContext& ctx, const Geometry& g, int64_t out_channels, const float* input,
                          const float* dy, float* dfilter) {
  if (!Usable(g, out_channels)) return false;
  const Ran ran = BackpropFilterWith(ctx, g, out_channels, input, dy, dfilter, true);
  if (ran != Ran::kNotFinite) return ran == Ran::kDone;
  return BackpropFilterWith(ctx, g, out_channels, input, dy, dfilter, false) != Ran::kFailed;
}

}  // namespace tfg::nn::onednn

#endif  // TFG_HAVE_ONEDNN
