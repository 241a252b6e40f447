// Convolution fusion, a rewrite of OptimizeGraph (graph_optimizer.h) that
// runs before elementwise fusion: a chain
//   conv2d -> bias_add [-> relu]
// becomes one `conv2d_bias_activation` node (ops/nn/conv2d_bias_activation.cc,
// activation "relu" or "none"), whose oneDNN kernel adds the bias and
// applies ReLU as the convolution writes its output, instead of two more
// passes over memory. Only f32, and only where nothing else sees the
// values in between: the conv2d's result must be used once, as the
// bias_add's value, and not fetched; the relu joins when it is the
// bias_add's only user and the bias_add is not fetched (else the chain
// ends at the bias_add, activation "none", and the relu stays). Members
// with control edges either way, run targets and nodes on different
// devices are left alone.
//
// Gradients are graph nodes built before this runs, and none of the
// chain's gradient nodes reads a value the fused node hides (conv2d's
// backprops read its inputs, bias_add_grad the incoming gradient,
// relu_grad relu's result: the fused node's output).
#pragma once

#include <vector>

#include "interp/runtime/fuse_elementwise.h"
#include "ops/core/graph.h"

namespace tfg {

// False when the environment has TFG_FUSE_CONV=0 (for comparisons): then
// no convolution is fused.
bool ConvFusionEnabled();

// Adds the fused nodes to `g` and moves every use of a chain's last node
// (consumers and `fetches`) to its fused node; the members are left
// without users for the caller to prune. `groups` counts fused nodes,
// `members` the nodes they stand for.
Result<FuseResult> FuseConvBiasActivation(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets);

}  // namespace tfg
