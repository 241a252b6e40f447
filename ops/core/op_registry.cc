#include "ops/core/op_registry.h"

#include <algorithm>
#include <iostream>

#include "ops/core/suggest.h"

namespace tfg {

const AttrDef* OpDef::FindAttr(const std::string& attr_name) const {
  for (const AttrDef& a : attrs) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

int OpDef::FindInput(const std::string& input_name) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].name == input_name) return static_cast<int>(i);
  }
  return -1;
}

OpDefBuilder::OpDefBuilder(std::string name) { def_.name = std::move(name); }

OpDefBuilder& OpDefBuilder::Input(std::string name, std::string type) {
  def_.params.push_back({true, static_cast<int>(def_.inputs.size())});
  def_.inputs.push_back({std::move(name), std::move(type), false, ""});
  return *this;
}

// A list's `type` may also name a kTypeList attr: its tensors then have one
// dtype each (a queue's f32 images and i32 labels). On inputs the attr is
// inferred element by element (checked when given); an output list gets one
// tensor per listed dtype, and its `count_attr` may be empty.
OpDefBuilder& OpDefBuilder::InputList(std::string name, std::string type, std::string count_attr) {
  if (count_attr.empty()) count_attr = name + "_count";
  def_.params.push_back({true, static_cast<int>(def_.inputs.size())});
  def_.inputs.push_back({std::move(name), std::move(type), true, count_attr});
  // The count is always inferred from the list given.
  def_.attrs.push_back({count_attr, AttrType::kInt, std::nullopt, {}, true, "number of tensors in the list"});
  return *this;
}

OpDefBuilder& OpDefBuilder::VariableInput(std::string name, std::string type) {
  def_.params.push_back({false, static_cast<int>(def_.variables.size()), true});
  def_.variables.push_back(name);
  def_.attrs.push_back({name, AttrType::kString, std::nullopt, {}, false, "shared name of the variable"});
  def_.attrs.push_back({name + "_container", AttrType::kString, std::string(), {}, false, "its container"});
  def_.variable_types.push_back(std::move(type));
  return *this;
}

OpDefBuilder& OpDefBuilder::Output(std::string name, std::string type) {
  def_.outputs.push_back({std::move(name), std::move(type), false, ""});
  return *this;
}

OpDefBuilder& OpDefBuilder::OutputList(std::string name, std::string type, std::string count_attr) {
  def_.outputs.push_back({std::move(name), std::move(type), true, std::move(count_attr)});
  return *this;
}

OpDefBuilder& OpDefBuilder::TypeAttr(std::string name, DTypeSet allowed, std::optional<DType> default_type) {
  std::optional<AttrValue> def;
  if (default_type) def = AttrValue(*default_type);
  // Whether it is inferred is decided in Build(), once all inputs are known.
  def_.params.push_back({false, static_cast<int>(def_.attrs.size())});
  def_.attrs.push_back({std::move(name), AttrType::kType, std::move(def), std::move(allowed), false, ""});
  return *this;
}

OpDefBuilder& OpDefBuilder::Attr(std::string name, AttrType type, std::optional<AttrValue> default_value,
                                 std::string doc) {
  // Integer literals in defaults are ints; widen them for float attrs so
  // `.Attr("stddev", AttrType::kFloat, 1.0)` and `..., 1)` both work.
  if (default_value && type == AttrType::kFloat) {
    if (const auto* i = std::get_if<int64_t>(&*default_value)) default_value = static_cast<double>(*i);
  }
  def_.params.push_back({false, static_cast<int>(def_.attrs.size())});
  def_.attrs.push_back({std::move(name), type, std::move(default_value), {}, false, std::move(doc)});
  return *this;
}

OpDefBuilder& OpDefBuilder::Stateful() {
  def_.stateful = true;
  return *this;
}
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) {
  def_.shape_fn = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::SetCostFn(CostFn fn) {
  def_.cost_fn = std::move(fn);
  return *this;
}

OpDefBuilder& OpDefBuilder::SetGradFn(GradFn fn) {
  def_.grad_fn = std::move(fn);
  return *this;
}
OpDefBuilder& OpDefBuilder::NoGradient(std::string reason) {
  def_.no_gradient_reason = std::move(reason);
  return *this;
}
OpDefBuilder& OpDefBuilder::Doc(std::string doc) {
  def_.doc = std::move(doc);
  return *this;
}

OpDef OpDefBuilder::Build() && {
  // A type (or type-list) attr named by some input is inferred from it:
  // keyword-only.
  for (AttrDef& a : def_.attrs) {
    if (a.type != AttrType::kType && a.type != AttrType::kTypeList) continue;
    for (const ArgDef& in : def_.inputs) {
      if (in.type == a.name) a.inferred = true;
    }
    for (const std::string& t : def_.variable_types) {
      if (t == a.name) a.inferred = true;
    }
  }
  std::vector<ParamRef> params;
  for (const ParamRef& p : def_.params) {
    if (!p.is_input && !p.is_variable && def_.attrs[p.index].inferred) continue;
    params.push_back(p);
  }
  def_.params = std::move(params);
  return std::move(def_);
}

KernelDef& KernelDef::TypeConstraint(DTypeSet t, std::string attr) {
  types = std::move(t);
  type_attr = std::move(attr);
  return *this;
}

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();  // never destroyed: used by static registrars
  return *registry;
}

