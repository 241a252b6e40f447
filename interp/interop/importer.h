// TensorFlow GraphDef -> nodes of a tfg graph, as tf.import_graph_def
// does it: every node under a name scope, placeholders optionally wired
// to the caller's tensors (input_map). Ops and attrs are translated with
// ops/tf_op_map.tsv (tf_tables.h); NCHW convolutions and pools get
// transposes around them; TensorFlow 1 while loops (Enter/Merge/Switch/
// NextIteration/Exit/LoopCond) become the same frame ops in tfg, with the
// NextIteration -> Merge back edge closed at the end; TensorFlow 2's
// If/While/Case are first lowered to those (lower_functional.h); VariableV2
// and resource variables become tfg `variable` nodes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ops/core/graph.h"
#include "ops/core/status.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

struct ImportOptions {
  std::string scope = "import";             // nodes are named <scope>/<TensorFlow name>; "" for none
  std::map<std::string, Output> input_map;  // "x:0" (or "x") -> the tensor used instead
  SourceSpan span;                          // where errors point (the import_graph_def call)
};

// How nodes are added: the script's evaluator (with its `with` scopes) or
// a bare Graph::AddNode (tests, the fuzz target).
using AddNodeFn = std::function<Result<Node*>(NodeSpec)>;

struct ImportedGraph {
  std::vector<std::pair<std::string, Output>> tensors;  // "name:0" -> tensor, every output of every node
  std::vector<std::pair<std::string, Node*>> ops;       // "name" -> node, for nodes run for effect
};

// The ops of `def` that tfg cannot import, as one error listing each op
// type with its count and first node; OK when every op is covered.
Status CheckCoverage(const tf::GraphDef& def);

// Big constants' bytes are moved out of `def` (see TakeTensorProto).
Result<ImportedGraph> ImportGraphDef(tf::GraphDef& def, const ImportOptions& opts, const AddNodeFn& add);

}  // namespace tfg::interop
