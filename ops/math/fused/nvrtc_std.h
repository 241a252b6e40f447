// NOT for the host compiler: the few pieces of <cmath>, <cstdint>,
// <limits> and <type_traits> that the shared functors
// (ops/math/cwise_functors.h, cwise_special_functors.h) use, for NVRTC.
// NVRTC ships no C++ standard headers, and a GPU machine may have no CUDA
// toolkit headers either, so fused GPU kernels (fused_cuda_source.cc)
// hand NVRTC this file under each of those four names. The math
// functions are CUDA's own device functions, the ones nvcc's <cmath>
// calls in the single-op GPU kernels.
// One file under four names: an include guard, not #pragma once (which
// goes by name).
#ifndef TFG_NVRTC_STD_H_
#define TFG_NVRTC_STD_H_

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef unsigned long size_t;

namespace std {

using ::int8_t;
using ::int16_t;
using ::int32_t;
using ::int64_t;
using ::uint8_t;
using ::uint16_t;
using ::uint32_t;
using ::uint64_t;
using ::size_t;

template <typename T, T v>
struct integral_constant {
  static constexpr T value = v;
};
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;

template <typename A, typename B> struct is_same : false_type {};
template <typename A> struct is_same<A, A> : true_type {};
template <typename A, typename B> inline constexpr bool is_same_v = is_same<A, B>::value;

template <typename T> struct is_integral : false_type {};
template <> struct is_integral<bool> : true_type {};
template <> struct is_integral<char> : true_type {};
template <> struct is_integral<signed char> : true_type {};
template <> struct is_integral<unsigned char> : true_type {};
template <> struct is_integral<short> : true_type {};
template <> struct is_integral<unsigned short> : true_type {};
template <> struct is_integral<int> : true_type {};
template <> struct is_integral<unsigned int> : true_type {};
template <> struct is_integral<long> : true_type {};
template <> struct is_integral<unsigned long> : true_type {};
template <> struct is_integral<long long> : true_type {};
template <> struct is_integral<unsigned long long> : true_type {};
template <typename T> inline constexpr bool is_integral_v = is_integral<T>::value;

template <typename T> struct is_floating_point : false_type {};
template <> struct is_floating_point<float> : true_type {};
template <> struct is_floating_point<double> : true_type {};
template <typename T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;

template <typename T> inline constexpr bool is_signed_v = (is_integral_v<T> || is_floating_point_v<T>) && T(-1) < T(0);

template <bool B, typename T, typename F> struct conditional { using type = T; };
template <typename T, typename F> struct conditional<false, T, F> { using type = F; };
template <bool B, typename T, typename F> using conditional_t = typename conditional<B, T, F>::type;

template <typename T> struct make_unsigned { using type = T; };
template <> struct make_unsigned<signed char> { using type = unsigned char; };
template <> struct make_unsigned<char> { using type = unsigned char; };
template <> struct make_unsigned<short> { using type = unsigned short; };
template <> struct make_unsigned<int> { using type = unsigned int; };
template <> struct make_unsigned<long> { using type = unsigned long; };
template <> struct make_unsigned<long long> { using type = unsigned long long; };
template <typename T> using make_unsigned_t = typename make_unsigned<T>::type;

template <typename T> struct numeric_limits;
template <> struct numeric_limits<float> {
  __host__ __device__ static constexpr float max() { return 3.40282347e+38f; }
  __host__ __device__ static constexpr float min() { return 1.17549435e-38f; }
  __host__ __device__ static constexpr float lowest() { return -3.40282347e+38f; }
  __host__ __device__ static constexpr float epsilon() { return 1.19209290e-07f; }
  __device__ static float infinity() { return __int_as_float(0x7f800000); }
  __device__ static float quiet_NaN() { return __int_as_float(0x7fc00000); }
};
template <> struct numeric_limits<double> {
  __host__ __device__ static constexpr double max() { return 1.7976931348623157e+308; }
  __host__ __device__ static constexpr double min() { return 2.2250738585072014e-308; }
  __host__ __device__ static constexpr double lowest() { return -1.7976931348623157e+308; }
  __host__ __device__ static constexpr double epsilon() { return 2.2204460492503131e-16; }
  __device__ static double infinity() { return __longlong_as_double(0x7ff0000000000000LL); }
  __device__ static double quiet_NaN() { return __longlong_as_double(0x7ff8000000000000LL); }
};
template <typename T> struct integer_limits {
  __host__ __device__ static constexpr T min() {
    return is_signed_v<T> ? T(T(1) << (sizeof(T) * 8 - 1)) : T(0);
  }
  __host__ __device__ static constexpr T max() { return T(~min()); }
  __host__ __device__ static constexpr T lowest() { return min(); }
};
template <> struct numeric_limits<signed char> : integer_limits<signed char> {};
template <> struct numeric_limits<unsigned char> : integer_limits<unsigned char> {};
template <> struct numeric_limits<short> : integer_limits<short> {};
template <> struct numeric_limits<unsigned short> : integer_limits<unsigned short> {};
template <> struct numeric_limits<int> : integer_limits<int> {};
template <> struct numeric_limits<unsigned int> : integer_limits<unsigned int> {};
template <> struct numeric_limits<long long> : integer_limits<long long> {};
template <> struct numeric_limits<unsigned long long> : integer_limits<unsigned long long> {};

// As libstdc++'s <cmath> does for nvcc: the float overload calls the
// float function (tanhf), never the double one on a promoted value, so a
// member computes what its own GPU kernel computes.
#define TFG_NVRTC_UNARY(name)                                              \
  __device__ inline float name(float x) { return ::name##f(x); }          \
  __device__ inline double name(double x) { return ::name(x); }
#define TFG_NVRTC_BINARY(name)                                                       \
  __device__ inline float name(float x, float y) { return ::name##f(x, y); }        \
  __device__ inline double name(double x, double y) { return ::name(x, y); }
TFG_NVRTC_UNARY(acos)
TFG_NVRTC_UNARY(asin)
TFG_NVRTC_UNARY(atan)
TFG_NVRTC_UNARY(ceil)
TFG_NVRTC_UNARY(cos)
TFG_NVRTC_UNARY(cosh)
TFG_NVRTC_UNARY(erf)
TFG_NVRTC_UNARY(erfc)
TFG_NVRTC_UNARY(exp)
TFG_NVRTC_UNARY(expm1)
TFG_NVRTC_UNARY(fabs)
TFG_NVRTC_UNARY(floor)
TFG_NVRTC_UNARY(lgamma)
TFG_NVRTC_UNARY(log)
TFG_NVRTC_UNARY(log1p)
TFG_NVRTC_UNARY(round)
TFG_NVRTC_UNARY(sin)
TFG_NVRTC_UNARY(sinh)
TFG_NVRTC_UNARY(sqrt)
TFG_NVRTC_UNARY(tan)
TFG_NVRTC_UNARY(tanh)
TFG_NVRTC_BINARY(atan2)
TFG_NVRTC_BINARY(copysign)
TFG_NVRTC_BINARY(fmod)
TFG_NVRTC_BINARY(pow)
#undef TFG_NVRTC_UNARY
#undef TFG_NVRTC_BINARY
__device__ inline float abs(float x) { return ::fabsf(x); }
__device__ inline double abs(double x) { return ::fabs(x); }
__device__ inline int abs(int x) { return ::abs(x); }
__device__ inline long long abs(long long x) { return ::llabs(x); }
__device__ inline bool isnan(float x) { return ::isnan(x); }
__device__ inline bool isnan(double x) { return ::isnan(x); }
__device__ inline bool isinf(float x) { return ::isinf(x); }
__device__ inline bool isinf(double x) { return ::isinf(x); }
__device__ inline bool isfinite(float x) { return ::isfinite(x); }
__device__ inline bool isfinite(double x) { return ::isfinite(x); }

}  // namespace std

#endif  // TFG_NVRTC_STD_H_
