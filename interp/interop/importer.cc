#include "interp/interop/importer.h"

#include <charconv>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/interop/lower_functional.h"
#include "interp/interop/node_converter.h"

namespace tfg::interop {
namespace {

// "name:3" -> ("name", 3); "name" -> ("name", 0); "^name" -> ("name", -1).
std::pair<std::string_view, int> ParseInput(std::string_view in) {
  if (!in.empty() && in[0] == '^') return {in.substr(1), -1};
  size_t colon = in.rfind(':');
  if (colon == std::string_view::npos) return {in, 0};
  int k = 0;
  auto [p, ec] = std::from_chars(in.data() + colon + 1, in.data() + in.size(), k);
  if (ec != std::errc() || p != in.data() + in.size() || k < 0) return {in, 0};
  return {in.substr(0, colon), k};
}

Status Fail(const ImportOptions& opts, const std::string& why) {
  return Status(Code::kInvalidArgument, "import_graph_def: " + why, opts.span);
}

class Importer : public ImportedTensors {
 public:
  Importer(tf::GraphDef& def, const ImportOptions& opts, const AddNodeFn& add)
      : def_(def), opts_(opts), add_(add), built_(def.node_size()), done_(def.node_size(), false) {}

  Result<ImportedGraph> Run() {
    TFG_RETURN_IF_ERROR(Index());
    TFG_ASSIGN_OR_RETURN(std::vector<int> order, TopologicalOrder());
    for (int i : order) TFG_RETURN_IF_ERROR(Build(i));
    for (const BackEdge& e : back_edges_) {
      TFG_ASSIGN_OR_RETURN(Output src, Resolve(e.input));
      Status s = e.merge->ReplaceInput(e.index, src);
      if (!s.ok()) return Fail(opts_, fmt::format("closing the loop into '{}': {}", e.merge->name(), s.message()));
    }
    ImportedGraph out;
    for (int i = 0; i < def_.node_size(); ++i) {
      const std::string& name = def_.node(i).name();
      for (size_t k = 0; k < built_[i].outputs.size(); ++k) out.tensors.emplace_back(fmt::format("{}:{}", name, k), built_[i].outputs[k]);
      if (built_[i].node) out.ops.emplace_back(name, built_[i].node);
    }
    return out;
  }

  Result<Output> Resolve(const std::string& input) override {
    if (auto it = opts_.input_map.find(input); it != opts_.input_map.end()) return it->second;
    auto [name, k] = ParseInput(input);
    if (k == 0 && input.find(':') == std::string::npos) {
      if (auto it = opts_.input_map.find(input + ":0"); it != opts_.input_map.end()) return it->second;
    }
    auto it = index_.find(name);
    if (it == index_.end()) return Fail(opts_, fmt::format("input '{}' names no node of the graph", input));
    const ConvertedNode& n = built_[it->second];
    if (!done_[it->second]) return Fail(opts_, fmt::format("input '{}' is used before it is built", input));
    if (k < 0 || static_cast<size_t>(k) >= n.outputs.size()) {
      return Fail(opts_, fmt::format("input '{}': node '{}' ({}) has {} output(s) in tfg", input, name,
                                     def_.node(it->second).op(), n.outputs.size()));
    }
    return n.outputs[k];
  }

  const tf::NodeDef* Def(const std::string& input) const override {
    auto it = index_.find(ParseInput(input).first);
    return it == index_.end() ? nullptr : &def_.node(it->second);
  }

 private:
  struct BackEdge {
    Node* merge;
    int index;
    std::string input;
  };

  Status Index() {
    for (int i = 0; i < def_.node_size(); ++i) {
      if (def_.node(i).name().empty()) return Fail(opts_, fmt::format("node {} has no name", i));
      if (!index_.emplace(def_.node(i).name(), i).second) {
        return Fail(opts_, fmt::format("two nodes are named '{}'", def_.node(i).name()));
      }
    }
    return Status::OK();
  }

  bool IsBackEdge(int consumer, int producer) const {
    return def_.node(consumer).op() == "Merge" && def_.node(producer).op() == "NextIteration";
  }

  // Kahn's algorithm over data and control edges, leaving out the
  // NextIteration -> Merge edges that close while loops.
  Result<std::vector<int>> TopologicalOrder() {
    int n = def_.node_size();
    std::vector<int> pending(n, 0);
    std::vector<std::vector<int>> consumers(n);
    for (int i = 0; i < n; ++i) {
      for (const std::string& in : def_.node(i).input()) {
        auto [name, k] = ParseInput(in);
        if (k >= 0 && opts_.input_map.count(in)) continue;
        auto it = index_.find(name);
        if (it == index_.end()) {
          return Fail(opts_, fmt::format("node '{}': input '{}' names no node of the graph", def_.node(i).name(), in));
        }
        if (IsBackEdge(i, it->second)) continue;
        ++pending[i];
        consumers[it->second].push_back(i);
      }
    }
    std::vector<int> order;
    order.reserve(n);
    for (int i = 0; i < n; ++i) {
      if (pending[i] == 0) order.push_back(i);
    }
    for (size_t h = 0; h < order.size(); ++h) {
      for (int c : consumers[order[h]]) {
        if (--pending[c] == 0) order.push_back(c);
      }
    }
    if (static_cast<int>(order.size()) != n) {
      for (int i = 0; i < n; ++i) {
        if (pending[i] > 0) {
          return Fail(opts_, fmt::format("the graph has a cycle through node '{}' that is not a while loop's "
                                         "NextIteration -> Merge edge", def_.node(i).name()));
        }
      }
    }
    return order;
  }

