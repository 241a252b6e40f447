// The builder that export's compositions (export_composite.cc,
// export_grad_composite.cc) write TensorFlow nodes with: each node named
// "<node>/<part>" ("" for the tfg node's own name), on the node's device.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "interp/interop/attr_convert.h"
#include "interp/interop/export_composite.h"
#include "interp/interop/tensor_proto.h"
#include "ops/core/graph.h"
#include "ops/core/status.h"
#include "proto/tf_graph.pb.h"

namespace tfg::interop {

inline Status ComposeFail(const Node& n, const std::string& why) {
  return Status(Code::kUnimplemented, fmt::format("export: node '{}' ({}): {}", n.name(), n.op_name(), why), n.span());
}

// Writes the TensorFlow nodes of one composition.
class Composer {
 public:
  Composer(const Node& n, const std::function<std::string(const Output&)>& tensor_name, tf::GraphDef& out)
      : n_(n), out_(out) {
    for (const Output& o : n.inputs()) inputs_.push_back(tensor_name(o));
    // Constants read the node's first input as a control input, as
    // TensorFlow's own gradient constants do: inside a while loop that puts
    // them in the loop's frame (a plain Const would sit in the root frame).
    if (!inputs_.empty()) anchor_ = "^" + inputs_[0].substr(0, inputs_[0].find(':'));
  }

  const std::string& in(int i) const { return inputs_[static_cast<size_t>(i)]; }
  DType dtype(int i) const { return n_.input_types()[static_cast<size_t>(i)]; }
  DType t() const { return dtype(0); }
  std::string Name(const std::string& part) const { return part.empty() ? n_.name() : n_.name() + "/" + part; }

  tf::NodeDef* Op(const std::string& part, const std::string& op, const std::vector<std::string>& inputs) {
    tf::NodeDef* d = out_.add_node();
    d->set_name(Name(part));
    d->set_op(op);
    SetTfDevice(d, n_.requested_device());
    for (const std::string& i : inputs) d->add_input(i);
    return d;
  }
  // Op with its "T" attr set: most elementwise ops need only that.
  std::string OpT(const std::string& part, const std::string& op, const std::vector<std::string>& inputs, DType t) {
    tf::NodeDef* d = Op(part, op, inputs);
    SetType(d, "T", t);
    return d->name();
  }

  Result<std::string> Const(const std::string& part, const AttrValue& v, DType float_dtype) {
    TFG_ASSIGN_OR_RETURN(Tensor t, AttrAsTensor(v, float_dtype));
    tf::NodeDef* d = Op(part, "Const", {});
    if (!anchor_.empty()) d->add_input(anchor_);
    (*d->mutable_attr())["dtype"].set_type(ToTfDType(t.dtype()));
    ToTensorProto(t, (*d->mutable_attr())["value"].mutable_tensor());
    return d->name();
  }

  std::string Shape(const std::string& part, const std::string& of, DType of_dtype, DType out = DType::kI32) {
    tf::NodeDef* d = Op(part, "Shape", {of});
    SetType(d, "T", of_dtype);
    SetType(d, "out_type", out);
    return d->name();
  }
  std::string Size(const std::string& part, const std::string& of, DType of_dtype) {
    tf::NodeDef* d = Op(part, "Size", {of});
    SetType(d, "T", of_dtype);
    SetType(d, "out_type", DType::kI32);
    return d->name();
  }
  std::string Reshape(const std::string& part, const std::string& x, const std::string& shape, DType t) {
    tf::NodeDef* d = Op(part, "Reshape", {x, shape});
    SetType(d, "T", t);
    SetType(d, "Tshape", DType::kI32);
    return d->name();
  }

  static void SetType(tf::NodeDef* d, const std::string& attr, DType t) {
    (*d->mutable_attr())[attr].set_type(ToTfDType(t));
  }

  const Node& node() const { return n_; }

 private:
  const Node& n_;
  tf::GraphDef& out_;
  std::vector<std::string> inputs_;
  std::string anchor_;
};

}  // namespace tfg::interop
