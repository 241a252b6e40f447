// Gradient rules shared between array ops' files.
#pragma once

#include "ops/autodiff/gradients.h"

namespace tfg {

// dx = reshape_like(dy, x): for ops that only change the shape (reshape,
// expand_dims, squeeze). Defined in reshape.cc.
Status ReshapeToInputGrad(GradContext& g);

}  // namespace tfg
