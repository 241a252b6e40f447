// A tfg graph -> a TensorFlow GraphDef that tf.compat.v1.import_graph_def
// loads: op names, attrs and dtypes mapped back through ops/tf_op_map.tsv,
// the attrs TensorFlow takes as inputs written as Const nodes, the type
// attrs TensorFlow requires (T, Tidx, N, ...) filled from the tensors'
// dtypes with tf_op_signatures.tsv. while_loop frames are tfg's own
// Enter/Merge/Switch/NextIteration/Exit nodes, so they export one for one.
#pragma once

#include <map>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

struct ExportOptions {
  // Export only what these nodes need (inputs and control inputs, followed
  // back); empty: the whole graph.
  std::vector<const Node*> roots;
  // Variables to write as Const nodes of these values (frozen).
  std::map<const Node*, Tensor> frozen;
  // Variable initializers (assign nodes): exported with their variables,
  // and grouped under a NoOp named `init_name` ("" for none).
  std::vector<const Node*> initializers;
  std::string init_name = "init";
};

// Errors list every tfg op type with no TensorFlow counterpart, with its
// count and first node, as import does for the other direction.
Result<tf::GraphDef> ExportGraphDef(const Graph& graph, const ExportOptions& opts = {});

}  // namespace tfg::interop
