// The reference text of one op, from its registry entry (moved out of
// interp/app/op_docs.cc so that help() in a script shows the very text of
// docs/ops.md).
#include "interp/language/op_doc_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>

namespace tfg {
namespace {

std::string JoinDocItems(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// `name`: T, where T names a type attr or a dtype ("bool").
std::string ArgText(const OpDef& op, const ArgDef& arg, bool is_output) {
  const AttrDef* type_list = op.FindAttr(arg.type);
  if (arg.is_list && type_list && type_list->type == AttrType::kTypeList) {
    return fmt::format("`{}`: list of tensors (dtypes given by `{}`)", arg.name, arg.type);
  }
  std::string type = arg.type;
  if (arg.is_list) {
    type = "list of " + type;
    // Input list lengths are inferred from the list given; output list
    // lengths come from an attr the caller sets.
    if (is_output) type += ", length `" + arg.count_attr + "`";
  }
  return fmt::format("`{}`: {}", arg.name, type);
}

std::string AttrText(const AttrDef& attr) {
  std::string text = fmt::format("`{}`: {}", attr.name, AttrTypeName(attr.type));
  if (attr.type == AttrType::kType && !attr.allowed_types.empty()) {
    text += " in " + DTypeSetToString(attr.allowed_types);
  }
  if (attr.inferred && attr.type == AttrType::kTypeList) text += " (inferred from the inputs, one per tensor)";
  else if (attr.inferred) text += " (inferred from the inputs)";
  else if (attr.default_value) text += " = `" + AttrValueToString(*attr.default_value) + "`";
  else text += " (required)";
  if (!attr.doc.empty()) text += " — " + attr.doc;
  return text;
}

std::string GradientText(const OpDef& op) {
  if (op.grad_fn) return "yes";
  if (!op.no_gradient_reason.empty()) return "none (" + op.no_gradient_reason + ")";
  return "not yet";
}

// The dtypes a kernel accepts: its constraint, else everything the
// constrained type attr allows. Empty when the op has no type attr.
DTypeSet KernelTypes(const OpDef& op, const KernelDef& k) {
  if (!k.types.empty()) return k.types;
  const AttrDef* attr = k.type_attr.empty() ? nullptr : op.FindAttr(k.type_attr);
  if (attr == nullptr) {
    for (const AttrDef& a : op.attrs) {
      if (a.type == AttrType::kType) {
        attr = &a;
        break;
      }
    }
  }
  if (attr == nullptr) return {};
  return attr->allowed_types.empty() ? AllTypes() : attr->allowed_types;
}

// "cpu: f32, f64; gpu: f32", devices and dtypes in enum order so the text
// does not depend on registration (static initialisation) order.
std::string KernelsText(const OpDef& op, const OpRegistry& registry) {
  std::map<DeviceType, std::vector<bool>> by_device;
  for (const KernelDef* k : registry.KernelsFor(op.name)) {
    std::vector<bool>& seen = by_device[k->device];
    seen.resize(std::size(kAllDTypes) + 1);
    for (DType t : KernelTypes(op, *k)) seen[static_cast<size_t>(t)] = true;
  }
  if (by_device.empty()) return "none yet";
  std::vector<std::string> parts;
  for (const auto& [device, seen] : by_device) {
    std::vector<std::string> types;
    for (DType t : kAllDTypes) {
      if (seen[static_cast<size_t>(t)]) types.emplace_back(DTypeName(t));
    }
    std::string name(DeviceTypeName(device));
    parts.push_back(types.empty() ? name : name + " (" + JoinDocItems(types, ", ") + ")");
  }
  return JoinDocItems(parts, "; ");
}

}  // namespace

std::string OpDocSection(const OpDef& op, const OpRegistry& registry) {
  std::vector<std::string> inputs, outputs, attrs;
  for (const ArgDef& a : op.inputs) inputs.push_back(ArgText(op, a, false));
  for (const ArgDef& a : op.outputs) outputs.push_back(ArgText(op, a, true));
  for (const AttrDef& a : op.attrs) {
    // List-length attrs of inputs are bookkeeping, never written by users.
    bool list_count = std::any_of(op.inputs.begin(), op.inputs.end(),
                                  [&](const ArgDef& in) { return in.is_list && in.count_attr == a.name; });
    if (!list_count) attrs.push_back(AttrText(a));
  }
  std::string out = fmt::format("## {}\n\n```\n{}\n```\n\n", op.name, OpSignature(op));
  if (!op.doc.empty()) out += op.doc + "\n\n";
  out += "- **inputs:** " + (inputs.empty() ? "none" : JoinDocItems(inputs, ", ")) + "\n";
  out += "- **outputs:** " + (outputs.empty() ? "none" : JoinDocItems(outputs, ", ")) + "\n";
  if (!attrs.empty()) out += "- **attrs:**\n  - " + JoinDocItems(attrs, "\n  - ") + "\n";
  out += "- **gradient:** " + GradientText(op) + "\n";
  out += std::string("- **stateful:** ") + (op.stateful ? "yes" : "no") + "\n";
  out += "- **kernels:** " + KernelsText(op, registry) + "\n\n";
  return out;
}


std::string OpSignature(const OpDef& op) {
  std::vector<std::string> params;
  for (const ParamRef& p : op.params) {
    if (p.is_input || p.is_variable) {
      params.push_back(p.is_input ? op.inputs[p.index].name : op.variables[p.index]);
      continue;
    }
    const AttrDef& attr = op.attrs[p.index];
    if (attr.inferred) continue;
    params.push_back(attr.default_value ? attr.name + "=" + AttrValueToString(*attr.default_value) : attr.name);
  }
  return op.name + "(" + JoinDocItems(params, ", ") + ")";
}

}  // namespace tfg
