#include "interp/interop/node_converter.h"

#include <limits>

#include <fmt/format.h>

#include "interp/interop/attr_convert.h"
#include "interp/interop/tensor_proto.h"
#include "interp/interop/tf_tables.h"

namespace tfg::interop {
namespace {

// TensorFlow ops with layouts: NCHW ones get transposes around them.
bool TakesDataFormat(const std::string& tfg_op) {
  return tfg_op == "conv2d" || tfg_op == "max_pool" || tfg_op == "avg_pool" || tfg_op == "bias_add" ||
         tfg_op == "batch_norm" || tfg_op == "depthwise_conv2d";
}

Status Fail(const tf::NodeDef& def, const ImportOptions& opts, const std::string& why) {
  return Status(Code::kInvalidArgument, fmt::format("import_graph_def: node '{}' ({}): {}", def.name(), def.op(), why),
                opts.span);
}

const tf::AttrValue* TfAttr(const tf::NodeDef& def, const std::string& name) {
  auto it = def.attr().find(name);
  return it == def.attr().end() ? nullptr : &it->second;
}

std::vector<std::string> DataInputNames(const tf::NodeDef& def) {
  std::vector<std::string> names;
  for (const std::string& in : def.input()) {
    if (in.empty() || in[0] != '^') names.push_back(in);
  }
  return names;
}

// The constant behind an input (through identity nodes, as frozen graphs
// have them), read from the tfg node it was imported as.
Result<Tensor> ConstantInput(const tf::NodeDef& def, const std::string& input, Output in, const ImportOptions& opts) {
  const Node* n = in.node;
  while (n && n->op_name() == "identity" && !n->inputs().empty()) n = n->inputs()[0].node;
  const Tensor* value = n && n->op_name() == "constant" ? n->attr<Tensor>("value") : nullptr;
  if (!value) {
    return Fail(def, opts, fmt::format("input '{}' must be a constant for tfg (it becomes an attribute)", input));
  }
  return *value;
}

Result<Node*> AddOne(NodeSpec spec, const tf::NodeDef& def, const ImportOptions& opts, const AddNodeFn& add) {
  spec.span = opts.span;
  Result<Node*> n = add(std::move(spec));
  if (!n.ok()) return Fail(def, opts, n.status().message());
  return n;
}

Result<Output> Transposed(Output x, std::vector<int64_t> perm, const std::string& name, const tf::NodeDef& def,
                          const ImportOptions& opts, const AddNodeFn& add) {
  NodeSpec spec;
  spec.op = "transpose";
  spec.inputs = {x};
  spec.attrs["perm"] = std::move(perm);
  spec.name = name;
  spec.device = def.device();
  TFG_ASSIGN_OR_RETURN(Node * n, AddOne(std::move(spec), def, opts, add));
  return n->output(0);
}

// The variable node a resource/ref input comes from, for its shared name.
Result<const Node*> VariableOf(const tf::NodeDef& def, Output in, const ImportOptions& opts) {
  const Node* n = in.node;
  while (n && n->op_name() == "identity" && !n->inputs().empty()) n = n->inputs()[0].node;
  if (!n || n->op_name() != "variable") return Fail(def, opts, "its variable input is not a variable node");
  return n;
}

// Nodes whose translation is not one row of tf_op_map.tsv.
Result<ConvertedNode> ConvertSpecial(tf::NodeDef& def, const std::vector<Output>& inputs,
                                     const ImportOptions& opts, const AddNodeFn& add, NodeSpec spec) {
  const std::string& op = def.op();
  auto dtype_attr = [&](const char* name) -> Result<DType> {
    const tf::AttrValue* a = TfAttr(def, name);
    if (!a) return Fail(def, opts, fmt::format("attr '{}' is missing", name));
    Result<DType> d = FromTfDType(a->type());
    if (!d.ok()) return Fail(def, opts, d.status().message());
    return d;
  };
  if (op == "Const") {
    auto value = def.mutable_attr()->find("value");
    if (value == def.mutable_attr()->end() || value->second.value_case() != tf::AttrValue::kTensor) {
      return Fail(def, opts, "a Const without a value");
    }
    // Takes the bytes over rather than copying them: a frozen graph is mostly constants.
    Result<Tensor> t = TakeTensorProto(*value->second.mutable_tensor());
    if (!t.ok()) return Fail(def, opts, t.status().message());
    spec.op = "constant";
    spec.attrs["dtype"] = t->dtype();
    spec.attrs["value"] = std::move(t).value();
  } else if (op == "Placeholder") {
    spec.op = "placeholder";
    TFG_ASSIGN_OR_RETURN(spec.attrs["dtype"], dtype_attr("dtype"));
    if (const tf::AttrValue* s = TfAttr(def, "shape"); s && s->value_case() == tf::AttrValue::kShape) {
      spec.attrs["shape"] = FromTfShape(s->shape());
    }
  } else if (op == "VariableV2" || op == "Variable" || op == "VarHandleOp") {
    spec.op = "variable";
    TFG_ASSIGN_OR_RETURN(spec.attrs["dtype"], dtype_attr("dtype"));
    if (const tf::AttrValue* s = TfAttr(def, "shape"); s && s->value_case() == tf::AttrValue::kShape) {
      spec.attrs["shape"] = FromTfShape(s->shape());
    }
    spec.attrs["shared_name"] = spec.name;
  } else if (op == "ReadVariableOp") {
    spec.op = "identity";
    spec.inputs = {inputs.at(0)};
  } else if (op == "AssignVariableOp") {
    TFG_ASSIGN_OR_RETURN(const Node* var, VariableOf(def, inputs.at(0), opts));
    spec.op = "assign";
    spec.inputs = {inputs.at(1)};
    spec.attrs["shared_name"] = *var->attr<std::string>("shared_name");
  } else {
    return Fail(def, opts, "not supported");
  }
  TFG_ASSIGN_OR_RETURN(Node * n, AddOne(std::move(spec), def, opts, add));
  ConvertedNode out{n, {}};
  for (int i = 0; i < n->num_outputs(); ++i) out.outputs.push_back(n->output(i));
  return out;
}

// padding="EXPLICIT": explicit_paddings' [before, after] pairs, reordered
// from NCHW to NHWC when the op is imported with transposes around it.
Result<std::vector<int64_t>> ExplicitPads(const tf::NodeDef& def, const std::string& tfg_op, bool nchw,
                                          const ImportOptions& opts) {
  if (tfg_op != "conv2d" && tfg_op != "depthwise_conv2d" && tfg_op != "max_pool") {
    return Fail(def, opts, "padding \"EXPLICIT\" is not supported yet for this op");
  }
  const tf::AttrValue* a = TfAttr(def, "explicit_paddings");
  if (!a || a->list().i_size() != 8) {
    return Fail(def, opts, "padding \"EXPLICIT\" needs explicit_paddings of 8 ints ([before, after] per dimension)");
  }
  std::vector<int64_t> pads;
  for (int dim : nchw ? std::vector<int>{0, 2, 3, 1} : std::vector<int>{0, 1, 2, 3}) {
    for (int k = 0; k < 2; ++k) {
      int64_t v = a->list().i(2 * dim + k);
      if (v < 0) return Fail(def, opts, "explicit_paddings must not be negative");
      pads.push_back(v);
    }
  }
  return pads;
}

// The pad node before an op imported with padding="EXPLICIT" as VALID.
// MaxPool's explicit padding never wins the max: it pads with -inf.
Result<Output> ExplicitPad(Output x, std::vector<int64_t> pads, bool lowest, const std::string& name,
                           const tf::NodeDef& def, const ImportOptions& opts, const AddNodeFn& add) {
  NodeSpec spec;
  spec.op = "pad";
  spec.inputs = {x};
  spec.attrs["paddings"] = std::move(pads);
  if (lowest) spec.attrs["constant_values"] = -std::numeric_limits<double>::infinity();
  spec.name = name;
  spec.device = def.device();
  TFG_ASSIGN_OR_RETURN(Node * n, AddOne(std::move(spec), def, opts, add));
  return n->output(0);
}

bool IsSpecial(const std::string& op) {
  return op == "Const" || op == "Placeholder" || op == "VariableV2" || op == "Variable" || op == "VarHandleOp" ||
         op == "ReadVariableOp" || op == "AssignVariableOp";
}

}  // namespace

std::string Scoped(const ImportOptions& opts, const std::string& name) {
  return opts.scope.empty() ? name : opts.scope + "/" + name;
}

bool CanImport(const std::string& tf_op) {
  if (IsSpecial(tf_op)) return true;
  const OpMapRow* row = TfTables::Get().ByTfOp(tf_op);
  return row && OpRegistry::Global().Find(row->tfg) != nullptr;
}

Result<ConvertedNode> ConvertNode(tf::NodeDef& def, const std::vector<Output>& inputs,
                                  const std::vector<Node*>& controls, ImportedTensors& /*known*/,
                                  const ImportOptions& opts, const AddNodeFn& add) {
  NodeSpec spec;
  spec.name = Scoped(opts, def.name());
  spec.device = def.device();
  spec.control_inputs = controls;
  if (IsSpecial(def.op())) return ConvertSpecial(def, inputs, opts, add, std::move(spec));
  const OpMapRow* row = TfTables::Get().ByTfOp(def.op());
  const OpDef* op = row ? OpRegistry::Global().Find(row->tfg) : nullptr;
  if (!op) return Fail(def, opts, "no tfg op for it");
  spec.op = op->name;
  std::vector<std::string> names = DataInputNames(def);
  std::vector<bool> consumed(inputs.size(), false);

  bool nchw = false;
  if (const tf::AttrValue* f = TfAttr(def, "data_format"); f && f->value_case() == tf::AttrValue::kS) {
    if (f->s() == "NCHW" && TakesDataFormat(op->name)) {
      nchw = true;
    } else if (f->s() != "NHWC" && f->s() != "N...C" && !f->s().empty()) {
      return Fail(def, opts, fmt::format("data_format \"{}\" is not supported", f->s()));
    }
  }
  std::vector<int64_t> explicit_pads;
  if (const tf::AttrValue* p = TfAttr(def, "padding"); p && p->s() == "EXPLICIT" && op->name != "pad") {
    TFG_ASSIGN_OR_RETURN(explicit_pads, ExplicitPads(def, op->name, nchw, opts));
    spec.attrs["padding"] = std::string("VALID");
  }

  std::set<std::string> renamed_tf;
  for (const AttrRename& r : row->attrs) {
    const AttrDef* ad = op->FindAttr(r.tfg);
    if (r.the_variable) {
      if (inputs.empty()) return Fail(def, opts, "no variable input");
      TFG_ASSIGN_OR_RETURN(const Node* var, VariableOf(def, inputs[0], opts));
      spec.attrs[r.tfg] = *var->attr<std::string>("shared_name");
      consumed[0] = true;
      continue;
    }
    if (!ad) continue;
    renamed_tf.insert(r.tf);
    if (r.tf_input >= 0 || r.last_input) {
      size_t k = r.last_input ? names.size() - 1 : static_cast<size_t>(r.tf_input);
      if (names.empty() || k >= names.size()) continue;  // TensorFlow left the optional input out
      TFG_ASSIGN_OR_RETURN(Tensor t, ConstantInput(def, names[k], inputs[k], opts));
      Result<AttrValue> v = FromConstTensor(t, ad->type);
      if (!v.ok()) return Fail(def, opts, fmt::format("input {} ({}): {}", k, r.tf, v.status().message()));
      spec.attrs[r.tfg] = std::move(v).value();
      consumed[k] = true;
      continue;
    }
    const tf::AttrValue* a = TfAttr(def, r.tf);
    if (!a) continue;
    Result<AttrValue> v = FromTfAttr(*a, ad->type);
    if (!v.ok()) return Fail(def, opts, fmt::format("attr '{}': {}", r.tf, v.status().message()));
    if (r.nhwc4) {
      auto* l = std::get_if<std::vector<int64_t>>(&*v);
      if (!l || l->size() != 4) return Fail(def, opts, fmt::format("attr '{}' must be a list of 4 ints", r.tf));
      *v = std::vector<int64_t>{(*l)[nchw ? 2 : 1], (*l)[nchw ? 3 : 2]};
    }
    spec.attrs[r.tfg] = std::move(v).value();
  }
  // TensorFlow inputs that are tfg attrs of the same name (Reshape's shape).
  if (const TfOpSignature* sig = TfTables::Get().Signature(def.op())) {
    for (size_t k = 0; k < sig->inputs.size() && k < names.size(); ++k) {
      const TfArg& arg = sig->inputs[k];
      if (!arg.number_attr.empty() || !arg.list_attr.empty()) break;  // positions past a list are not fixed
      const AttrDef* ad = op->FindAttr(arg.name);
      if (!ad || consumed[k] || spec.attrs.count(arg.name) || op->FindInput(arg.name) >= 0) continue;
      TFG_ASSIGN_OR_RETURN(Tensor t, ConstantInput(def, names[k], inputs[k], opts));
      Result<AttrValue> v = FromConstTensor(t, ad->type);
      if (!v.ok()) return Fail(def, opts, fmt::format("input {} ({}): {}", k, arg.name, v.status().message()));
      spec.attrs[arg.name] = std::move(v).value();
      consumed[k] = true;
    }
  }
  // Attrs both sides call the same (padding, epsilon, frame_name, ...).
  for (const auto& [name, value] : def.attr()) {
    if (name.empty() || name[0] == '_' || renamed_tf.count(name) || spec.attrs.count(name)) continue;
    const AttrDef* ad = op->FindAttr(name);
    if (!ad || ad->inferred) continue;
    // A named copy: a structured binding cannot be captured before C++20's
    // rule, and the fuzz build's clang follows the older one.
    const std::string& attr_name = name;
    if (std::any_of(op->inputs.begin(), op->inputs.end(),
                    [&attr_name](const ArgDef& a) { return a.count_attr == attr_name; })) {
      continue;
    }
    Result<AttrValue> v = FromTfAttr(value, ad->type);
    if (!v.ok()) return Fail(def, opts, fmt::format("attr '{}': {}", name, v.status().message()));
    spec.attrs[name] = std::move(v).value();
  }
  if (op->name == "enter") {
    if (auto* frame = std::get_if<std::string>(&spec.attrs["frame_name"])) *frame = Scoped(opts, *frame);
  }

  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!consumed[i]) spec.inputs.push_back(inputs[i]);
  }
  int lists = 0;
  for (const ArgDef& a : op->inputs) lists += a.is_list ? 1 : 0;
  if (lists > 1) return Fail(def, opts, "ops with several list inputs are not supported yet");
  if (lists == 1) {
    int64_t count = static_cast<int64_t>(spec.inputs.size()) - static_cast<int64_t>(op->inputs.size() - 1);
    if (count < 0) return Fail(def, opts, "too few inputs");
    for (const ArgDef& a : op->inputs) {
      if (a.is_list) spec.attrs[a.count_attr] = count;
    }
  }
  if (nchw) {
    if (spec.inputs.empty() || spec.inputs[0].shape().rank() != 4) {
      return Fail(def, opts, "data_format NCHW needs a 4-D input of known rank");
    }
    TFG_ASSIGN_OR_RETURN(spec.inputs[0], Transposed(spec.inputs[0], {0, 2, 3, 1}, spec.name + "/to_nhwc", def,
                                                    opts, add));
  }
  if (!explicit_pads.empty()) {
    if (spec.inputs.empty()) return Fail(def, opts, "too few inputs");
    TFG_ASSIGN_OR_RETURN(spec.inputs[0], ExplicitPad(spec.inputs[0], explicit_pads, op->name == "max_pool",
                                                     spec.name + "/explicit_pad", def, opts, add));
  }
  std::string name = spec.name;
  TFG_ASSIGN_OR_RETURN(Node * n, AddOne(std::move(spec), def, opts, add));
  ConvertedNode out{n, {}};
  for (int i = 0; i < n->num_outputs(); ++i) out.outputs.push_back(n->output(i));
  if (nchw) {
    TFG_ASSIGN_OR_RETURN(out.outputs[0], Transposed(out.outputs[0], {0, 3, 1, 2}, name + "/to_nchw", def, opts,
                                                    add));
  }
  return out;
}

}  // namespace tfg::interop
