// The symbolic gradient of one op for a chosen upstream gradient: builds
// `op` on placeholders, seeds AddGradients with `dy` at output 0 and runs
// the gradient graph. Lets gradient tests check exact values (ties, kinks,
// x == 0 in pow) that finite differences cannot, and check that gradients
// built on placeholders of unknown shape compute the same numbers.
#pragma once

#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/tensor.h"

namespace tfg::test {

enum class FeedShapes {
  kStatic,        // placeholders have the fed tensors' shapes
  kUnknownDims,   // float inputs' placeholders are [?, ?, ...] of the right rank
  kUnknownRank,   // float inputs' placeholders have unknown rank
};

struct SymbolicGradOptions {
  std::vector<int> wrt;  // empty: every float input
  FeedShapes shapes = FeedShapes::kStatic;
};

// dL/d(input i) for each i in wrt, where dL/d(output 0) = dy.
Result<std::vector<Tensor>> SymbolicGradients(const std::string& op, const std::vector<Tensor>& inputs,
                                              const AttrMap& attrs, const Tensor& dy,
                                              const SymbolicGradOptions& options = {});

// The output values of `op` on `inputs` through a graph (for y = f(x) to
// feed into gradient helpers, and for the shape of dy).
Result<std::vector<Tensor>> RunGraphOp(const std::string& op, const std::vector<Tensor>& inputs,
                                       const AttrMap& attrs = {});

}  // namespace tfg::test
