// lgamma's and digamma's scalar math (defined in gamma_functions.cc, whose
// kernels use these functors), shared with the fused elementwise kernel
// (ops/math/fused/block_ops_impl.h) so both compute the same bits. f16
// and f32 compute in f64.
#pragma once

namespace tfg::functor {

// log |Gamma(x)|, reentrant (std::lgamma writes the global signgam).
double LogGamma(double x);
// d/dx log |Gamma(x)|; NaN at the poles 0, -1, -2, ...
double DigammaF64(double x);

struct Lgamma {
  template <typename T>
  T operator()(T x) const { return static_cast<T>(LogGamma(static_cast<double>(x))); }
};
struct Digamma {
  template <typename T>
  T operator()(T x) const { return static_cast<T>(DigammaF64(static_cast<double>(x))); }
};

}  // namespace tfg::functor
