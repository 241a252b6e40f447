// The max_pool loops (ops/nn/max_pool_loops.h), included by
// max_pool_loops.cc (baseline) and max_pool_avx512.cc (inside
// `#pragma GCC target`) with TFG_POOL_NS naming a namespace of their own,
// so the two copies never meet at link time, and TFG_POOL_WIDEST the
// widest vector in bytes (16 or 64).
//
// No include guard on purpose. Headers it needs are included by the
// includer before the target pragma, so library code is not recompiled
// for another instruction set.

namespace tfg::nn::max_pool_loops::TFG_POOL_NS {

// The valid part [hs, he) x [ws, we) of window (oh, ow); never empty (see
// nn::ComputeSpatialDim: SAME padding is smaller than the window).
struct Span {
  int64_t hs, he, ws, we;
};

inline Span ValidWindow(const Geometry& g, int64_t oh, int64_t ow) {
  const int64_t h0 = oh * g.sh - g.pad_top, w0 = ow * g.sw - g.pad_left;
  return {std::max<int64_t>(h0, 0), std::min(h0 + g.kh, g.h), std::max<int64_t>(w0, 0), std::min(w0 + g.kw, g.w)};
}

// v replaces the running maximum m when larger, or when it is the first NaN.
// Bitwise, so it serves scalars (a bool) and vectors (a lane mask) alike.
template <typename T>
inline auto Beats(T v, T m) {
  return (v > m) | ((v != v) & (m == m));
}

// Channels are handled in packs: GCC vector-extension vectors (16 bytes in
// the baseline copy: SSE2, which every x86-64 has, or NEON; up to 64 in the
// AVX-512 copy), and single channels for the rest. Written with vectors
// because the plain channel loop came out scalar with branches (and GCC
// fully unrolls a fixed-length lane loop before it can vectorize it).
// Pack<T, 1> is the scalar case; the functions below serve both.
template <typename T, int64_t kLanes>
struct Pack {
  typedef T V __attribute__((vector_size(kLanes * sizeof(T))));
  using Index = decltype(V{} > V{});  // lane masks and tap indices
  using Lane = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;  // an element of Index
  typedef uint8_t Codes __attribute__((vector_size(kLanes)));  // a TapCode per lane
};
template <typename T>
struct Pack<T, 1> {
  using V = T;
  using Index = int64_t;
  using Lane = int64_t;
  using Codes = uint8_t;
};

// A pack's TapCodes to and from bytes. GCC 12 turns the generic vector
// conversion into one instruction per lane, so the AVX-512 copy's full
// f32 pack narrows and widens with one each (vpmovdb, vpmovzxbd).
template <typename P>
inline constexpr bool kWholeZmmOfF32 = sizeof(typename P::V) == 64 && sizeof(typename P::Lane) == 4;

template <typename P>
inline void StoreCodes(uint8_t* p, typename P::Index v) {
  if constexpr (std::is_arithmetic_v<typename P::V>) {
    *p = static_cast<uint8_t>(v);
#if TFG_POOL_WIDEST == 64
  } else if constexpr (kWholeZmmOfF32<P>) {
    __m512i lanes;
    std::memcpy(&lanes, &v, sizeof(lanes));
    // The masked forms: the plain ones start from an "undefined" register,
    // which GCC's sanitizer builds warn about.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_mask_cvtepi32_epi8(_mm_setzero_si128(), 0xffff, lanes));
#endif
  } else {
    const typename P::Codes c = __builtin_convertvector(v, typename P::Codes);
    std::memcpy(p, &c, sizeof(c));
  }
}
template <typename P>
inline typename P::Index LoadCodes(const uint8_t* p) {
  using Index = typename P::Index;
  if constexpr (std::is_arithmetic_v<typename P::V>) {
    return *p;
#if TFG_POOL_WIDEST == 64
  } else if constexpr (kWholeZmmOfF32<P>) {
    const __m512i lanes = _mm512_maskz_cvtepu8_epi32(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    Index v;
    std::memcpy(&v, &lanes, sizeof(v));
    return v;
#endif
  } else {
    typename P::Codes c;
    std::memcpy(&c, p, sizeof(c));
    return __builtin_convertvector(c, Index);
  }
}

template <typename P>
inline typename P::V Load(const void* p) {
  typename P::V v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename P>
inline void Store(void* p, typename P::V v) {
  std::memcpy(p, &v, sizeof(v));
}

// Offsets in the image of the valid pixels of window (oh, ow), in row-major
// window order; returns how many.
inline int64_t WindowTaps(const Geometry& g, int64_t oh, int64_t ow, int64_t* taps) {
  const Span w = ValidWindow(g, oh, ow);
  int64_t n = 0;
  for (int64_t ih = w.hs; ih < w.he; ++ih) {
    for (int64_t iw = w.ws; iw < w.we; ++iw) taps[n++] = (ih * g.w + iw) * g.c;
  }
  return n;
}

// The tap loops below take their count as kTaps when it is known at compile
// time (a whole 2x2 or 3x3 window: fully unrolled) and as n otherwise
// (kTaps == 0).
template <int64_t kTaps>
using TapCount = std::integral_constant<int64_t, kTaps>;

template <typename F>
inline void WithTapCount(int64_t n, F&& f) {
  if (n == 4) {
    f(TapCount<4>());
  } else if (n == 9) {
    f(TapCount<9>());
  } else {
    f(TapCount<0>());
  }
}

// Per lane of the pack at `image` (already offset by its first channel):
// the index into taps[0, n) of the first maximum, and the maximum.
template <typename P>
struct Argmax {
  typename P::Index tap;
  typename P::V max;
};
template <typename P, int64_t kTaps, typename T>
inline Argmax<P> PackArgmax(const T* image, const int64_t* taps, int64_t n) {
  using V = typename P::V;
  using Index = typename P::Index;
  const int64_t count = kTaps ? kTaps : n;
  V best = Load<P>(image + taps[0]);
  Index tap = Index{} * 0;
  for (int64_t t = 1; t < count; ++t) {
    const V v = Load<P>(image + taps[t]);
    const auto take = Beats(v, best);
    best = take ? v : best;
    tap = take ? Index{} + static_cast<typename P::Lane>(t) : tap;
  }
  return {tap, best};
}

// The pack's maximum over the taps (no argmax needed).
template <typename P, int64_t kTaps, typename T>
inline void PackMax(const T* image, const int64_t* taps, int64_t n, T* out) {
  using V = typename P::V;
  const int64_t count = kTaps ? kTaps : n;
  V best = Load<P>(image + taps[0]);
  for (int64_t t = 1; t < count; ++t) {
    const V v = Load<P>(image + taps[t]);
    best = Beats(v, best) ? v : best;
  }
  Store<P>(out, best);
}

// v where m > 0, else 0 (so 0 where m is NaN). On vectors a bitwise and
// with the comparison's lane mask: written as a vector ?:, the AVX-512
// copy of max_pool_relu_grad took 2.2x max_pool_grad's time
// (build/max_pool_bench); this way, the same time.
template <typename P>
inline typename P::V KeepWherePositive(typename P::V v, typename P::V m) {
  using V = typename P::V;
  if constexpr (std::is_arithmetic_v<V>) {
    return m > V{} * 0 ? v : V{} * 0;
  } else {
    using Index = typename P::Index;
    return reinterpret_cast<V>(reinterpret_cast<Index>(v) & (m > V{} * 0));
  }
}

// Routes d (one pack of out_backprop) to each lane's argmax tap of dimage.
// Every tap is written, so when windows are disjoint (kAssign) the taps
// need no zeroing beforehand; overlapping windows accumulate. kPositive
// (relu_grad folded in): only where that maximum is > 0, so never for a
// NaN one, and what is routed is added to `sum` too (each window's value
// lands on one pixel, so these are the channel sums of dimage).
template <bool kAssign, typename P, int64_t kTaps, typename T>
inline void StoreAtTap(typename P::Index tap, typename P::V dv, T* dimage, const int64_t* taps, int64_t n) {
  using V = typename P::V;
  const int64_t count = kTaps ? kTaps : n;
  for (int64_t t = 0; t < count; ++t) {
    T* dst = dimage + taps[t];
    const V routed = tap == static_cast<typename P::Lane>(t) ? dv : V{} * 0;
    Store<P>(dst, kAssign ? routed : Load<P>(dst) + routed);
  }
}

template <bool kAssign, bool kPositive, typename P, int64_t kTaps, typename T>
inline void PackRoute(const T* image, T* dimage, const int64_t* taps, int64_t n, const T* d, T* sum) {
  using V = typename P::V;
  const Argmax<P> arg = PackArgmax<P, kTaps>(image, taps, n);
  V dv = Load<P>(d);
  if constexpr (kPositive) {
    dv = KeepWherePositive<P>(dv, arg.max);
    Store<P>(sum, Load<P>(sum) + dv);
  }
  StoreAtTap<kAssign, P, kTaps>(arg.tap, dv, dimage, taps, n);
}

// PackMax that also keeps each lane's argmax (forward_taps).
template <typename P, int64_t kTaps, typename T>
inline void PackKeepArgmax(const T* image, const int64_t* taps, int64_t n, T* out, uint8_t* codes) {
  using V = typename P::V;
  using Index = typename P::Index;
  const Argmax<P> arg = PackArgmax<P, kTaps>(image, taps, n);
  Store<P>(out, arg.max);
  Index code;
  if constexpr (std::is_arithmetic_v<V>) {
    code = arg.tap | (arg.max > V{0} ? 0 : kTapNotPositive);
  } else {
    code = arg.tap | (~(arg.max > V{} * 0) & kTapNotPositive);
  }
  StoreCodes<P>(codes, code);
}

// PackRoute with kPositive, each lane's argmax read from its TapCode.
template <bool kAssign, typename P, int64_t kTaps, typename T>
inline void PackRouteCoded(const uint8_t* codes, T* dimage, const int64_t* taps, int64_t n, const T* d, T* sum) {
  using V = typename P::V;
  using Index = typename P::Index;
  const Index code = LoadCodes<P>(codes);
  V dv = Load<P>(d);
  if constexpr (std::is_arithmetic_v<V>) {
    if (code & kTapNotPositive) dv = V{0};
  } else {
    dv = reinterpret_cast<V>(reinterpret_cast<Index>(dv) & ((code & kTapNotPositive) == 0));
  }
  Store<P>(sum, Load<P>(sum) + dv);
  StoreAtTap<kAssign, P, kTaps>(code & (kTapNotPositive - 1), dv, dimage, taps, n);
}

// out (one pack of the pooled shape) = grad read at each lane's argmax.
template <typename P, int64_t kTaps, typename T>
inline void PackGather(const T* image, const T* grad, const int64_t* taps, int64_t n, T* out) {
  using V = typename P::V;
  const int64_t count = kTaps ? kTaps : n;
  const auto tap = PackArgmax<P, kTaps>(image, taps, n).tap;
  V picked = Load<P>(grad + taps[0]);
  for (int64_t t = 1; t < count; ++t) {
    picked = tap == static_cast<typename P::Lane>(t) ? Load<P>(grad + taps[t]) : picked;
  }
  Store<P>(out, picked);
}

// Calls f(c0, pack) for each pack of channels from c0 on: vectors of
// kBytes while they fit, then one of each narrower width down to 16 bytes,
// then single channels.
template <typename T, int64_t kBytes, typename F>
inline void ForEachPackFrom(int64_t c0, int64_t channels, F& f) {
  if constexpr (kBytes < 16) {
    for (; c0 < channels; ++c0) f(c0, Pack<T, 1>());
  } else {
    using P = Pack<T, kBytes / static_cast<int64_t>(sizeof(T))>;
    constexpr int64_t lanes = kBytes / static_cast<int64_t>(sizeof(T));
    for (; c0 + lanes <= channels; c0 += lanes) f(c0, P());
    ForEachPackFrom<T, kBytes / 2>(c0, channels, f);
  }
}
template <typename T, typename F>
inline void ForEachPack(int64_t channels, F&& f) {
  ForEachPackFrom<T, TFG_POOL_WIDEST>(0, channels, f);
}

template <typename T>
void Forward(const Geometry& g, const T* x, T* y, int64_t s, int64_t e) {
  std::vector<int64_t> taps(static_cast<size_t>(PoolWindowPixels(g)));
  for (int64_t u = s; u < e; ++u) {
    const T* image = x + (u / g.oh) * g.in_image();
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t n = WindowTaps(g, u % g.oh, ow, taps.data());
      T* out = y + (u * g.ow + ow) * g.c;
      WithTapCount(n, [&](auto count) {
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackMax<decltype(pack), decltype(count)::value>(image + c0, taps.data(), n, out + c0);
        });
      });
    }
  }
}

