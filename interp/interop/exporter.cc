#include "interp/interop/exporter.h"

#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "interp/interop/attr_convert.h"
#include "interp/interop/export_composite.h"
#include "interp/interop/export_selection.h"
#include "interp/interop/tensor_proto.h"
#include "interp/interop/tf_tables.h"

namespace tfg::interop {
namespace {

// A composite's outputs other than 0 are nodes of their own (export_composite.h).
std::string TensorName(const Output& o) {
  if (HasComposite(o.node->op_name())) return CompositeOutputName(*o.node, o.index);
  return o.index == 0 ? o.node->name() : fmt::format("{}:{}", o.node->name(), o.index);
}

Status Fail(const Node& n, const std::string& why) {
  return Status(Code::kInvalidArgument, fmt::format("export: node '{}' ({}): {}", n.name(), n.op_name(), why),
                n.span());
}

class Exporter {
 public:
  Exporter(const ExportOptions& opts, tf::GraphDef& out) : opts_(opts), out_(out) {}

  void IndexVariables(const std::vector<const Node*>& nodes) {
    for (const Node* n : nodes) {
      if (n->op_name() == "variable") KeepPlainest(variables_, n);
    }
  }

  Status Export(const Node& n) {
    const std::string& op = n.op_name();
    if (op == "constant") return Simple(n, "Const", {{"dtype", "type"}, {"value", "tensor"}});
    if (op == "placeholder") return Simple(n, "Placeholder", {{"dtype", "type"}, {"shape", "shape"}});
    if (op == "variable") {
      if (auto it = opts_.frozen.find(&n); it != opts_.frozen.end()) {
        tf::NodeDef* d = Add(n, "Const");
        (*d->mutable_attr())["dtype"].set_type(ToTfDType(it->second.dtype()));
        ToTensorProto(it->second, (*d->mutable_attr())["value"].mutable_tensor());
        return Status::OK();
      }
      return Simple(n, "VariableV2", {{"dtype", "type"}, {"shape", "shape"}, {"container", "string"},
                                      {"shared_name", "string"}});
    }
    if (HasComposite(op)) return ExportComposite(n, TensorName, out_);
    if (op == "sparse_apply_gradient_descent") return ScatterDescent(n);
    return Mapped(n);
  }

 private:
  tf::NodeDef* Add(const Node& n, const std::string& tf_op) {
    tf::NodeDef* d = out_.add_node();
    d->set_name(n.name());
    d->set_op(tf_op);
    SetTfDevice(d, n.requested_device());
    return d;
  }

  // sparse_apply_gradient_descent(lr, grad, indices) on variable `var` is
  // what TF1's GradientDescentOptimizer does for a sparse gradient:
  // ScatterSub(var, indices, grad * lr).
  Status ScatterDescent(const Node& n) {
    const std::string* shared = n.attr<std::string>("var");
    auto var = shared ? variables_.find(*shared) : variables_.end();
    if (var == variables_.end() || n.inputs().size() != 3) return Fail(n, "its variable is not in the exported graph");
    const DType t = n.input_types()[1];
    tf::NodeDef* updates = Add(n, "Mul");
    updates->set_name(n.name() + "/updates");
    updates->add_input(TensorName(n.inputs()[1]));
    updates->add_input(TensorName(n.inputs()[0]));
    (*updates->mutable_attr())["T"].set_type(ToTfDType(t));
    tf::NodeDef* d = Add(n, "ScatterSub");
    for (const std::string& in : {var->second->name(), TensorName(n.inputs()[2]), updates->name()}) d->add_input(in);
    (*d->mutable_attr())["T"].set_type(ToTfDType(t));
    (*d->mutable_attr())["Tindices"].set_type(ToTfDType(n.input_types()[2]));
    (*d->mutable_attr())["use_locking"].set_b(false);
    AddControls(n, d);
    return Status::OK();
  }

  void AddControls(const Node& n, tf::NodeDef* d) {
    for (const Node* c : n.control_inputs()) d->add_input("^" + c->name());
    if (auto it = gates_.find(&n); it != gates_.end()) {
      for (const std::string& g : it->second) d->add_input("^" + g);
    }
  }