namespace {

bool IsTypeListArg(const OpDef& def, const ArgDef& arg) {
  const AttrDef* a = def.FindAttr(arg.type);
  return a != nullptr && a->type == AttrType::kTypeList;
}

// Every input/output type must be a dtype name or a declared type attr (a
// type-list attr for lists only); every list count a declared int attr,
// which an output list typed by a type list may leave out.
std::string CheckOpDef(const OpDef& def) {
  auto known_type = [&](const std::string& t) {
    if (DTypeFromName(t)) return true;
    const AttrDef* a = def.FindAttr(t);
    return a != nullptr && a->type == AttrType::kType;
  };
  for (const auto* args : {&def.inputs, &def.outputs}) {
    for (const ArgDef& arg : *args) {
      const bool type_list = IsTypeListArg(def, arg);
      if (type_list && !arg.is_list) return "argument '" + arg.name + "' is typed by type list '" + arg.type + "' but is no list";
      if (!type_list && !known_type(arg.type)) return "argument '" + arg.name + "' has unknown type '" + arg.type + "'";
      if (!arg.is_list || (type_list && arg.count_attr.empty())) continue;
      const AttrDef* count = def.FindAttr(arg.count_attr);
      if (!count || count->type != AttrType::kInt) return "list '" + arg.name + "' needs int attr '" + arg.count_attr + "'";
    }
  }
  return "";
}

}  // namespace

void OpRegistry::Register(OpDef def) {
  if (Find(def.name)) {
    std::cerr << "tfg: internal: op '" << def.name << "' registered twice; keeping the first\n";
    return;
  }
  std::string problem = CheckOpDef(def);
  if (!problem.empty()) {
    std::cerr << "tfg: internal: op '" << def.name << "': " << problem << "; op skipped\n";
    return;
  }
  ops_.push_back(std::make_unique<OpDef>(std::move(def)));
}

void OpRegistry::RegisterKernel(KernelDef def) {
  if (!def.factory) {
    std::cerr << "tfg: internal: kernel for op '" << def.op << "' has no factory; skipped\n";
    return;
  }
  kernels_.push_back(std::make_unique<KernelDef>(std::move(def)));
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  for (const auto& op : ops_) {
    if (op->name == name) return op.get();
  }
  return nullptr;
}

std::vector<const OpDef*> OpRegistry::ListOps() const {
  std::vector<const OpDef*> out;
  for (const auto& op : ops_) out.push_back(op.get());
  std::sort(out.begin(), out.end(), [](const OpDef* a, const OpDef* b) { return a->name < b->name; });
  return out;
}

std::vector<const KernelDef*> OpRegistry::KernelsFor(const std::string& op) const {
  std::vector<const KernelDef*> out;
  for (const auto& k : kernels_) {
    if (k->op == op) out.push_back(k.get());
  }
  return out;
}

namespace {

// The type attr a kernel's constraint applies to: the named one, else the
// op's first type attr.
const DType* ConstrainedType(const OpDef& op, const KernelDef& k, const AttrMap& attrs) {
  std::string attr = k.type_attr;
  if (attr.empty()) {
    for (const AttrDef& a : op.attrs) {
      if (a.type == AttrType::kType) {
        attr = a.name;
        break;
      }
    }
  }
  return attr.empty() ? nullptr : FindAttr<DType>(attrs, attr);
}

}  // namespace

Result<const KernelDef*> OpRegistry::FindKernel(const OpDef& op, DeviceType device, const AttrMap& attrs) const {
  bool any_for_device = false;
  const DType* dtype = nullptr;
  for (const auto& k : kernels_) {
    if (k->op != op.name || k->device != device) continue;
    any_for_device = true;
    dtype = ConstrainedType(op, *k, attrs);
    if (k->types.empty() || !dtype) return k.get();
    if (std::find(k->types.begin(), k->types.end(), *dtype) != k->types.end()) return k.get();
  }
  if (!any_for_device) {
    return Error(Code::kUnimplemented, "op '{}' has no {} kernel", op.name, DeviceTypeName(device));
  }
  return Error(Code::kUnimplemented, "op '{}' has no {} kernel for dtype {}", op.name, DeviceTypeName(device),
               dtype ? DTypeName(*dtype) : "?");
}

std::vector<std::string> OpRegistry::Suggest(const std::string& name) const {
  // By name, so that ops equally near come out in alphabetical order.
  std::vector<std::string> names;
  for (const OpDef* op : ListOps()) names.push_back(op->name);
  return ClosestNames(name, names, 3);
}

}  // namespace tfg