template <typename T>
void ForwardTaps(const Geometry& g, const T* x, T* y, uint8_t* codes, int64_t s, int64_t e) {
  std::vector<int64_t> taps(static_cast<size_t>(PoolWindowPixels(g)));
  for (int64_t u = s; u < e; ++u) {
    const T* image = x + (u / g.oh) * g.in_image();
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t n = WindowTaps(g, u % g.oh, ow, taps.data());
      const int64_t o = (u * g.ow + ow) * g.c;
      WithTapCount(n, [&](auto count) {
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackKeepArgmax<decltype(pack), decltype(count)::value>(image + c0, taps.data(), n, y + o + c0,
                                                                 codes + o + c0);
        });
      });
    }
  }
}

// Windows no wider than their stride never share a pixel.
inline bool DisjointWindows(const Geometry& g) { return g.kh <= g.sh && g.kw <= g.sw; }

// Disjoint windows that together reach every pixel: routing alone writes
// all of d input.
inline bool TilingWindows(const Geometry& g) {
  // oh * sh >= h, written so that a huge stride cannot overflow.
  return g.kh == g.sh && g.kw == g.sw && g.pad_top == 0 && g.pad_left == 0 &&
         g.oh >= g.h / g.sh + (g.h % g.sh != 0) && g.ow >= g.w / g.sw + (g.w % g.sw != 0);
}