 public:
  // TensorFlow 1 variables are updated in place, so an update op of a
  // training step could run before another gradient has read the variable
  // it changes. TensorFlow's optimizers gate the gradients for that; here
  // the update ops grouped under one no_op (minimize's group) each wait for
  // every gradient of the group (GATE_GRAPH), so a step computes what tfg
  // computes.
  // The TensorFlow node computing an update op's gradient input.
  static std::string GradNode(const Node& update) {
    const std::string t = TensorName(update.inputs()[static_cast<size_t>(update.op().FindInput("grad"))]);
    return t.substr(0, t.find(':'));
  }

  void GateUpdates(const std::vector<const Node*>& nodes) {
    for (const Node* group : nodes) {
      if (group->op_name() != "no_op") continue;
      std::vector<const Node*> updates;
      std::set<std::string> grads;
      for (const Node* c : group->control_inputs()) {
        const int grad = c->op().variables.empty() ? -1 : c->op().FindInput("grad");
        if (grad < 0 || static_cast<size_t>(grad) >= c->inputs().size()) continue;
        updates.push_back(c);
        grads.insert(GradNode(*c));
      }
      if (updates.size() < 2) continue;
      for (const Node* u : updates) {
        for (const std::string& g : grads) {
          if (g != GradNode(*u)) gates_[u].push_back(g);
        }
      }
    }
  }

 private:
  Status Simple(const Node& n, const std::string& tf_op, const std::vector<std::pair<std::string, std::string>>& attrs) {
    tf::NodeDef* d = Add(n, tf_op);
    for (const auto& [name, type] : attrs) {
      auto it = n.attrs().find(name);
      if (it == n.attrs().end() || std::holds_alternative<std::monostate>(it->second)) continue;
      Result<tf::AttrValue> v = ToTfAttr(it->second, type);
      if (!v.ok()) return Fail(n, v.status().message());
      (*d->mutable_attr())[name] = *v;
    }
    AddControls(n, d);
    return Status::OK();
  }

  // One TensorFlow input of a mapped node: an edge or a constant written for an attr.
  struct TfInput {
    std::string name;
    DType dtype;
  };

  Result<std::string> ConstInput(const Node& n, const std::string& attr, const AttrValue& v, DType dtype) {
    Result<Tensor> t = AttrAsTensor(v, dtype);
    if (!t.ok()) return Fail(n, t.status().message());
    tf::NodeDef* c = out_.add_node();
    c->set_name(fmt::format("{}/{}", n.name(), attr));
    c->set_op("Const");
    SetTfDevice(c, n.requested_device());
    // Read after the node's first input, as TensorFlow anchors its own
    // constants: in a while loop's body that puts the constant in the
    // loop's frame (with no input it would sit in the root frame).
    if (!n.inputs().empty()) c->add_input("^" + n.inputs()[0].node->name());
    (*c->mutable_attr())["dtype"].set_type(ToTfDType(t->dtype()));
    ToTensorProto(*t, (*c->mutable_attr())["value"].mutable_tensor());
    return c->name();
  }

  // axis=none reduces every axis; TensorFlow takes them as an input: a
  // constant [0, rank) when x's rank is known, else Range(0, Rank(x), 1).
  Result<std::string> AllAxes(const Node& n) {
    const PartialShape& x = n.inputs()[0].shape();
    if (x.known_rank()) {
      std::vector<int64_t> axes(static_cast<size_t>(x.rank()));
      for (int i = 0; i < x.rank(); ++i) axes[static_cast<size_t>(i)] = i;
      return ConstInput(n, "reduction_indices", AttrValue(axes), DType::kI32);
    }
    tf::NodeDef* rank = Add(n, "Rank");
    rank->set_name(n.name() + "/rank");
    rank->add_input(TensorName(n.inputs()[0]));
    (*rank->mutable_attr())["T"].set_type(ToTfDType(n.input_types()[0]));
    TFG_ASSIGN_OR_RETURN(std::string zero, ConstInput(n, "start", AttrValue(int64_t{0}), DType::kI32));
    TFG_ASSIGN_OR_RETURN(std::string one, ConstInput(n, "delta", AttrValue(int64_t{1}), DType::kI32));
    tf::NodeDef* range = Add(n, "Range");
    range->set_name(n.name() + "/reduction_indices");
    for (const std::string& in : {zero, rank->name(), one}) range->add_input(in);
    (*range->mutable_attr())["Tidx"].set_type(tf::DT_INT32);
    return range->name();
  }

