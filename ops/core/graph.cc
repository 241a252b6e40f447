#include "ops/core/graph.h"

#include <algorithm>

#include "ops/core/checked_size.h"

namespace tfg {

DType Output::dtype() const { return node->output_types()[index]; }
const PartialShape& Output::shape() const { return node->output_shapes()[index]; }
std::string Output::name() const { return node->name() + ":" + std::to_string(index); }

void Node::AddControlInput(Node* n) {
  if (n == nullptr || n == this) return;
  if (std::find(control_inputs_.begin(), control_inputs_.end(), n) != control_inputs_.end()) return;
  control_inputs_.push_back(n);
  if (graph_) ++graph_->edits_;
}

Status Node::RefineOutputShape(int i, const PartialShape& s) {
  if (i < 0 || i >= num_outputs()) return InvalidArgument("'{}' has no output {}", name_, i);
  auto merged = output_shapes_[i].Merge(s);
  if (!merged.ok()) {
    return InvalidArgument("cannot set the shape of '{}' to {}: it is {}", name_, s.ToString(),
                           output_shapes_[i].ToString());
  }
  if (*merged != output_shapes_[i]) {
    output_shapes_[i] = *merged;
    if (graph_) ++graph_->edits_;
  }
  return Status::OK();
}

Status Node::ReplaceInput(int i, Output src) {
  if (i < 0 || i >= static_cast<int>(inputs_.size())) return InvalidArgument("'{}' has no input {}", name_, i);
  if (src.node == nullptr || src.dtype() != input_types_[i]) {
    return InvalidArgument("cannot replace input {} of '{}' ({}) by a tensor of another dtype", i, name_,
                           DTypeName(input_types_[i]));
  }
  inputs_[i] = src;
  if (graph_) ++graph_->edits_;
  return Status::OK();
}

namespace {

bool IsTypeListArg(const OpDef& op, const ArgDef& arg) {
  const AttrDef* a = op.FindAttr(arg.type);
  return arg.is_list && a != nullptr && a->type == AttrType::kTypeList;
}

// A list input typed by a type-list attr: the attr is the list's dtypes,
// inferred element by element, or checked element by element when given.
Status BindTypeList(const OpDef& op, const ArgDef& arg, const DType* got, int count, AttrMap& attrs,
                    std::vector<DType>& input_types) {
  std::vector<DType> types(got, got + count);
  if (const auto* given = FindAttr<std::vector<DType>>(attrs, arg.type)) {
    if (given->size() != types.size()) {
      return InvalidArgument("{}: {} lists {} dtype{}, but input '{}' has {} tensor{}", op.name, arg.type,
                             given->size(), given->size() == 1 ? "" : "s", arg.name, count, count == 1 ? "" : "s");
    }
    for (size_t k = 0; k < types.size(); ++k) {
      if (types[k] == (*given)[k]) continue;
      return InvalidArgument("{}: input '{}[{}]' must be {} ({}[{}]), got {}", op.name, arg.name, k,
                             DTypeName((*given)[k]), arg.type, k, DTypeName(types[k]));
    }
  }
  input_types.insert(input_types.end(), types.begin(), types.end());
  // A given value of the wrong kind stays for CheckAttrs to report.
  attrs.emplace(arg.type, std::move(types));
  return Status::OK();
}

// Binds the flattened input dtypes to the op's input args, inferring type
// attrs; `first_user` remembers which input fixed each type attr so a
// mismatch names both inputs.
Status BindInputTypes(const OpDef& op, const std::vector<DType>& dtypes, AttrMap& attrs,
                      std::vector<DType>& input_types) {
  int fixed = 0;
  const ArgDef* list = nullptr;
  for (const ArgDef& a : op.inputs) {
    if (a.is_list) {
      list = &a;
    } else {
      ++fixed;
    }
  }
  int total = static_cast<int>(dtypes.size());
  if ((list == nullptr && total != fixed) || total < fixed) {
    return InvalidArgument("{} takes {}{} input{}, got {}", op.name, list ? "at least " : "", fixed,
                           fixed == 1 ? "" : "s", total);
  }
  if (list) attrs[list->count_attr] = static_cast<int64_t>(total - fixed);

  std::map<std::string, std::string> first_user;
  int next = 0;
  for (const ArgDef& arg : op.inputs) {
    int count = arg.is_list ? total - fixed : 1;
    if (IsTypeListArg(op, arg)) {
      TFG_RETURN_IF_ERROR(BindTypeList(op, arg, dtypes.data() + next, count, attrs, input_types));
      next += count;
      continue;
    }
    for (int k = 0; k < count; ++k, ++next) {
      DType got = dtypes[next];
      std::string what = arg.is_list ? arg.name + "[" + std::to_string(k) + "]" : arg.name;
      if (auto fixed_type = DTypeFromName(arg.type)) {
        if (got != *fixed_type) {
          return InvalidArgument("{}: input '{}' must be {}, got {}", op.name, what, DTypeName(*fixed_type),
                                 DTypeName(got));
        }
      } else if (const DType* bound = FindAttr<DType>(attrs, arg.type)) {
        if (*bound != got) {
          auto it = first_user.find(arg.type);
          if (it != first_user.end()) {
            return InvalidArgument("{}: inputs '{}' and '{}' must have the same dtype, got {} and {}", op.name,
                                   it->second, what, DTypeName(*bound), DTypeName(got));
          }
          return InvalidArgument("{}: input '{}' must be {} ({}={}), got {}", op.name, what, DTypeName(*bound),
                                 arg.type, DTypeName(*bound), DTypeName(got));
        }
      } else {
        attrs[arg.type] = got;
        first_user[arg.type] = what;
      }
      input_types.push_back(got);
    }
  }
  return Status::OK();
}

// Fills defaults, then checks presence, attr types and allowed dtypes.
Status CheckAttrs(const OpDef& op, AttrMap& attrs) {
  for (const auto& [name, value] : attrs) {
    if (!op.FindAttr(name)) return InvalidArgument("{} has no attribute '{}'", op.name, name);
  }
  for (const AttrDef& a : op.attrs) {
    auto it = attrs.find(a.name);
    if (it == attrs.end()) {
      if (!a.default_value) return InvalidArgument("{}: missing required argument '{}'", op.name, a.name);
      it = attrs.emplace(a.name, *a.default_value).first;
    }
    if (!AttrHasType(it->second, a.type)) {
      return InvalidArgument("{}: argument '{}' must be a {}, got {}", op.name, a.name, AttrTypeName(a.type),
                             AttrValueToString(it->second));
    }
    const DType* d = std::get_if<DType>(&it->second);
    if (d && !a.allowed_types.empty() &&
        std::find(a.allowed_types.begin(), a.allowed_types.end(), *d) == a.allowed_types.end()) {
      return InvalidArgument("{}: dtype {} is not supported; expected one of {}", op.name, DTypeName(*d),
                             DTypeSetToString(a.allowed_types));
    }
  }
  return Status::OK();
}

// An output list typed by a type-list attr: one tensor per listed dtype.
Status ResolveTypeListOutput(const OpDef& op, const ArgDef& arg, const AttrMap& attrs, std::vector<DType>& out) {
  const auto* types = FindAttr<std::vector<DType>>(attrs, arg.type);
  if (!types) return InvalidArgument("{}: cannot tell the dtypes of output '{}': give {}=", op.name, arg.name, arg.type);
  if (!arg.count_attr.empty()) {
    const int64_t* n = FindAttr<int64_t>(attrs, arg.count_attr);
    if (!n || *n != static_cast<int64_t>(types->size())) {
      return InvalidArgument("{}: {} lists {} dtype{}, but {} is {}", op.name, arg.type, types->size(),
                             types->size() == 1 ? "" : "s", arg.count_attr, n ? std::to_string(*n) : "not set");
    }
  }
  out.insert(out.end(), types->begin(), types->end());
  return Status::OK();
}

Status ResolveOutputTypes(const OpDef& op, const AttrMap& attrs, std::vector<DType>& out) {
  for (const ArgDef& arg : op.outputs) {
    if (IsTypeListArg(op, arg)) {
      TFG_RETURN_IF_ERROR(ResolveTypeListOutput(op, arg, attrs, out));
      continue;
    }
    DType t;
    if (auto fixed = DTypeFromName(arg.type)) {
      t = *fixed;
    } else if (const DType* bound = FindAttr<DType>(attrs, arg.type)) {
      t = *bound;
    } else {
      return InvalidArgument("{}: cannot tell the dtype of output '{}': give {}=", op.name, arg.name, arg.type);
    }
    int64_t count = 1;
    if (arg.is_list) {
      const int64_t* n = FindAttr<int64_t>(attrs, arg.count_attr);
      if (!n || *n < 0) return InvalidArgument("{}: '{}' must be a non-negative int", op.name, arg.count_attr);
      // Each output is a graph edge with its own shape: a count past this is
      // a typo, not a graph, and must not reach an allocation.
      constexpr int64_t kMaxListOutputs = int64_t{1} << 20;
      if (*n > kMaxListOutputs) {
        return InvalidArgument("{}: '{}' is {}, more than the limit of {} outputs", op.name, arg.count_attr, *n,
                               kMaxListOutputs);
      }
      count = *n;
    }
    out.insert(out.end(), static_cast<size_t>(count), t);
  }
  return Status::OK();
}

}  // namespace

Result<Signature> ResolveSignature(const OpDef& op, const std::vector<DType>& input_dtypes, AttrMap& attrs) {
  Signature sig;
  TFG_RETURN_IF_ERROR(BindInputTypes(op, input_dtypes, attrs, sig.input_types));
  TFG_RETURN_IF_ERROR(CheckAttrs(op, attrs));
  TFG_RETURN_IF_ERROR(ResolveOutputTypes(op, attrs, sig.output_types));
  return sig;
}

namespace {

Result<std::vector<PartialShape>> InferShapes(const OpDef& op, const std::vector<Output>& inputs,
                                              const AttrMap& attrs, const Signature& sig) {
  int num_outputs = static_cast<int>(sig.output_types.size());
  if (!op.shape_fn) return std::vector<PartialShape>(num_outputs);
  std::vector<PartialShape> shapes;
  std::vector<const Tensor*> values;
  for (const Output& in : inputs) {
    shapes.push_back(in.shape());
    values.push_back(in.node->op_name() == "constant" ? in.node->attr<Tensor>("value") : nullptr);
  }
  ShapeContext ctx(&op, &attrs, std::move(shapes), sig.input_types, std::move(values), num_outputs);
  Status s = op.shape_fn(ctx);
  if (!s.ok()) {
    // Shape errors name the op; add it when the shape function did not.
    if (s.message().rfind(op.name, 0) != 0) s.Prepend(op.name + ": ");
    return s;
  }
  // The one graph-building check of sizes, for every op: a shape no tensor
  // could have fails here, at the line that builds it, not in a kernel.
  for (const PartialShape& shape : ctx.output_shapes()) {
    TFG_RETURN_IF_ERROR(checked::CheckPartialShape(op.name, shape));
  }
  return ctx.output_shapes();
}

}  // namespace

Result<Node*> Graph::AddNode(NodeSpec spec) {
  const OpDef* op = OpRegistry::Global().Find(spec.op);
  if (!op) return Status(Code::kNotFound, "unknown op '" + spec.op + "'", spec.span);
  std::vector<DType> dtypes;
  for (const Output& in : spec.inputs) {
    if (!in.node || in.node->graph_ != this || in.index < 0 || in.index >= in.node->num_outputs()) {
      return Status(Code::kInternal, op->name + ": invalid input edge", spec.span);
    }
    dtypes.push_back(in.dtype());
  }
  auto sig = ResolveSignature(*op, dtypes, spec.attrs);
  if (!sig.ok()) return Status(sig.status()).WithSpan(spec.span);
  auto shapes = InferShapes(*op, spec.inputs, spec.attrs, *sig);
  if (!shapes.ok()) return Status(shapes.status()).WithSpan(spec.span);

  auto node = std::make_unique<Node>();
  node->id_ = static_cast<int>(nodes_.size());
  node->name_ = UniqueName(spec.name.empty() ? op->name : spec.name);
  node->op_ = op;
  node->inputs_ = std::move(spec.inputs);
  node->attrs_ = std::move(spec.attrs);
  node->input_types_ = std::move(sig->input_types);
  node->output_types_ = std::move(sig->output_types);
  node->output_shapes_ = std::move(*shapes);
  node->requested_device_ = std::move(spec.device);
  node->span_ = std::move(spec.span);
  // Added before graph_ is set: a new node's edges are no edit of the graph.
  for (Node* c : spec.control_inputs) node->AddControlInput(c);
  node->graph_ = this;
  Node* raw = node.get();
  by_name_[raw->name_] = raw;
  nodes_.push_back(std::move(node));
  return raw;
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::string Graph::UniqueName(const std::string& base) {
  if (!by_name_.count(base)) return base;
  int& n = name_counts_[base];
  std::string candidate;
  do {
    candidate = base + "_" + std::to_string(++n);
  } while (by_name_.count(candidate));
  return candidate;
}

}  // namespace tfg

