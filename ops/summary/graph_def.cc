#include "ops/summary/graph_def.h"

#include <variant>

namespace tfg::summary {
namespace {

std::string InputName(const Output& in) {
  if (in.index == 0) return in.node->name();
  return in.node->name() + ":" + std::to_string(in.index);
}

// Each tfg attr type into its AttrValue field. A list stays a list when
// empty (TensorBoard shows []).
bool SetAttr(int64_t v, pb::AttrValue& out) {
  out.set_i(v);
  return true;
}
bool SetAttr(double v, pb::AttrValue& out) {
  out.set_f(static_cast<float>(v));
  return true;
}
bool SetAttr(bool v, pb::AttrValue& out) {
  out.set_b(v);
  return true;
}
bool SetAttr(const std::string& v, pb::AttrValue& out) {
  out.set_s(v);
  return true;
}
bool SetAttr(DType v, pb::AttrValue& out) {
  out.set_type(ToProtoDType(v));
  return true;
}
bool SetAttr(const PartialShape& v, pb::AttrValue& out) {
  *out.mutable_shape() = ToProtoShape(v);
  return true;
}
bool SetAttr(const std::vector<int64_t>& v, pb::AttrValue& out) {
  for (int64_t x : v) out.mutable_list()->add_i(x);
  out.mutable_list();
  return true;
}
bool SetAttr(const std::vector<double>& v, pb::AttrValue& out) {
  for (double x : v) out.mutable_list()->add_f(static_cast<float>(x));
  out.mutable_list();
  return true;
}
bool SetAttr(const std::vector<DType>& v, pb::AttrValue& out) {
  for (DType x : v) out.mutable_list()->add_type(ToProtoDType(x));
  out.mutable_list();
  return true;
}
bool SetAttr(const std::vector<PartialShape>& v, pb::AttrValue& out) {
  for (const PartialShape& x : v) *out.mutable_list()->add_shape() = ToProtoShape(x);
  out.mutable_list();
  return true;
}
bool SetAttr(const std::vector<std::string>& v, pb::AttrValue& out) {
  for (const std::string& x : v) out.mutable_list()->add_s(x);
  out.mutable_list();
  return true;
}
// An unset optional attr has no value; a constant's tensor is left out
// (its dtype and shape are in the other attrs, and it may be large).
bool SetAttr(std::monostate, pb::AttrValue&) { return false; }
bool SetAttr(const Tensor&, pb::AttrValue&) { return false; }

pb::NodeDef ToNodeDef(const Node& node) {
  pb::NodeDef def;
  def.set_name(node.name());
  def.set_op(node.op_name());
  for (const Output& in : node.inputs()) def.add_input(InputName(in));
  for (const Node* c : node.control_inputs()) def.add_input("^" + c->name());
  def.set_device(node.assigned_device().empty() ? node.requested_device() : node.assigned_device());
  auto& attrs = *def.mutable_attr();
  for (const auto& [name, value] : node.attrs()) {
    pb::AttrValue v;
    if (std::visit([&v](const auto& x) { return SetAttr(x, v); }, value)) attrs[name] = std::move(v);
  }
  pb::AttrValue::ListValue* shapes = attrs["_output_shapes"].mutable_list();
  for (const PartialShape& s : node.output_shapes()) *shapes->add_shape() = ToProtoShape(s);
  if (node.span().valid()) attrs["_source"].set_s(node.span().ToString());
  return def;
}

}  // namespace

pb::DataType ToProtoDType(DType dtype) {
  switch (dtype) {
    case DType::kF16: return pb::DT_HALF;
    case DType::kF32: return pb::DT_FLOAT;
    case DType::kF64: return pb::DT_DOUBLE;
    case DType::kI32: return pb::DT_INT32;
    case DType::kI64: return pb::DT_INT64;
    case DType::kBool: return pb::DT_BOOL;
    case DType::kString: return pb::DT_STRING;
    case DType::kInvalid: break;
  }
  return pb::DT_INVALID;
}

pb::TensorShapeProto ToProtoShape(const PartialShape& shape) {
  pb::TensorShapeProto p;
  if (!shape.known_rank()) {
    p.set_unknown_rank(true);
    return p;
  }
  for (int64_t d : shape.dims()) p.add_dim()->set_size(d);
  return p;
}

pb::GraphDef ToGraphDef(const Graph& graph) {
  pb::GraphDef def;
  for (const auto& node : graph.nodes()) *def.add_node() = ToNodeDef(*node);
  return def;
}

}  // namespace tfg::summary
