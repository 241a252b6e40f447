#include "interp/language/checkpoint_across_tasks.h"

#include <map>

#include "ops/io/checkpoint_file.h"
#include "ops/state/state_util.h"

namespace tfg {
namespace {

std::string Names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", '" : "'") + names[i] + "'";
  if (names.size() > 5) out += fmt::format(" and {} more", names.size() - 5);
  return out;
}

// Pairs each variable with its tensor of the file, or says what does not
// fit, in the words of the restore_variables kernel.
Result<std::vector<Tensor>> Match(const std::vector<NamedVariable>& vars, std::vector<checkpoint::Entry> entries,
                                  const std::string& path, bool allow_unused) {
  std::map<std::string, Tensor> by_name;
  for (checkpoint::Entry& e : entries) by_name[e.name] = std::move(e.value);
  std::vector<std::string> missing, problems;
  std::vector<Tensor> values;
  for (const NamedVariable& nv : vars) {
    auto it = by_name.find(nv.name);
    if (it == by_name.end()) {
      missing.push_back(nv.name);
      continue;
    }
    if (it->second.dtype() != nv.var->dtype() || !nv.var->shape().IsCompatibleWith(it->second.shape())) {
      problems.push_back(fmt::format("'{}' is {} in the file but the variable is {}", nv.name,
                                     it->second.DebugString(), state::TypeAndShape(nv.var->dtype(), nv.var->shape())));
    }
    values.push_back(std::move(it->second));
    by_name.erase(it);
  }
  if (!missing.empty()) problems.insert(problems.begin(), "not in the file: " + Names(missing));
  if (!allow_unused && !by_name.empty()) {
    std::vector<std::string> unused;
    for (const auto& [name, t] : by_name) unused.push_back(name);
    problems.push_back("in the file but matching no variable: " + Names(unused) + " (pass vars= to restore a subset)");
  }
  if (problems.empty()) return values;
  std::string message = fmt::format("restore: checkpoint '{}' does not fit the variables, nothing was restored", path);
  for (const std::string& p : problems) message += "; " + p;
  return InvalidArgument("{}", message);
}

// A placeholder for the value and an assign of it to the variable, on the
// variable's device; built once per variable and found by name later.
Result<std::pair<Output, Node*>> RestoreNodes(BuiltinContext& ev, const VariableInfo& var) {
  const std::string base = var.shared_name + "/restore_across_tasks";
  Node* value = ev.graph().FindNode(base + "/value");
  Node* assign = ev.graph().FindNode(base);
  if (value != nullptr && assign != nullptr) return std::make_pair(value->output(0), assign);
  BuildOptions opts;
  opts.apply_scope_name = false;
  opts.apply_device = false;
  opts.apply_deps = false;
  AttrMap ph{{"dtype", var.dtype()}, {"shape", var.shape()}};
  TFG_ASSIGN_OR_RETURN(value, ev.AddNode({"placeholder", {}, {}, ph, base + "/value", "", var.node->span()}, opts));
  AttrMap attrs{{"shared_name", var.shared_name}, {"container", var.container}, {"dtype", var.dtype()},
                {"shape", var.shape()}};
  TFG_ASSIGN_OR_RETURN(assign, ev.AddNode({"assign", {value->output(0)}, {}, attrs, base,
                                           var.node->requested_device(), var.node->span()},
                                          opts));
  return std::make_pair(value->output(0), assign);
}

}  // namespace

Status SaveAcrossTasks(BuiltinContext& ev, const std::vector<NamedVariable>& vars, const std::string& path) {
  std::vector<Output> reads;
  for (const NamedVariable& nv : vars) reads.push_back(nv.var->output());
  auto values = ev.session().Run({}, reads, {});
  if (!values.ok()) return Status(values.status()).Prepend("save: ");
  std::vector<checkpoint::Entry> entries;
  for (size_t i = 0; i < vars.size(); ++i) entries.push_back({vars[i].name, std::move((*values)[i])});
  return checkpoint::Write(path, entries);
}

Status RestoreAcrossTasks(BuiltinContext& ev, const std::vector<NamedVariable>& vars, const std::string& path,
                          bool allow_unused) {
  auto entries = checkpoint::Read(path);
  if (!entries.ok()) return Status(entries.status()).Prepend("restore: ");
  TFG_ASSIGN_OR_RETURN(std::vector<Tensor> values, Match(vars, std::move(*entries), path, allow_unused));
  std::vector<std::pair<Output, Tensor>> feeds;
  std::vector<Node*> assigns;
  for (size_t i = 0; i < vars.size(); ++i) {
    TFG_ASSIGN_OR_RETURN(auto nodes, RestoreNodes(ev, *vars[i].var));
    feeds.emplace_back(nodes.first, std::move(values[i]));
    assigns.push_back(nodes.second);
  }
  auto r = ev.session().Run(feeds, {}, assigns);
  if (!r.ok()) return Status(r.status()).Prepend("restore: ");
  return Status::OK();
}

}  // namespace tfg
