// Which nodes an export writes, and which node stands for a variable that
// several nodes share (interp/interop/export_selection.h).
#include "interp/interop/export_selection.h"

namespace tfg::interop {

namespace {

// The attrs by which a node names variables: the op's variable parameters
// (apply_adam's var, m, v) and a scatter op's shared_name.
std::vector<std::string> VariableAttrs(const Node& n) {
  std::vector<std::string> out = n.op().variables;
  if (out.empty() && n.attr<std::string>("shared_name")) out.push_back("shared_name");
  return out;
}

}  // namespace

void KeepPlainest(std::map<std::string, const Node*>& by_name, const Node* var) {
  const Node*& kept = by_name[*var->attr<std::string>("shared_name")];
  if (!kept || (!kept->control_inputs().empty() && var->control_inputs().empty())) kept = var;
}

std::vector<const Node*> SelectedForExport(const Graph& g, const ExportOptions& opts) {
  std::vector<const Node*> out;
  if (opts.roots.empty()) {
    for (const auto& n : g.nodes()) out.push_back(n.get());
    return out;
  }
  std::vector<bool> keep(g.num_nodes(), false);
  std::vector<const Node*> stack(opts.roots.begin(), opts.roots.end());
  std::map<std::string, const Node*> init_of;  // shared_name -> its initializer
  for (const Node* i : opts.initializers) {
    if (const std::string* s = i->attr<std::string>("shared_name")) init_of[*s] = i;
  }
  std::map<std::string, const Node*> variable_named;  // shared_name -> its variable node
  for (const auto& n : g.nodes()) {
    if (n->op_name() == "variable") KeepPlainest(variable_named, n.get());
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (keep[n->id()]) continue;
    keep[n->id()] = true;
    for (const Output& in : n->inputs()) stack.push_back(in.node);
    for (const Node* c : n->control_inputs()) stack.push_back(c);
    // The variables an update op names by attr (apply_adam's var, m, v) are its TensorFlow inputs.
    if (n->op_name() != "variable") {
      for (const std::string& attr : VariableAttrs(*n)) {
        const std::string* shared = n->attr<std::string>(attr);
        if (auto it = shared ? variable_named.find(*shared) : variable_named.end(); it != variable_named.end()) {
          stack.push_back(it->second);
        }
      }
    }
    if (n->op_name() == "variable" && !opts.frozen.count(n)) {
      if (auto it = init_of.find(*n->attr<std::string>("shared_name")); it != init_of.end()) {
        stack.push_back(it->second);
      }
    }
  }
  for (const auto& n : g.nodes()) {
    if (keep[n->id()]) out.push_back(n.get());
  }
  return out;
}

}  // namespace tfg::interop
