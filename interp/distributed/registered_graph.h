// A partition a master registered on a worker: its plan, built once, and
// the feeds each step must supply.
#pragma once

#include <memory>
#include <vector>

#include "interp/runtime/plan.h"
#include "ops/core/status.h"

namespace tfg {

struct RegisteredGraph {
  std::shared_ptr<const Plan> plan;
  std::vector<Output> feeds;  // in the plan's graph: what each fed value must match
};

// A feed from the network must be what its placeholder takes: kernels
// trust the dtype and shape of their inputs.
Status CheckFeeds(const RegisteredGraph& g, const std::vector<Tensor>& values);

}  // namespace tfg