  // Integer random_uniform is TensorFlow's RandomUniformInt, which takes
  // [minval, maxval) as inputs of the output's dtype.
  Status UniformInt(const Node& n, double lo, double hi) {
    const DType dtype = n.output_types()[0];
    tf::NodeDef* d = Add(n, "RandomUniformInt");
    std::vector<int64_t> shape;
    if (const auto* s = n.attr<std::vector<int64_t>>("shape")) shape = *s;
    TFG_ASSIGN_OR_RETURN(std::string shape_name, ConstInput(n, "shape", AttrValue(shape), DType::kI32));
    TFG_ASSIGN_OR_RETURN(std::string low, ConstInput(n, "minval", AttrValue(lo), dtype));
    TFG_ASSIGN_OR_RETURN(std::string high, ConstInput(n, "maxval", AttrValue(hi), dtype));
    for (const std::string& in : {shape_name, low, high}) d->add_input(in);
    auto& a = *d->mutable_attr();
    a["Tout"].set_type(ToTfDType(dtype));
    a["T"].set_type(tf::DT_INT32);
    if (const int64_t* seed = n.attr<int64_t>("seed")) a["seed2"].set_i(*seed);
    AddControls(n, d);
    return Status::OK();
  }

  // TensorFlow's RandomUniform draws from [0, 1); tf.random.uniform scales
  // it with a Mul and an AddV2, and so does this: the node's name goes to
  // the AddV2, which its consumers read.
  Status ScaledUniform(const Node& n, double lo, double hi) {
    DType dtype = n.output_types()[0];
    if (dtype == DType::kI32 || dtype == DType::kI64) return UniformInt(n, lo, hi);
    if (!IsFloat(dtype)) return Fail(n, "random_uniform of this dtype is not supported by export yet");
    tf::NodeDef* unit = Add(n, "RandomUniform");
    unit->set_name(n.name() + "/unit");
    std::vector<int64_t> shape;
    if (const auto* s = n.attr<std::vector<int64_t>>("shape")) shape = *s;
    TFG_ASSIGN_OR_RETURN(std::string shape_name, ConstInput(n, "shape", AttrValue(shape), DType::kI32));
    unit->add_input(shape_name);
    auto& ua = *unit->mutable_attr();
    ua["dtype"].set_type(ToTfDType(dtype));
    ua["T"].set_type(tf::DT_INT32);
    if (const int64_t* seed = n.attr<int64_t>("seed")) ua["seed2"].set_i(*seed);
    TFG_ASSIGN_OR_RETURN(std::string range, ConstInput(n, "range", AttrValue(hi - lo), dtype));
    TFG_ASSIGN_OR_RETURN(std::string low, ConstInput(n, "minval", AttrValue(lo), dtype));
    tf::NodeDef* mul = Add(n, "Mul");
    mul->set_name(n.name() + "/scaled");
    mul->add_input(unit->name());
    mul->add_input(range);
    (*mul->mutable_attr())["T"].set_type(ToTfDType(dtype));
    tf::NodeDef* add = Add(n, "AddV2");
    add->add_input(mul->name());
    add->add_input(low);
    (*add->mutable_attr())["T"].set_type(ToTfDType(dtype));
    AddControls(n, unit);
    return Status::OK();
  }

