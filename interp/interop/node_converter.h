// One TensorFlow NodeDef -> the tfg node(s) that compute it (importer.h
// drives it in topological order).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "interp/interop/importer.h"

namespace tfg::interop {

// What the converter knows of nodes built before this one.
class ImportedTensors {
 public:
  virtual ~ImportedTensors() = default;
  // The tfg tensor for a TensorFlow input "name:k" / "name".
  virtual Result<Output> Resolve(const std::string& input) = 0;
  // The NodeDef a TensorFlow input names (null if none), to read constants.
  virtual const tf::NodeDef* Def(const std::string& input) const = 0;
};

struct ConvertedNode {
  Node* node = nullptr;          // the node run for effect (null when input_map replaced it)
  std::vector<Output> outputs;   // TensorFlow output k -> tfg tensor
};

// Whether tfg can import nodes of this TensorFlow op.
bool CanImport(const std::string& tf_op);

// `inputs`/`controls`: the node's resolved data and control inputs.
// Big constants' bytes are moved out of `def` into the tfg tensor.
Result<ConvertedNode> ConvertNode(tf::NodeDef& def, const std::vector<Output>& inputs,
                                  const std::vector<Node*>& controls, ImportedTensors& known,
                                  const ImportOptions& opts, const AddNodeFn& add);

// "<scope>/<name>" (or the name alone for an empty scope).
std::string Scoped(const ImportOptions& opts, const std::string& name);

}  // namespace tfg::interop
