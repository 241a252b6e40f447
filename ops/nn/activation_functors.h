// The scalar math of the activations in ops/nn/activations.cc (leaky_relu,
// elu, softplus, relu6 and their `_grad` helpers), shared with the fused
// elementwise kernel (ops/math/fused/block_ops_impl.h) so both compute the
// same bits. C is the compute type: float for f16 and f32, double for f64;
// `alpha` is leaky_relu's attr (ignored by the others).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tfg::nn {

struct LeakyRelu {
  template <typename C>
  static C F(C x, C alpha) {
    return x > C(0) ? x : alpha * x;
  }
  template <typename C>
  static C Slope(C x, C alpha) {
    return x > C(0) ? C(1) : alpha;
  }
};

struct Elu {
  template <typename C>
  static C F(C x, C) {
    return x > C(0) ? x : std::expm1(x);
  }
  template <typename C>
  static C Slope(C x, C) {
    return x > C(0) ? C(1) : std::exp(x);
  }
};

// softplus(x) = log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), which never
// overflows. For f16 and f32, four lanes at a time with GCC's vector
// extensions (the autovectorizer gives up on the selects under
// -ftrapping-math): exp(-|x|) in float by Cephes' polynomial, then log1p
// and the sum in double, rounded once. Measured against a long double
// reference on 2M values in [-120, 120]: at most 1 ulp off (as libm's
// float formula), 91% correctly rounded. One element goes through the
// same lanes, so a block and an element agree bit for bit. f64 keeps
// libm's exp and log1p: these polynomials are not accurate to a double's
// last bit.
namespace softplus_detail {

// One SSE2 register each (wider vectors would change the calling
// convention between the baseline and AVX2 copies, -Wpsabi).
typedef float Floats4 __attribute__((vector_size(16)));
typedef int32_t Ints4 __attribute__((vector_size(16)));
typedef double Doubles2 __attribute__((vector_size(16)));
typedef float Floats2 __attribute__((vector_size(8)));

// exp(t) for t in [-104, 0] (the caller clamps; exp(-104) rounds to 0 in
// float): t = n ln2 + r, |r| <= ln2 / 2, exp(r) by Cephes' expf
// polynomial, times 2^n as two powers of two built in the exponent bits
// (one would not reach the subnormals).
inline Floats4 ExpNonPositive(Floats4 t) {
  constexpr float kShift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const Floats4 shifted = t * 1.44269504088896341f + kShift;
  const Floats4 n = shifted - kShift;
  const Floats4 r = (t - n * 0.693359375f) - n * -2.12194440e-4f;  // ln 2 in two parts (Cody and Waite)
  Floats4 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const Ints4 n_int = reinterpret_cast<Ints4>(shifted) - 0x4b400000;  // kShift's bits
  const Ints4 n1 = n_int >> 1, n2 = n_int - n1;
  return p * reinterpret_cast<Floats4>((n1 + 127) << 23) * reinterpret_cast<Floats4>((n2 + 127) << 23);
}

// max(x, 0) + log1p(e) for e in [0, 1], in double: log1p(e) = 2 atanh(s),
// s = e / (2 + e) in [0, 1/3], by atanh's series to s^15 (relative error
// < 2e-9, a few hundredths of a float ulp; no cancellation for tiny e).
inline Doubles2 ReluPlusLog1p(Doubles2 relu, Doubles2 e) {
  const Doubles2 h = 2.0 * e / (2.0 + e);  // 2s
  const Doubles2 s2 = 0.25 * h * h;
  Doubles2 q = s2 * (1.0 / 15) + 1.0 / 13;
  q = q * s2 + 1.0 / 11;
  q = q * s2 + 1.0 / 9;
  q = q * s2 + 1.0 / 7;
  q = q * s2 + 1.0 / 5;
  q = q * s2 + 1.0 / 3;
  q = q * s2 + 1.0;
  return relu + h * q;
}

inline Floats2 Half(Floats4 v, int k) { return Floats2{v[2 * k], v[2 * k + 1]}; }

// Four floats' softplus. A NaN stays NaN: the selects keep it in max(x, 0)
// and in the clamp.
inline Floats4 SoftplusLanes(Floats4 x) {
  const Floats4 zero = {0, 0, 0, 0};
  const Floats4 floor = {-104.0f, -104.0f, -104.0f, -104.0f};
  const Floats4 neg_abs = x < zero ? x : -x;
  const Floats4 t = neg_abs < floor ? floor : neg_abs;
  const Floats4 relu = x < zero ? zero : x;
  const Floats4 e = ExpNonPositive(t);
  Floats2 y[2];
  for (int k = 0; k < 2; ++k) {
    const Doubles2 sum = ReluPlusLog1p(__builtin_convertvector(Half(relu, k), Doubles2),
                                       __builtin_convertvector(Half(e, k), Doubles2));
    y[k] = __builtin_convertvector(sum, Floats2);
  }
  return Floats4{y[0][0], y[0][1], y[1][0], y[1][1]};
}

// y[i] = softplus(x[i]) for i < n; y may be x.
inline void SoftplusFloats(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    Floats4 v;
    std::memcpy(&v, x + i, sizeof v);
    v = SoftplusLanes(v);
    std::memcpy(y + i, &v, sizeof v);
  }
  if (i < n) {
    Floats4 v = {0, 0, 0, 0};
    std::memcpy(&v, x + i, (n - i) * sizeof(float));
    v = SoftplusLanes(v);
    std::memcpy(y + i, &v, (n - i) * sizeof(float));
  }
}

}  // namespace softplus_detail

struct Softplus {
  template <typename C>
  static C F(C x, C) {
    if constexpr (sizeof(C) == sizeof(float)) {
      float y;
      softplus_detail::SoftplusFloats(&x, &y, 1);
      return y;
    } else {
      return std::max(x, C(0)) + std::log1p(std::exp(-std::abs(x)));
    }
  }
  // F on n floats (the same bits), four at a time.
  static void FloatBlock(const float* x, float* y, int64_t n) { softplus_detail::SoftplusFloats(x, y, n); }
  // The logistic sigmoid, without overflow for large |x|.
  template <typename C>
  static C Slope(C x, C) {
    const C e = std::exp(-std::abs(x));
    return x >= C(0) ? C(1) / (C(1) + e) : e / (C(1) + e);
  }
};

struct Relu6 {
  template <typename C>
  static C F(C x, C) {
    return std::min(std::max(x, C(0)), C(6));
  }
  template <typename C>
  static C Slope(C x, C) {
    return x > C(0) && x < C(6) ? C(1) : C(0);
  }
};

}  // namespace tfg::nn