// `sums` (kPositive only): a row of g.c per image.
template <bool kAssign, bool kPositive, typename T>
void BackwardImages(const Geometry& g, const T* x, const T* dy, T* dx, T* sums, int64_t s, int64_t e) {
  std::vector<int64_t> taps(static_cast<size_t>(PoolWindowPixels(g)));
  for (int64_t b = s; b < e; ++b) {
    const T* image = x + b * g.in_image();
    T* dimage = dx + b * g.in_image();
    T* sum = kPositive ? sums + b * g.c : nullptr;
    if constexpr (kPositive) std::fill(sum, sum + g.c, T(0));
    if (!TilingWindows(g)) std::fill(dimage, dimage + g.in_image(), T(0));
    for (int64_t p = 0; p < g.oh * g.ow; ++p) {
      const int64_t n = WindowTaps(g, p / g.ow, p % g.ow, taps.data());
      const T* d = dy + (b * g.oh * g.ow + p) * g.c;
      WithTapCount(n, [&](auto count) {
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackRoute<kAssign, kPositive, decltype(pack), decltype(count)::value>(
              image + c0, dimage + c0, taps.data(), n, d + c0, kPositive ? sum + c0 : nullptr);
        });
      });
    }
  }
}

// BackwardImages<kAssign, true> from the windows' TapCodes.
template <bool kAssign, typename T>
void BackwardImagesCoded(const Geometry& g, const uint8_t* codes, const T* dy, T* dx, T* sums, int64_t s, int64_t e) {
  std::vector<int64_t> taps(static_cast<size_t>(PoolWindowPixels(g)));
  for (int64_t b = s; b < e; ++b) {
    T* dimage = dx + b * g.in_image();
    T* sum = sums + b * g.c;
    std::fill(sum, sum + g.c, T(0));
    if (!TilingWindows(g)) std::fill(dimage, dimage + g.in_image(), T(0));
    for (int64_t p = 0; p < g.oh * g.ow; ++p) {
      const int64_t n = WindowTaps(g, p / g.ow, p % g.ow, taps.data());
      const int64_t o = (b * g.oh * g.ow + p) * g.c;
      WithTapCount(n, [&](auto count) {
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackRouteCoded<kAssign, decltype(pack), decltype(count)::value>(codes + o + c0, dimage + c0, taps.data(), n,
                                                                           dy + o + c0, sum + c0);
        });
      });
    }
  }
}

