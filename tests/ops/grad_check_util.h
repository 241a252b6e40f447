// Finite-difference gradient checking for ops: builds `op` on f64
// placeholders, reduces its float outputs to a scalar with fixed random
// weights, adds the symbolic gradient with AddGradients and compares it
// against central differences of the same graph.
#pragma once

#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/tensor.h"

namespace tfg::test {

struct GradCheckOptions {
  // Inputs to differentiate with respect to; empty: every float input.
  std::vector<int> wrt;
  double step = 1e-6;
  // |symbolic - numeric| <= tolerance * (1 + |numeric|) for every element.
  double tolerance = 1e-5;
};

struct GradCheckResult {
  double max_error = 0;   // the largest scaled error seen
  std::string worst;      // "input 1 [flat 5]: symbolic 0.25, numeric 0.2500001"
};

// Inputs must be f64 for float arguments (ints for indices etc.); fails
// when the op has no gradient, the graph cannot be built or run, or the
// error exceeds the tolerance (the message names the worst element).
Result<GradCheckResult> CheckGradient(const std::string& op, const std::vector<Tensor>& inputs,
                                      const AttrMap& attrs = {}, const GradCheckOptions& options = {});

// Deterministic f64 values in [lo, hi) for test inputs.
Tensor RandomF64(const TensorShape& shape, double lo = -1.0, double hi = 1.0, uint32_t seed = 1);

}  // namespace tfg::test

// EXPECT_GRADIENT_OK("matmul", {a, b}, attrs) in a test body.
#define EXPECT_GRADIENT_OK(...)                                                        \
  do {                                                                                 \
    auto tfg_grad_check_ = ::tfg::test::CheckGradient(__VA_ARGS__);                    \
    EXPECT_TRUE(tfg_grad_check_.ok()) << tfg_grad_check_.status().ToString();         \
  } while (0)