  Status Build(int i) {
    tf::NodeDef& def = *def_.mutable_node(i);
    std::vector<Output> inputs;
    std::vector<Node*> controls;
    std::vector<std::pair<int, std::string>> deferred;
    for (const std::string& in : def.input()) {
      auto [name, k] = ParseInput(in);
      if (k < 0) {
        int src = index_.at(name);
        if (built_[src].node) controls.push_back(built_[src].node);
        continue;
      }
      auto it = index_.find(name);
      if (it != index_.end() && !done_[it->second] && IsBackEdge(i, it->second)) {
        deferred.emplace_back(static_cast<int>(inputs.size()), in);
        inputs.push_back(Output{});
        continue;
      }
      TFG_ASSIGN_OR_RETURN(Output o, Resolve(in));
      inputs.push_back(o);
    }
    // A merge is built with its loop entry standing in for the back edge.
    for (auto& [slot, in] : deferred) {
      auto stand_in = std::find_if(inputs.begin(), inputs.end(), [](const Output& o) { return o.node != nullptr; });
      if (stand_in == inputs.end()) return Fail(opts_, fmt::format("merge '{}' has no input from outside its loop", def.name()));
      inputs[slot] = *stand_in;
    }
    if (def.op() == "Placeholder" && (opts_.input_map.count(def.name() + ":0") || opts_.input_map.count(def.name()))) {
      TFG_ASSIGN_OR_RETURN(Output mapped, Resolve(def.name() + ":0"));
      built_[i].outputs = {mapped};
      done_[i] = true;
      return Status::OK();
    }
    TFG_ASSIGN_OR_RETURN(built_[i], ConvertNode(def, inputs, controls, *this, opts_, add_));
    done_[i] = true;
    for (auto& [slot, in] : deferred) back_edges_.push_back(BackEdge{built_[i].node, slot, in});
    return Status::OK();
  }

  tf::GraphDef& def_;
  const ImportOptions& opts_;
  const AddNodeFn& add_;
  std::unordered_map<std::string_view, int> index_;
  std::vector<ConvertedNode> built_;
  std::vector<bool> done_;
  std::vector<BackEdge> back_edges_;
};

}  // namespace

namespace {

// The library functions that the graph's If/While/Case nodes call, directly or
// through the If/While nodes of other functions; unused ones (gradients,
// functions frozen graphs keep) need not be importable.
std::vector<const tf::FunctionDef*> CalledFunctions(const tf::GraphDef& def) {
  std::unordered_map<std::string, const tf::FunctionDef*> by_name;
  for (const tf::FunctionDef& f : def.library().function()) by_name.emplace(f.signature().name(), &f);
  std::vector<const tf::FunctionDef*> called;
  std::set<std::string> seen;
  auto visit = [&](const tf::NodeDef& n) {
    if (!IsFunctionalControlFlow(n.op())) return;
    auto call = [&](const std::string& name) {
      auto f = by_name.find(name);
      if (f != by_name.end() && seen.insert(f->first).second) called.push_back(f->second);
    };
    for (const auto& [attr, value] : n.attr()) {
      if (value.value_case() == tf::AttrValue::kFunc) call(value.func().name());
      for (const tf::NameAttrList& f : value.list().func()) call(f.name());  // Case's branches
    }
  };
  for (const tf::NodeDef& n : def.node()) visit(n);
  for (size_t i = 0; i < called.size(); ++i) {
    for (const tf::NodeDef& n : called[i]->node_def()) visit(n);
  }
  return called;
}

}  // namespace

Status CheckCoverage(const tf::GraphDef& def) {
  struct Missing {
    int count = 0;
    std::string first;
  };
  std::vector<std::string> order;
  std::unordered_map<std::string, Missing> missing;
  auto check = [&](const tf::NodeDef& n, const tf::FunctionDef* in) {
    if (CanImport(n.op()) || IsFunctionalControlFlow(n.op())) return;
    Missing& m = missing[n.op()];
    if (m.count++ == 0) {
      m.first = in ? fmt::format("{}' in function '{}", n.name(), in->signature().name()) : n.name();
      order.push_back(n.op());
    }
  };
  for (const tf::NodeDef& n : def.node()) check(n, nullptr);
  for (const tf::FunctionDef* f : CalledFunctions(def)) {
    for (const tf::NodeDef& n : f->node_def()) check(n, f);
  }
  if (order.empty()) return Status::OK();
  std::string msg =
      fmt::format("import_graph_def: tfg has no op for {} TensorFlow op type(s) of this graph:", order.size());
  for (const std::string& op : order) {
    const Missing& m = missing[op];
    msg += fmt::format("{}{} ({} node{}, first '{}')", op == order.front() ? " " : ", ", op, m.count,
                       m.count == 1 ? "" : "s", m.first);
  }
  return Status(Code::kUnimplemented, msg);
}

Result<ImportedGraph> ImportGraphDef(tf::GraphDef& def, const ImportOptions& opts, const AddNodeFn& add) {
  Status covered = CheckCoverage(def);
  if (!covered.ok()) return Status(covered).WithSpan(opts.span);
  Result<LoweredOutputs> lowered = LowerFunctionalControlFlow(def);
  if (!lowered.ok()) return Status(lowered.status()).WithSpan(opts.span);
  Importer importer(def, opts, add);
  TFG_ASSIGN_OR_RETURN(ImportedGraph out, importer.Run());
  // The If/While nodes' outputs, under their TensorFlow names.
  for (const auto& [tf_name, now] : *lowered) {
    Result<Output> t = importer.Resolve(now);
    if (t.ok()) out.tensors.emplace_back(tf_name, *t);
  }
  return out;
}

}  // namespace tfg::interop