template <typename T>
void BackwardReluTaps(const Geometry& g, const uint8_t* codes, const T* dy, T* dx, T* sums, int64_t s, int64_t e) {
  if (DisjointWindows(g)) {
    BackwardImagesCoded<true>(g, codes, dy, dx, sums, s, e);
  } else {
    BackwardImagesCoded<false>(g, codes, dy, dx, sums, s, e);
  }
}

template <typename T>
void Backward(const Geometry& g, const T* x, const T* dy, T* dx, int64_t s, int64_t e) {
  if (DisjointWindows(g)) {
    BackwardImages<true, false, T>(g, x, dy, dx, nullptr, s, e);
  } else {
    BackwardImages<false, false, T>(g, x, dy, dx, nullptr, s, e);
  }
}

template <typename T>
void BackwardRelu(const Geometry& g, const T* x, const T* dy, T* dx, T* sums, int64_t s, int64_t e) {
  if (DisjointWindows(g)) {
    BackwardImages<true, true>(g, x, dy, dx, sums, s, e);
  } else {
    BackwardImages<false, true>(g, x, dy, dx, sums, s, e);
  }
}

template <typename T>
void Gather(const Geometry& g, const T* x, const T* grad, T* out, int64_t s, int64_t e) {
  std::vector<int64_t> taps(static_cast<size_t>(PoolWindowPixels(g)));
  for (int64_t u = s; u < e; ++u) {
    const int64_t offset = (u / g.oh) * g.in_image();
    for (int64_t ow = 0; ow < g.ow; ++ow) {
      const int64_t n = WindowTaps(g, u % g.oh, ow, taps.data());
      T* o = out + (u * g.ow + ow) * g.c;
      WithTapCount(n, [&](auto count) {
        ForEachPack<T>(g.c, [&](int64_t c0, auto pack) {
          PackGather<decltype(pack), decltype(count)::value>(x + offset + c0, grad + offset + c0, taps.data(), n,
                                                             o + c0);
        });
      });
    }
  }
}

inline LoopSet MakeLoopSet(const char* isa) {
  return {isa,
          {&Forward<float>, &Backward<float>, &BackwardRelu<float>, &Gather<float>, &ForwardTaps<float>,
           &BackwardReluTaps<float>},
          {&Forward<double>, &Backward<double>, &BackwardRelu<double>, &Gather<double>, &ForwardTaps<double>,
           &BackwardReluTaps<double>}};
}

}  // namespace tfg::nn::max_pool_loops::TFG_POOL_NS
