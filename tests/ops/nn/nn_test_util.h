// Inputs for the nn op tests. Gen mirrors gen() of the NumPy scripts that
// computed the expected values recorded in the tests:
//   gen(shape, a, b, m, s) = ((arange(n) * a + b) % m - m // 2) / s
// (small dyadic values, exact in every float dtype).
#pragma once

#include <vector>

#include "tests/ops/op_test_util.h"

namespace tfg::test {

inline Tensor Gen(DType dtype, const TensorShape& shape, int64_t a, int64_t b, int64_t m, double s) {
  std::vector<double> v(static_cast<size_t>(shape.num_elements()));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<double>((static_cast<int64_t>(i) * a + b) % m - m / 2) / s;
  }
  return MakeTensorOf(dtype, v, shape);
}

// A tolerance for values of magnitude up to ~10 computed in `dtype`.
inline double Tol(DType dtype) { return dtype == DType::kF16 ? 2e-2 : dtype == DType::kF32 ? 1e-5 : 1e-12; }

}  // namespace tfg::test
