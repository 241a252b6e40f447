// The dataflow graph (the IR). Nodes are created only through
// Graph::AddNode, which checks inputs against the op's signature, infers
// type attrs, fills attr defaults, runs the shape function and gives the
// node a unique name — so every node in a graph is well-typed, and errors
// surface at the script line that built the node.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/op_registry.h"
#include "ops/core/source.h"

namespace tfg {

class Node;
class Graph;

// One output of a node: the source end of a data edge.
struct Output {
  Node* node = nullptr;
  int index = 0;
  bool operator==(const Output& o) const { return node == o.node && index == o.index; }
  bool operator!=(const Output& o) const { return !(*this == o); }
  DType dtype() const;
  const PartialShape& shape() const;
  // "layer1/matmul:0": node name and output index, as errors and run() name it.
  std::string name() const;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return name_; }
  const OpDef& op() const { return *op_; }
  const std::string& op_name() const { return op_->name; }
  const std::vector<Output>& inputs() const { return inputs_; }
  const std::vector<Node*>& control_inputs() const { return control_inputs_; }
  const AttrMap& attrs() const { return attrs_; }
  const std::vector<DType>& input_types() const { return input_types_; }
  const std::vector<DType>& output_types() const { return output_types_; }
  const std::vector<PartialShape>& output_shapes() const { return output_shapes_; }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  Output output(int i) { return Output{this, i}; }
  const SourceSpan& span() const { return span_; }
  const std::string& requested_device() const { return requested_device_; }
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string d) { assigned_device_ = std::move(d); }
  // Control edges may be added after creation (with deps(...) on existing
  // ops, group of existing ops).
  void AddControlInput(Node* n);
  // Refines an output shape (e.g. set_shape); must be compatible.
  Status RefineOutputShape(int i, const PartialShape& s);
  // Replaces data input i by `src` of the same dtype. A loop's merge is
  // built before the next_iteration that feeds it back, so this is how the
  // graph gets its one kind of cycle (while_loop, and the backward loops
  // grad builds for it); grad also moves the inputs of gradient nodes into
  // a backward loop with it.
  Status ReplaceInput(int i, Output src);

  template <typename T>
  const T* attr(const std::string& attr_name) const { return FindAttr<T>(attrs_, attr_name); }

 private:
  friend class Graph;
  int id_ = 0;
  std::string name_;
  const OpDef* op_ = nullptr;
  std::vector<Output> inputs_;
  std::vector<Node*> control_inputs_;
  AttrMap attrs_;
  std::vector<DType> input_types_;
  std::vector<DType> output_types_;
  std::vector<PartialShape> output_shapes_;
  std::string requested_device_;
  std::string assigned_device_;
  SourceSpan span_;
  Graph* graph_ = nullptr;
};

// What the builder asks for. `name` is the full requested name (scopes
// already applied); the graph makes it unique by appending _1, _2, ...
struct NodeSpec {
  std::string op;
  std::vector<Output> inputs;  // list inputs flattened in place
  std::vector<Node*> control_inputs;
  AttrMap attrs;
  std::string name;            // empty: the op name
  std::string device;
  SourceSpan span;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  Result<Node*> AddNode(NodeSpec spec);

  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  Node* node(int id) const { return nodes_[id].get(); }
  Node* FindNode(const std::string& name) const;
  // Grows by one for every node added: plans remember the version they were
  // built at, and the REPL/leak check compare versions.
  int64_t version() const { return static_cast<int64_t>(nodes_.size()); }
  // Grows when an existing node changes (a control input added, a shape
  // refined): cached plans built before that must be rebuilt.
  int64_t edits() const { return edits_; }

 private:
  std::string UniqueName(const std::string& base);
  friend class Node;
  std::vector<std::unique_ptr<Node>> nodes_;
  int64_t edits_ = 0;
  std::unordered_map<std::string, Node*> by_name_;
  std::unordered_map<std::string, int> name_counts_;
};

// Signature checking shared by graph building and eager execution: given an
// op, the dtypes of its flattened inputs and the caller's attrs, fills in
// inferred type attrs, list counts and defaults, checks attr types and
// allowed dtypes, and returns the input and output dtypes. Errors name the
// op and the offending parameter.
struct Signature {
  std::vector<DType> input_types;
  std::vector<DType> output_types;
};
Result<Signature> ResolveSignature(const OpDef& op, const std::vector<DType>& input_dtypes, AttrMap& attrs);

}  // namespace tfg
