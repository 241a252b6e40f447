// What one run of a node costs, in arithmetic operations, as the placer's
// cost model (interp/runtime/placement_cost.h) prices it. An op declares
// its cost function next to its shape function (OpDefBuilder::SetCostFn);
// an op without one costs ElementwiseCost. Shapes are the static ones the
// graph knows: an unknown dimension counts as 1, so an estimate is a lower
// bound that still ranks large ops above small ones.
#pragma once

#include "ops/core/graph.h"
#include "ops/core/shape.h"

namespace tfg {

// Elements of `s`, an unknown dimension (or rank) counting as 1.
double KnownElements(const PartialShape& s);
// Dimension `i` of `s`, 1 when unknown or out of range.
double KnownDim(const PartialShape& s, int i);
// One operation per element of every input and output: the cost of memory-
// bound ops (elementwise arithmetic, copies, reductions).
double ElementwiseCost(const Node& node);
// The node's op's cost function, or ElementwiseCost.
double OpCost(const Node& node);

}  // namespace tfg
