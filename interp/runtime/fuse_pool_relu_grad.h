// Pooling fusion, a rewrite of OptimizeGraph (graph_optimizer.h) that runs
// with the convolution fusion (fuse_conv.h): where max_pool read a relu's
// result, its gradient is
//   relu_grad(max_pool_grad(x, dy), x)
// and becomes one `max_pool_relu_grad(x, dy)` node (ops/nn/max_pool.cc),
// which routes each window's dy to its maximum only when that maximum is
// > 0: one pass over the image-sized gradient instead of two, and the
// largest such pass of a convolutional layer's backward step. The same
// bits as the pair (relu_grad keeps dy where x > 0, and the routed
// position holds the window's maximum). Only where nothing else sees the
// max_pool_grad's value (its one use is the relu_grad's, not fetched), the
// relu_grad masks by the max_pool_grad's own input, no member has control
// edges or is a run target, and both sit on the same device.
//
// The fused node's second output is its first summed over everything but
// the channels, computed as it routes (each window's gradient lands on one
// pixel): a bias_add_grad of the relu_grad (the bias gradient of the
// conv2d -> bias_add -> relu below the pool) that meets the same
// conditions reads it instead of reading the image-sized gradient again.
//
// Where the plan also has the max_pool of the same input and window (the
// forward pass of the same step), that max_pool becomes
// max_pool_with_taps, which keeps each window's argmax as a byte, and the
// fused gradient becomes max_pool_relu_grad_from_taps, which routes by
// those bytes instead of searching the image (ops/nn/max_pool_taps.cc):
// the image, a convolution's whole output, is then read once per step, not
// twice. Windows of up to 128 pixels; the same bits either way.
#pragma once

#include <vector>

#include "interp/runtime/fuse_elementwise.h"
#include "ops/core/graph.h"

namespace tfg {

// Adds the fused nodes to `g` and moves every use of each pair's relu_grad
// and bias_add_grad (consumers and `fetches`) to its fused node; the members are left
// without users for the caller to prune. Off with the convolution fusion
// (TFG_FUSE_CONV=0).
Result<FuseResult> FuseMaxPoolReluGrad(Graph& g, std::vector<Output>& fetches, const std::vector<Node*>& targets);

}  // namespace tfg