  Status Mapped(const Node& n) {
    const OpMapRow* row = TfTables::Get().ByTfg(n.op_name());
    const TfOpSignature* sig = row && !row->tf_op.empty() ? TfTables::Get().Signature(row->tf_op) : nullptr;
    if (!sig) return Fail(n, "no TensorFlow op for it");
    if (n.op_name() == "random_uniform") {
      const double* lo = n.attr<double>("minval");
      const double* hi = n.attr<double>("maxval");
      const bool integer = n.output_types()[0] == DType::kI32 || n.output_types()[0] == DType::kI64;
      if (integer || (lo && *lo != 0) || (hi && *hi != 1)) return ScaledUniform(n, lo ? *lo : 0, hi ? *hi : 1);
    }
    std::vector<TfInput> inputs;
    for (size_t i = 0; i < n.inputs().size(); ++i) inputs.push_back({TensorName(n.inputs()[i]), n.input_types()[i]});
    tf::NodeDef* d = Add(n, row->tf_op);
    auto& attrs = *d->mutable_attr();
    std::set<std::string> renamed;
    std::vector<std::pair<int, TfInput>> inserted;
    TFG_RETURN_IF_ERROR(VariableInputs(n, *sig, renamed, inserted));
    for (const AttrRename& r : row->attrs) {
      if (renamed.count(r.tfg)) continue;
      renamed.insert(r.tfg);
      auto it = n.attrs().find(r.tfg);
      if (r.the_variable) {
        const std::string* shared = n.attr<std::string>(r.tfg);
        auto var = shared ? variables_.find(*shared) : variables_.end();
        if (var == variables_.end()) return Fail(n, "its variable is not in the exported graph");
        inserted.push_back({0, {var->second->name(), var->second->output_types()[0]}});
        continue;
      }
      const bool none = it == n.attrs().end() || std::holds_alternative<std::monostate>(it->second);
      if (none && r.tf == "reduction_indices") {
        TFG_ASSIGN_OR_RETURN(std::string all, AllAxes(n));
        inserted.push_back({r.tf_input, {all, DType::kI32}});
        continue;
      }
      if (none) continue;
      if (r.tf_input >= 0 || r.last_input) {
        // The constant's dtype: that of the tensors its type attr binds, else the value's own.
        DType dtype = n.input_types().empty() ? DType::kF32 : n.input_types()[0];
        TFG_ASSIGN_OR_RETURN(std::string name, ConstInput(n, r.tf, it->second, dtype));
        int at = r.last_input ? std::numeric_limits<int>::max() : r.tf_input;
        Result<Tensor> t = AttrAsTensor(it->second, dtype);
        inserted.push_back({at, {name, t.ok() ? t->dtype() : dtype}});
        continue;
      }
      const TfAttrDef* ad = sig->FindAttr(r.tf);
      if (!ad) continue;
      AttrValue v = it->second;
      if (r.nhwc4) {
        auto* l = std::get_if<std::vector<int64_t>>(&v);
        if (!l || l->size() != 2) return Fail(n, fmt::format("'{}' must be a list of 2 ints", r.tfg));
        v = std::vector<int64_t>{1, (*l)[0], (*l)[1], 1};
      }
      Result<tf::AttrValue> tv = ToTfAttr(v, ad->type);
      if (!tv.ok()) return Fail(n, fmt::format("attr '{}': {}", r.tfg, tv.status().message()));
      attrs[r.tf] = *tv;
    }
    // TensorFlow inputs that are tfg attrs of the same name (Reshape's shape).
    for (size_t k = 0; k < sig->inputs.size(); ++k) {
      const TfArg& arg = sig->inputs[k];
      if (!arg.number_attr.empty() || !arg.list_attr.empty()) break;
      auto it = n.attrs().find(arg.name);
      if (it == n.attrs().end() || renamed.count(arg.name) || n.op().FindInput(arg.name) >= 0 ||
          std::holds_alternative<std::monostate>(it->second)) {
        continue;
      }
      DType dtype = n.input_types().empty() ? DType::kI32 : n.input_types()[0];
      TFG_ASSIGN_OR_RETURN(std::string name, ConstInput(n, arg.name, it->second, dtype));
      Result<Tensor> t = AttrAsTensor(it->second, dtype);
      inserted.push_back({static_cast<int>(k), {name, t.ok() ? t->dtype() : dtype}});
      renamed.insert(arg.name);
    }
    std::sort(inserted.begin(), inserted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [at, in] : inserted) {
      size_t pos = std::min(static_cast<size_t>(at), inputs.size());
      inputs.insert(inputs.begin() + static_cast<std::ptrdiff_t>(pos), in);
    }
    for (const auto& [name, value] : n.attrs()) {
      if (renamed.count(name) || attrs.count(name) || std::holds_alternative<std::monostate>(value)) continue;
      const TfAttrDef* ad = sig->FindAttr(name);
      if (!ad || ad->type == "type" || ad->type == "list(type)") continue;
      const std::string& attr_name = name;  // captured: see node_converter.cc
      if (std::any_of(sig->inputs.begin(), sig->inputs.end(),
                      [&attr_name](const TfArg& a) { return a.number_attr == attr_name; })) {
        continue;
      }
      Result<tf::AttrValue> tv = ToTfAttr(value, ad->type);
      if (tv.ok()) attrs[name] = *tv;
    }
    TFG_RETURN_IF_ERROR(TypeAttrs(n, *sig, inputs, attrs));
    if (n.op_name() == "strided_slice") TFG_RETURN_IF_ERROR(DefaultStrides(n, inputs));
    for (const TfInput& in : inputs) d->add_input(in.name);
    AddControls(n, d);
    return Status::OK();
  }

