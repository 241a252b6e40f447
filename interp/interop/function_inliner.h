// Copies one FunctionDef of a GraphDef's library into the graph itself,
// as TensorFlow's function inlining does: its nodes get a name prefix,
// its input args become the caller's tensors and its FunctionDef-style
// input names ("node:out_arg:index") become GraphDef ones ("node:k").
// lower_functional.h uses it to expand If/While bodies.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ops/core/status.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

// Node names of the graph, and fresh ones: "a/b", else "a/b_1", "a/b_2", ...
class NodeNames {
 public:
  explicit NodeNames(const tf::GraphDef& def);
  std::string Fresh(const std::string& wanted);

 private:
  std::set<std::string> used_;
};

struct InlineRequest {
  const tf::FunctionDef* fn = nullptr;
  std::string prefix;               // "while/body/": the copied nodes' names start with it
  std::vector<std::string> args;    // GraphDef tensor ("node:k") for each input arg
  std::string pivot;                // nodes with no inputs get "^pivot" (their frame / branch)
  std::string device;               // for copied nodes that have none
};

// The flat output index of `out_arg`[index] of a node, from TensorFlow's
// signature of its op (tf_op_signatures.tsv).
Result<int> FlatOutputIndex(const tf::NodeDef& node, const std::string& out_arg, int index);

// Appends the function's nodes to `def` and returns the GraphDef tensor
// of each of its output args, in signature order. Errors name the
// function and node.
Result<std::vector<std::string>> InlineFunction(const InlineRequest& req, NodeNames& names, tf::GraphDef& def);

}  // namespace tfg::interop
