// TensorFlow 2's functional control flow -> TensorFlow 1 frames, as
// TensorFlow's own lowering pass (lower_if_op.cc, lower_while_op.cc) does
// it, before import: each If/StatelessIf becomes Switch nodes in front of
// its two branch functions and a Merge of their outputs; each
// While/StatelessWhile becomes Enter/Merge/LoopCond/Switch/Exit/
// NextIteration around its cond and body functions; a Case/StatelessCase
// becomes a cascade of Switches on index == k in front of its branches. The bodies come from
// the GraphDef's function library (function_inliner.h); nested ones are
// lowered in turn. The importer then maps these frame ops onto tfg's.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ops/core/status.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

bool IsFunctionalControlFlow(const std::string& tf_op);

// Outputs "node:k" of the graph's own If/While nodes and the tensor that
// now computes each, so that import_graph_def's dict still has them.
using LoweredOutputs = std::vector<std::pair<std::string, std::string>>;

// Rewrites `def` in place; a no-op for graphs without If/While nodes.
// The If/While node keeps its name as a NoOp that waits for its outputs
// (for "^node" control inputs); readers of its outputs are rewired.
Result<LoweredOutputs> LowerFunctionalControlFlow(tf::GraphDef& def);

}  // namespace tfg::interop
