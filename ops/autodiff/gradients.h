// Symbolic differentiation (white paper §4.1): grad(ys, xs) walks the graph
// backwards from ys and adds, for every node on a path from xs to ys, the
// nodes its op's gradient function builds. Each op declares that function
// next to its kernels (OpDefBuilder::SetGradFn), as a short rule written
// with the helpers below.
#pragma once

#include <string>
#include <vector>

#include "ops/core/graph.h"

namespace tfg {

struct GradContext {
  Graph* graph = nullptr;
  Node* node = nullptr;  // the forward node being differentiated
  // dL/d(output i); `node == nullptr` where no gradient reached output i
  // (use OutputGrad(i), which substitutes zeros).
  std::vector<Output> output_grads;
  // To fill in: dL/d(input i); leave `node == nullptr` for "no gradient"
  // (integer inputs, indices, shapes).
  std::vector<Output> input_grads;

  Output input(int i) const { return node->inputs()[i]; }
  Output output(int i) const { return Output{node, i}; }
  // dL/d(output i), zeros of the output's shape when none reached it.
  Result<Output> OutputGrad(int i);

  // Adds a node named "gradients/<forward name>/<op>" at the forward
  // node's source span (so a failure points at the user's line).
  Result<Output> Op(const std::string& op, std::vector<Output> inputs, AttrMap attrs = {});
  Result<Node*> OpNode(const std::string& op, std::vector<Output> inputs, AttrMap attrs = {});
  // A scalar constant of `dtype`.
  Result<Output> Scalar(double value, DType dtype);
  // Sums `grad` down to the run-time shape of `like`, undoing NumPy
  // broadcasting (a no-op when the static shapes already agree).
  Result<Output> Unbroadcast(Output grad, Output like);
};

// Adds the gradient subgraph and returns dL/dx for every x (summed over
// all paths). `grad_ys` may be empty (ones) or give one seed per y. Errors:
// an x that no y depends on (named, with its line), an op on the path with
// no gradient function, a non-float y.
Result<std::vector<Output>> AddGradients(Graph& graph, const std::vector<Output>& ys,
                                         const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                                         const SourceSpan& span);
// The same, but an x no y depends on gets `node == nullptr` instead of an
// error (grad() of a variable sums over its read nodes, some of which may
// not lead to the loss).
Result<std::vector<Output>> AddGradientsPartial(Graph& graph, const std::vector<Output>& ys,
                                                const std::vector<Output>& xs, const std::vector<Output>& grad_ys,
                                                const SourceSpan& span);

}  // namespace tfg