  // tfg's strided_slice takes no strides for all 1; TensorFlow's needs one
  // per begin index.
  Status DefaultStrides(const Node& n, const std::vector<TfInput>& inputs) {
    const auto* begin = n.attr<std::vector<int64_t>>("begin");
    const auto* strides = n.attr<std::vector<int64_t>>("strides");
    if (!begin || (strides && !strides->empty()) || inputs.size() < 4) return Status::OK();
    TFG_ASSIGN_OR_RETURN(Tensor ones, AttrAsTensor(AttrValue(std::vector<int64_t>(begin->size(), 1)), DType::kI32));
    for (int k = out_.node_size() - 1; k >= 0; --k) {
      tf::NodeDef* c = out_.mutable_node(k);
      if (c->name() != inputs[3].name || c->op() != "Const") continue;
      (*c->mutable_attr())["value"].clear_tensor();
      ToTensorProto(ones, (*c->mutable_attr())["value"].mutable_tensor());
      (*c->mutable_attr())["dtype"].set_type(tf::DT_INT32);
      break;
    }
    return Status::OK();
  }

  // The variables of an update op (apply_adam's var, m, v: tfg attrs
  // holding shared names) are TensorFlow's inputs of the same names.
  Status VariableInputs(const Node& n, const TfOpSignature& sig, std::set<std::string>& renamed,
                        std::vector<std::pair<int, TfInput>>& inserted) {
    for (const std::string& attr : n.op().variables) {
      const std::string* shared = n.attr<std::string>(attr);
      auto var = shared ? variables_.find(*shared) : variables_.end();
      if (var == variables_.end()) return Fail(n, fmt::format("its variable '{}' is not in the exported graph", attr));
      int at = -1;
      for (size_t k = 0; k < sig.inputs.size(); ++k) {
        if (sig.inputs[k].name == attr) at = static_cast<int>(k);
      }
      if (at < 0) return Fail(n, fmt::format("{} has no input '{}' for its variable", sig.op, attr));
      inserted.push_back({at, {var->second->name(), var->second->output_types()[0]}});
      renamed.insert(attr);
      renamed.insert(attr + "_container");
    }
    return Status::OK();
  }

