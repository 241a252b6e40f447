// Two binary members in one loop, included after block_ops_impl.h by
// block_ops.cc (baseline) and block_ops_avx2.cc (AVX2), in the namespace
// TFG_BLOCK_NS names. A block loop is bound by its stores (one per element
// and member), so a member whose result only the next member reads is
// computed in registers and handed on: half the stores. Only f32 and f64,
// whose intermediate value is exactly the stored one (an f16 member rounds
// its result to half; integer members have checks), and no FMA in either
// instruction set, so each product is rounded before it is added, as in
// the members' own kernels.
//
// No include guard on purpose (see block_ops_impl.h).

namespace tfg::fused::TFG_BLOCK_NS {

// out[i] = second(first(a[i], b[i * kSb]), c[i * kSc]) (kLeft),
// second(c[...], ...) (kRight) or second(t, t) with t = first(...)
// (kBoth); a stride-0 operand is read once, so one-element inputs take no
// cache.
template <typename F1, typename F2, typename T, PairForm kForm, int kSb, int kSc>
void PairLoop(const T* a, const T* b, const T* c, T* out, int64_t n) {
  const F1 f1{};
  const F2 f2{};
  const T b0 = b[0];
  const T c0 = kForm == PairForm::kBoth ? T(0) : c[0];
  for (int64_t i = 0; i < n; ++i) {
    const T t = f1(a[i], kSb ? b[i] : b0);
    if constexpr (kForm == PairForm::kLeft) {
      out[i] = f2(t, kSc ? c[i] : c0);
    } else if constexpr (kForm == PairForm::kRight) {
      out[i] = f2(kSc ? c[i] : c0, t);
    } else {
      out[i] = f2(t, t);
    }
  }
}

// `a` has stride 1 (the caller spreads a one-element first operand).
template <typename F1, typename F2, typename T, PairForm kForm>
void RunPair(const void* const* in, const int64_t* stride, void* out_v, int64_t n) {
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  const T* c = static_cast<const T*>(in[2]);
  T* out = static_cast<T*>(out_v);
  const bool sb = stride[1] != 0, sc = kForm != PairForm::kBoth && stride[2] != 0;
  if (sb && sc) {
    PairLoop<F1, F2, T, kForm, 1, 1>(a, b, c, out, n);
  } else if (sb) {
    PairLoop<F1, F2, T, kForm, 1, 0>(a, b, c, out, n);
  } else if (sc) {
    PairLoop<F1, F2, T, kForm, 0, 1>(a, b, c, out, n);
  } else {
    PairLoop<F1, F2, T, kForm, 0, 0>(a, b, c, out, n);
  }
}

// PairLoop's values added into the lanes of a sum as
// reduce::BlockLanes::Add adds a piece (element i into lane i % kLanes,
// the elements after the last whole kLanes into lane 0), and not stored:
// the lane adds then overlap the pair's arithmetic instead of running as a
// loop of their own.
template <typename F1, typename F2, typename T, PairForm kForm, int kSb, int kSc>
void PairSumLoop(const T* a, const T* b, const T* c, T* lanes, int64_t n) {
  const F1 f1{};
  const F2 f2{};
  const T b0 = b[0];
  const T c0 = kForm == PairForm::kBoth ? T(0) : c[0];
  auto value = [&](int64_t i) {
    const T t = f1(a[i], kSb ? b[i] : b0);
    if constexpr (kForm == PairForm::kLeft) {
      return f2(t, kSc ? c[i] : c0);
    } else if constexpr (kForm == PairForm::kRight) {
      return f2(kSc ? c[i] : c0, t);
    } else {
      return f2(t, t);
    }
  };
  constexpr int kLanes = reduce::kLanes<T>;
  T acc[kLanes];
  for (int j = 0; j < kLanes; ++j) acc[j] = lanes[j];
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] = functor::WrapAdd(acc[j], value(i + j));
  }
  for (; i < n; ++i) acc[0] = functor::WrapAdd(acc[0], value(i));
  for (int j = 0; j < kLanes; ++j) lanes[j] = acc[j];
}

template <typename F1, typename F2, typename T, PairForm kForm>
void RunPairSum(const void* const* in, const int64_t* stride, void* lanes_v, int64_t n) {
  const T* a = static_cast<const T*>(in[0]);
  const T* b = static_cast<const T*>(in[1]);
  const T* c = static_cast<const T*>(in[2]);
  T* lanes = static_cast<T*>(lanes_v);
  const bool sb = stride[1] != 0, sc = kForm != PairForm::kBoth && stride[2] != 0;
  if (sb && sc) {
    PairSumLoop<F1, F2, T, kForm, 1, 1>(a, b, c, lanes, n);
  } else if (sb) {
    PairSumLoop<F1, F2, T, kForm, 1, 0>(a, b, c, lanes, n);
  } else if (sc) {
    PairSumLoop<F1, F2, T, kForm, 0, 1>(a, b, c, lanes, n);
  } else {
    PairSumLoop<F1, F2, T, kForm, 0, 0>(a, b, c, lanes, n);
  }
}

template <typename F1, typename F2, typename T>
void AddPairForms(PairTable& t, const char* first, const char* second) {
  t[PairKey(first, second, kDTypeOf<T>, PairForm::kLeft)] = &RunPair<F1, F2, T, PairForm::kLeft>;
  t[PairKey(first, second, kDTypeOf<T>, PairForm::kRight)] = &RunPair<F1, F2, T, PairForm::kRight>;
  t[PairKey(first, second, kDTypeOf<T>, PairForm::kBoth)] = &RunPair<F1, F2, T, PairForm::kBoth>;
  t[PairSumKey(first, second, kDTypeOf<T>, PairForm::kLeft)] = &RunPairSum<F1, F2, T, PairForm::kLeft>;
  t[PairSumKey(first, second, kDTypeOf<T>, PairForm::kRight)] = &RunPairSum<F1, F2, T, PairForm::kRight>;
  t[PairSumKey(first, second, kDTypeOf<T>, PairForm::kBoth)] = &RunPairSum<F1, F2, T, PairForm::kBoth>;
}

template <typename F1, typename T>
void AddPairsAfter(PairTable& t, const char* first) {
  using namespace functor;
  AddPairForms<F1, Add, T>(t, first, "add");
  AddPairForms<F1, Sub, T>(t, first, "sub");
  AddPairForms<F1, Mul, T>(t, first, "mul");
  AddPairForms<F1, Div, T>(t, first, "div");
  AddPairForms<F1, Maximum, T>(t, first, "maximum");
  AddPairForms<F1, Minimum, T>(t, first, "minimum");
}

template <typename T>
void AddPairs(PairTable& t) {
  using namespace functor;
  AddPairsAfter<Add, T>(t, "add");
  AddPairsAfter<Sub, T>(t, "sub");
  AddPairsAfter<Mul, T>(t, "mul");
  AddPairsAfter<Div, T>(t, "div");
  AddPairsAfter<Maximum, T>(t, "maximum");
  AddPairsAfter<Minimum, T>(t, "minimum");
}

void TFG_PAIR_FILL(PairTable& t) {
  AddPairs<float>(t);
  AddPairs<double>(t);
}

}  // namespace tfg::fused::TFG_BLOCK_NS
