// What block_ops_impl.h uses, included before any target pragma so that
// library code is compiled once, for the baseline instruction set.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/core/dtype_traits.h"
#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_loops.h"
#include "ops/math/cwise_special_functors.h"
#include "ops/math/gamma_functors.h"
#include "ops/math/reduce_functors.h"
#include "ops/nn/activation_functors.h"
#include "ops/math/fused/block_table.h"