  // T, N, Tidx, out_type, ...: from the dtypes of the inputs and outputs.
  Status TypeAttrs(const Node& n, const TfOpSignature& sig, const std::vector<TfInput>& inputs,
                   google::protobuf::Map<std::string, tf::AttrValue>& attrs) {
    size_t singles = 0;
    for (const TfArg& a : sig.inputs) singles += (a.number_attr.empty() && a.list_attr.empty()) ? 1 : 0;
    if (inputs.size() < singles) return Fail(n, fmt::format("{} takes {} inputs, tfg has {}", sig.op, singles, inputs.size()));
    size_t list_len = inputs.size() - singles;
    size_t i = 0;
    for (const TfArg& a : sig.inputs) {
      size_t count = (a.number_attr.empty() && a.list_attr.empty()) ? 1 : list_len;
      if (!a.number_attr.empty()) attrs[a.number_attr].set_i(static_cast<int64_t>(count));
      if (!a.list_attr.empty()) {
        auto* l = attrs[a.list_attr].mutable_list();
        for (size_t k = 0; k < count; ++k) l->add_type(ToTfDType(inputs[i + k].dtype));
      }
      if (!a.type_attr.empty() && count > 0 && !attrs.count(a.type_attr)) {
        attrs[a.type_attr].set_type(ToTfDType(inputs[i].dtype));
      }
      i += count;
    }
    for (size_t k = 0; k < sig.outputs.size() && k < static_cast<size_t>(n.num_outputs()); ++k) {
      const TfArg& a = sig.outputs[k];
      if (!a.type_attr.empty() && !attrs.count(a.type_attr)) attrs[a.type_attr].set_type(ToTfDType(n.output_types()[k]));
    }
    return Status::OK();
  }

  const ExportOptions& opts_;
  tf::GraphDef& out_;
  std::map<std::string, const Node*> variables_;
  std::map<const Node*, std::vector<std::string>> gates_;  // update op -> the gradients it waits for
};

bool Exportable(const Node& n) {
  const std::string& op = n.op_name();
  if (op == "constant" || op == "placeholder" || op == "variable" || HasComposite(op)) return true;
  const OpMapRow* row = TfTables::Get().ByTfg(op);
  return row && !row->tf_op.empty() && TfTables::Get().Signature(row->tf_op);
}

Status CheckExportable(const std::vector<const Node*>& nodes) {
  std::vector<std::string> order;
  std::map<std::string, std::pair<int, const Node*>> missing;
  for (const Node* n : nodes) {
    if (Exportable(*n)) continue;
    auto& m = missing[n->op_name()];
    if (m.first++ == 0) {
      m.second = n;
      order.push_back(n->op_name());
    }
  }
  if (order.empty()) return Status::OK();
  std::string msg = fmt::format("export: {} tfg op type(s) of this graph have no TensorFlow counterpart:", order.size());
  for (const std::string& op : order) {
    const auto& [count, first] = missing[op];
    msg += fmt::format("{}{} ({} node{}, first '{}'{})", op == order.front() ? " " : ", ", op, count, count == 1 ? "" : "s", first->name(),
                       first->span().file ? fmt::format(" at line {}", first->span().line) : "");
  }
  return Status(Code::kUnimplemented, msg);
}

}  // namespace

Result<tf::GraphDef> ExportGraphDef(const Graph& graph, const ExportOptions& opts) {
  std::vector<const Node*> nodes = SelectedForExport(graph, opts);
  TFG_RETURN_IF_ERROR(CheckExportable(nodes));
  tf::GraphDef def;
  def.mutable_versions()->set_producer(1087);  // a TensorFlow 2.x GraphDef version: NodeDefs as 2.x writes them
  Exporter exporter(opts, def);
  exporter.IndexVariables(nodes);
  exporter.GateUpdates(nodes);
  std::set<const Node*> kept(nodes.begin(), nodes.end());
  for (const Node* n : nodes) TFG_RETURN_IF_ERROR(exporter.Export(*n));
  if (!opts.init_name.empty() && !opts.initializers.empty()) {
    tf::NodeDef* init = def.add_node();
    init->set_name(opts.init_name);
    init->set_op("NoOp");
    for (const Node* i : opts.initializers) {
      if (kept.count(i)) init->add_input("^" + i->name());
    }
  }
  return def;
}

}  // namespace tfg::interop
