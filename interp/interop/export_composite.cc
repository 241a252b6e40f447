#include "interp/interop/export_composite.h"

#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "interp/interop/attr_convert.h"
#include "interp/interop/export_composer.h"
#include "interp/interop/export_grad_composite.h"

namespace tfg::interop {
namespace {

// reshape_like(x, like) = Reshape(x, Shape(like)).
Status ReshapeLike(Composer& c) {
  std::string shape = c.Shape("shape", c.in(1), c.dtype(1));
  c.Reshape("", c.in(0), shape, c.t());
  return Status::OK();
}

// unbroadcast(grad, like): TensorFlow's own gradient of a broadcasting
// binary op: Sum over BroadcastGradientArgs' axes, Reshape to like's shape.
Status Unbroadcast(Composer& c) {
  std::string like_shape = c.Shape("like_shape", c.in(1), c.dtype(1));
  std::string grad_shape = c.Shape("grad_shape", c.in(0), c.t());
  tf::NodeDef* args = c.Op("axes", "BroadcastGradientArgs", {like_shape, grad_shape});
  Composer::SetType(args, "T", DType::kI32);
  tf::NodeDef* sum = c.Op("sum", "Sum", {c.in(0), args->name()});
  Composer::SetType(sum, "T", c.t());
  Composer::SetType(sum, "Tidx", DType::kI32);
  (*sum->mutable_attr())["keep_dims"].set_b(false);
  c.Reshape("", sum->name(), like_shape, c.t());
  return Status::OK();
}

// sum_grad(dy, x) = BroadcastTo(dy with the reduced axes kept, Shape(x));
// mean_grad divides that by Size(x) / max(Size(dy), 1), as TensorFlow's
// gradient of Mean does.
Status ReductionGrad(Composer& c, bool mean) {
  std::string x_shape = c.Shape("x_shape", c.in(1), c.dtype(1));
  std::string kept = c.in(0);
  TFG_ASSIGN_OR_RETURN(std::optional<std::string> kept_shape, KeptShape(c, x_shape));
  if (kept_shape) kept = c.Reshape("kept", c.in(0), *kept_shape, c.t());
  tf::NodeDef* spread = c.Op(mean ? "spread" : "", "BroadcastTo", {kept, x_shape});
  Composer::SetType(spread, "T", c.t());
  Composer::SetType(spread, "Tidx", DType::kI32);
  if (!mean) return Status::OK();
  std::string x_size = c.Size("x_size", c.in(1), c.dtype(1));
  std::string y_size = c.Size("y_size", c.in(0), c.t());
  TFG_ASSIGN_OR_RETURN(std::string one, c.Const("one", AttrValue(int64_t{1}), DType::kI32));
  std::string y_size1 = c.OpT("y_size_at_least_1", "Maximum", {y_size, one}, DType::kI32);
  std::string count = c.OpT("count", "FloorDiv", {x_size, y_size1}, DType::kI32);
  tf::NodeDef* cast = c.Op("count_cast", "Cast", {count});
  Composer::SetType(cast, "SrcT", DType::kI32);
  Composer::SetType(cast, "DstT", c.t());
  (*cast->mutable_attr())["Truncate"].set_b(false);
  c.OpT("", "RealDiv", {spread->name(), cast->name()}, c.t());
  return Status::OK();
}

// The cross-entropy ops' logits and labels as TensorFlow's op takes them:
// [-1, classes] (sparse labels [-1]) unless already matrices.
Result<std::pair<std::string, std::string>> FlatInputs(Composer& c, bool sparse, bool matrix) {
  const Node& n = c.node();
  const PartialShape& logits_shape = n.inputs()[0].shape();
  std::string logits = c.in(0), labels = c.in(1);
  if (!matrix) {
    int64_t classes = logits_shape.known_rank() && logits_shape.rank() > 0 ? logits_shape.dim(logits_shape.rank() - 1)
                                                                           : PartialShape::kUnknown;
    if (classes == PartialShape::kUnknown) {
      return ComposeFail(n, "logits of unknown rank or class count are not supported by export yet");
    }
    TFG_ASSIGN_OR_RETURN(std::string rows, c.Const("rows", AttrValue(std::vector<int64_t>{-1, classes}), DType::kI32));
    logits = c.Reshape("logits_rows", logits, rows, c.t());
    if (sparse) {
      TFG_ASSIGN_OR_RETURN(std::string flat, c.Const("flat", AttrValue(std::vector<int64_t>{-1}), DType::kI32));
      labels = c.Reshape("labels_flat", labels, flat, c.dtype(1));
    } else {
      labels = c.Reshape("labels_rows", labels, rows, c.t());
    }
  }
  return std::pair<std::string, std::string>{logits, labels};
}

// The cross-entropy itself: TensorFlow's op takes matrices, so logits of
// another rank are flattened to [-1, classes] and the loss reshaped to
// logits.shape[:-1].
Status CrossEntropy(Composer& c, bool sparse) {
  const Node& n = c.node();
  const PartialShape& logits_shape = n.inputs()[0].shape();
  const bool matrix = logits_shape.known_rank() && logits_shape.rank() == 2;
  TFG_ASSIGN_OR_RETURN(auto flat, FlatInputs(c, sparse, matrix));
  tf::NodeDef* xent = c.Op(matrix ? "" : "xent", sparse ? "SparseSoftmaxCrossEntropyWithLogits" : "SoftmaxCrossEntropyWithLogits",
                           {flat.first, flat.second});
  Composer::SetType(xent, "T", c.t());
  if (sparse) Composer::SetType(xent, "Tlabels", c.dtype(1));
  if (matrix) return Status::OK();
  std::string shape = c.Shape("logits_shape", c.in(0), c.t());
  TFG_ASSIGN_OR_RETURN(std::string begin, c.Const("begin", AttrValue(std::vector<int64_t>{0}), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string end, c.Const("end", AttrValue(std::vector<int64_t>{-1}), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string step, c.Const("step", AttrValue(std::vector<int64_t>{1}), DType::kI32));
  tf::NodeDef* outer = c.Op("loss_shape", "StridedSlice", {shape, begin, end, step});
  Composer::SetType(outer, "T", DType::kI32);
  Composer::SetType(outer, "Index", DType::kI32);
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    (*outer->mutable_attr())[mask].set_i(0);
  }
  c.Reshape("", xent->name(), outer->name(), c.t());
  return Status::OK();
}

// (softmax(logits) - labels) * dloss[..., None] from TensorFlow's fused op,
// whose second output is that backprop (before dloss). TensorFlow's op takes
// matrices: other ranks are flattened to [-1, classes] and back.
Status CrossEntropyGrad(Composer& c, bool sparse) {
  const Node& n = c.node();
  const PartialShape& logits_shape = n.inputs()[0].shape();
  const bool matrix = logits_shape.known_rank() && logits_shape.rank() == 2;
  TFG_ASSIGN_OR_RETURN(auto flat, FlatInputs(c, sparse, matrix));
  tf::NodeDef* xent = c.Op("xent", sparse ? "SparseSoftmaxCrossEntropyWithLogits" : "SoftmaxCrossEntropyWithLogits",
                           {flat.first, flat.second});
  Composer::SetType(xent, "T", c.t());
  if (sparse) Composer::SetType(xent, "Tlabels", c.dtype(1));
  std::string backprop = xent->name() + ":1";
  if (!matrix) backprop = c.Reshape("backprop", backprop, c.Shape("logits_shape", c.in(0), c.t()), c.t());
  TFG_ASSIGN_OR_RETURN(std::string last, c.Const("last_axis", AttrValue(int64_t{-1}), DType::kI32));
  tf::NodeDef* dloss = c.Op("dloss", "ExpandDims", {c.in(2), last});
  Composer::SetType(dloss, "T", c.t());
  Composer::SetType(dloss, "Tdim", DType::kI32);
  c.OpT("", "Mul", {backprop, dloss->name()}, c.t());
  return Status::OK();
}

// The activations i, j, f, o of lstm_block_cell's gates, under "<node>/<prefix>".
struct LstmGates {
  std::string i, j, f, o, c;
};

Result<LstmGates> LstmActivations(Composer& c) {
  const double* fb = c.node().attr<double>("forget_bias");
  TFG_ASSIGN_OR_RETURN(std::string axis, c.Const("split_axis", AttrValue(int64_t{1}), DType::kI32));
  tf::NodeDef* split = c.Op("split", "Split", {axis, c.in(0)});
  Composer::SetType(split, "T", c.t());
  (*split->mutable_attr())["num_split"].set_i(4);
  const std::string s = split->name();
  TFG_ASSIGN_OR_RETURN(std::string bias, c.Const("forget_bias", AttrValue(fb ? *fb : 1.0), c.t()));
  LstmGates g;
  g.i = c.OpT("i", "Sigmoid", {s}, c.t());
  g.j = c.OpT("j", "Tanh", {s + ":1"}, c.t());
  g.f = c.OpT("f", "Sigmoid", {c.OpT("f_biased", "AddV2", {s + ":2", bias}, c.t())}, c.t());
  g.o = c.OpT("o", "Sigmoid", {s + ":3"}, c.t());
  return g;
}

// lstm_block_cell(gates, c_prev) -> c, h:
//   c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(j), h = sigmoid(o) * tanh(c)
// TensorFlow's LSTMBlockCell also does the matmul (and clips c by default),
// so the elementwise ops are written out instead.
Status LstmCell(Composer& c, bool grad) {
  TFG_ASSIGN_OR_RETURN(LstmGates g, LstmActivations(c));
  const DType t = c.t();
  const std::string& c_prev = c.in(1);
  std::string keep = c.OpT("forget", "Mul", {g.f, c_prev}, t);
  std::string write = c.OpT("write", "Mul", {g.i, g.j}, t);
  if (!grad) {
    std::string cell = c.OpT("", "AddV2", {keep, write}, t);
    c.OpT("h", "Mul", {g.o, c.OpT("tanh_c", "Tanh", {cell}, t)}, t);
    return Status::OK();
  }
  // lstm_block_cell_grad(gates, c_prev, dc, dh) -> dgates, dc_prev, with
  // SigmoidGrad(y, dy) = dy * y * (1 - y) and TanhGrad(y, dy) = dy * (1 - y^2).
  const std::string& dc = c.in(2);
  const std::string& dh = c.in(3);
  std::string tanh_c = c.OpT("tanh_c", "Tanh", {c.OpT("c", "AddV2", {keep, write}, t)}, t);
  std::string dc_total =
      c.OpT("dc_total", "AddV2", {dc, c.OpT("dh_to_c", "TanhGrad", {tanh_c, c.OpT("dh_o", "Mul", {dh, g.o}, t)}, t)}, t);
  std::string di = c.OpT("di", "SigmoidGrad", {g.i, c.OpT("dc_j", "Mul", {dc_total, g.j}, t)}, t);
  std::string dj = c.OpT("dj", "TanhGrad", {g.j, c.OpT("dc_i", "Mul", {dc_total, g.i}, t)}, t);
  std::string df = c.OpT("df", "SigmoidGrad", {g.f, c.OpT("dc_c_prev", "Mul", {dc_total, c_prev}, t)}, t);
  std::string d_o = c.OpT("do", "SigmoidGrad", {g.o, c.OpT("dh_tanh_c", "Mul", {dh, tanh_c}, t)}, t);
  TFG_ASSIGN_OR_RETURN(std::string axis, c.Const("concat_axis", AttrValue(int64_t{1}), DType::kI32));
  tf::NodeDef* dgates = c.Op("", "ConcatV2", {di, dj, df, d_o, axis});
  Composer::SetType(dgates, "T", t);
  Composer::SetType(dgates, "Tidx", DType::kI32);
  (*dgates->mutable_attr())["N"].set_i(4);
  c.OpT("dc_prev", "Mul", {dc_total, g.f}, t);
  return Status::OK();
}

// Row 0 of Shape(params), of dtype `dtype`: the number of rows.
std::string RowCount(Composer& c, const std::string& params, DType params_dtype, DType dtype, const std::string& zero) {
  std::string shape = c.Shape("params_shape", params, params_dtype, dtype);
  tf::NodeDef* rows = c.Op("rows", "GatherV2", {shape, zero, zero});
  Composer::SetType(rows, "Tparams", dtype);
  Composer::SetType(rows, "Tindices", DType::kI32);
  Composer::SetType(rows, "Taxis", DType::kI32);
  return rows->name();
}

// gather_grad(values, indices, params) along axis 0 =
// UnsortedSegmentSum(values, indices, rows of params): TensorFlow's gradient
// of Gather made dense.
Status GatherGrad(Composer& c) {
  const int64_t* axis = c.node().attr<int64_t>("axis");
  if (axis && *axis != 0) return GatherGradAlongAxis(c, *axis);
  TFG_ASSIGN_OR_RETURN(std::string zero, c.Const("zero", AttrValue(int64_t{0}), DType::kI32));
  std::string rows = RowCount(c, c.in(2), c.dtype(2), DType::kI32, zero);
  tf::NodeDef* sum = c.Op("", "UnsortedSegmentSum", {c.in(0), c.in(1), rows});
  Composer::SetType(sum, "T", c.t());
  Composer::SetType(sum, "Tindices", c.dtype(1));
  Composer::SetType(sum, "Tnumsegments", DType::kI32);
  return Status::OK();
}

// segment_gather(params, ids): params' rows by id, zeros for negative ids
// (which TensorFlow's Gather refuses): a zero row is appended to params and
// negative ids read it.
Status SegmentGather(Composer& c) {
  const DType t = c.t(), idt = c.dtype(1);
  TFG_ASSIGN_OR_RETURN(std::string zero, c.Const("zero", AttrValue(int64_t{0}), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string begin, c.Const("begin", AttrValue(std::vector<int64_t>{0}), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string end, c.Const("end", AttrValue(std::vector<int64_t>{1}), DType::kI32));
  tf::NodeDef* row = c.Op("first_row", "StridedSlice", {c.in(0), begin, end, end});
  Composer::SetType(row, "T", t);
  Composer::SetType(row, "Index", DType::kI32);
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    (*row->mutable_attr())[mask].set_i(0);
  }
  std::string zero_row = c.OpT("zero_row", "ZerosLike", {row->name()}, t);
  tf::NodeDef* padded = c.Op("padded", "ConcatV2", {c.in(0), zero_row, zero});
  Composer::SetType(padded, "T", t);
  Composer::SetType(padded, "Tidx", DType::kI32);
  (*padded->mutable_attr())["N"].set_i(2);
  std::string rows = RowCount(c, c.in(0), t, idt, zero);
  TFG_ASSIGN_OR_RETURN(std::string id_zero, c.Const("id_zero", AttrValue(0.0), idt));
  std::string negative = c.OpT("negative", "Less", {c.in(1), id_zero}, idt);
  std::string ids = c.OpT("ids", "SelectV2", {negative, rows, c.in(1)}, idt);
  tf::NodeDef* gather = c.Op("", "GatherV2", {padded->name(), ids, zero});
  Composer::SetType(gather, "Tparams", t);
  Composer::SetType(gather, "Tindices", idt);
  Composer::SetType(gather, "Taxis", DType::kI32);
  (*gather->mutable_attr())["batch_dims"].set_i(0);
  return Status::OK();
}

// zeros/ones(shape=, dtype=) = Fill(shape, value): tfg keeps the shape as
// an attr, TensorFlow takes both as inputs.
Status Filled(Composer& c, double value) {
  const Node& n = c.node();
  const auto* shape = n.attr<std::vector<int64_t>>("shape");
  if (!shape) return ComposeFail(n, "a shape is needed");
  const DType dtype = n.output_types()[0];
  TFG_ASSIGN_OR_RETURN(std::string dims, c.Const("shape", AttrValue(*shape), DType::kI32));
  Result<std::string> v = dtype == DType::kBool ? c.Const("value", AttrValue(value != 0), dtype)
                                                : c.Const("value", AttrValue(value), dtype);
  if (!v.ok()) return v.status();
  if (dtype != DType::kF32 && dtype != DType::kF64 && dtype != DType::kI32 && dtype != DType::kI64 &&
      dtype != DType::kBool) {
    return ComposeFail(n, "zeros/ones of this dtype are not supported by export yet");
  }
  tf::NodeDef* fill = c.Op("", "Fill", {dims, *v});
  Composer::SetType(fill, "T", dtype);
  Composer::SetType(fill, "index_type", DType::kI32);
  return Status::OK();
}

// max_pool_grad(input, out_backprop) = MaxPoolGrad(input, MaxPool(input),
// out_backprop), and max_pool_grad_grad(input, grad) = MaxPoolGradGrad(input,
// MaxPool(input), grad): TensorFlow's ops also take the pooled output.
Status PoolGrad(Composer& c, const std::string& tf_op) {
  const Node& n = c.node();
  std::map<std::string, std::vector<int64_t>> windows;
  for (const char* attr : {"ksize", "strides"}) {
    const auto* l = n.attr<std::vector<int64_t>>(attr);
    if (!l || (l->size() != 2 && l->size() != 4)) return ComposeFail(n, std::string(attr) + " must be a list of 2 or 4 ints");
    windows[attr] = l->size() == 4 ? *l : std::vector<int64_t>{1, (*l)[0], (*l)[1], 1};
  }
  const std::string* padding = n.attr<std::string>("padding");
  auto set_attrs = [&](tf::NodeDef* d) {
    Composer::SetType(d, "T", c.t());
    for (const auto& [name, list] : windows) {
      auto* l = (*d->mutable_attr())[name].mutable_list();
      for (int64_t v : list) l->add_i(v);
    }
    (*d->mutable_attr())["padding"].set_s(padding ? *padding : "VALID");
    (*d->mutable_attr())["data_format"].set_s("NHWC");
  };
  tf::NodeDef* pooled = c.Op("pooled", "MaxPool", {c.in(0)});
  set_attrs(pooled);
  tf::NodeDef* grad = c.Op("", tf_op, {c.in(0), pooled->name(), c.in(1)});
  set_attrs(grad);
  return Status::OK();
}

// conv2d_backprop_input(input, filter, dy) and conv2d_backprop_filter
// (and the depthwise ones): tfg passes the tensor whose gradient it is,
// TensorFlow its shape (input_sizes, filter_sizes).
Status ConvBackprop(Composer& c, const std::string& tf_op, int sized) {
  const Node& n = c.node();
  tf::NodeDef* d = c.Op("", tf_op, {});
  for (int i = 0; i < 3; ++i) {
    d->add_input(i == sized ? c.Shape(i == 0 ? "input_sizes" : "filter_sizes", c.in(i), c.dtype(i)) : c.in(i));
  }
  Composer::SetType(d, "T", c.t());
  for (const char* attr : {"strides", "dilations"}) {
    const auto* l = n.attr<std::vector<int64_t>>(attr);
    if (!l) continue;
    if (l->size() != 2 && l->size() != 4) return ComposeFail(n, std::string(attr) + " must be a list of 2 or 4 ints");
    std::vector<int64_t> v = l->size() == 4 ? *l : std::vector<int64_t>{1, (*l)[0], (*l)[1], 1};
    auto* list = (*d->mutable_attr())[attr].mutable_list();
    for (int64_t x : v) list->add_i(x);
  }
  const std::string* padding = n.attr<std::string>("padding");
  (*d->mutable_attr())["padding"].set_s(padding ? *padding : "VALID");
  (*d->mutable_attr())["data_format"].set_s("NHWC");
  return Status::OK();
}

using Composition = Status (*)(Composer&);

const std::map<std::string, Composition>& Compositions() {
  static const std::map<std::string, Composition> table{
      {"reshape_like", ReshapeLike},
      {"unbroadcast", Unbroadcast},
      {"sum_grad", [](Composer& c) { return ReductionGrad(c, false); }},
      {"mean_grad", [](Composer& c) { return ReductionGrad(c, true); }},
      {"sparse_softmax_cross_entropy_grad", [](Composer& c) { return CrossEntropyGrad(c, true); }},
      {"softmax_cross_entropy_grad", [](Composer& c) { return CrossEntropyGrad(c, false); }},
      {"sparse_softmax_cross_entropy", [](Composer& c) { return CrossEntropy(c, true); }},
      {"softmax_cross_entropy_with_logits", [](Composer& c) { return CrossEntropy(c, false); }},
      {"lstm_block_cell", [](Composer& c) { return LstmCell(c, false); }},
      {"lstm_block_cell_grad", [](Composer& c) { return LstmCell(c, true); }},
      {"gather_grad", GatherGrad},
      {"segment_gather", SegmentGather},
      {"softmax", [](Composer& c) { return SoftmaxAlongAxis(c, "Softmax"); }},
      {"log_softmax", [](Composer& c) { return SoftmaxAlongAxis(c, "LogSoftmax"); }},
      {"softmax_grad", SoftmaxGrad},
      {"log_softmax_grad", LogSoftmaxGrad},
      {"max_grad", SelectGrad},
      {"min_grad", SelectGrad},
      {"prod_grad", ProdGrad},
      {"pad_grad", PadGrad},
      {"strided_slice_grad", StridedSliceGrad},
      {"pad", Pad},
      {"index_table_find", VocabularyLookup},
      {"zeros", [](Composer& c) { return Filled(c, 0); }},
      {"ones", [](Composer& c) { return Filled(c, 1); }},
      {"conv2d_backprop_input", [](Composer& c) { return ConvBackprop(c, "Conv2DBackpropInput", 0); }},
      {"conv2d_backprop_filter", [](Composer& c) { return ConvBackprop(c, "Conv2DBackpropFilter", 1); }},
      {"depthwise_conv2d_backprop_input",
       [](Composer& c) { return ConvBackprop(c, "DepthwiseConv2dNativeBackpropInput", 0); }},
      {"depthwise_conv2d_backprop_filter",
       [](Composer& c) { return ConvBackprop(c, "DepthwiseConv2dNativeBackpropFilter", 1); }},
      {"max_pool_grad", [](Composer& c) { return PoolGrad(c, "MaxPoolGrad"); }},
      {"max_pool_grad_grad", [](Composer& c) { return PoolGrad(c, "MaxPoolGradGrad"); }},
  };
  return table;
}

}  // namespace

void SetTfDevice(tf::NodeDef* d, const std::string& requested) {
  const size_t at = requested.find('@');
  d->set_device(requested.substr(0, at));
  if (at != std::string::npos) (*d->mutable_attr())["_class"].mutable_list()->add_s("loc:" + requested.substr(at));
}

bool HasComposite(const std::string& tfg_op) { return Compositions().count(tfg_op) > 0; }

std::string CompositeOutputName(const Node& n, int index) {
  if (index == 0) return n.name();
  const std::string& op = n.op_name();
  if (op == "lstm_block_cell" && index == 1) return n.name() + "/h";
  if (op == "lstm_block_cell_grad" && index == 1) return n.name() + "/dc_prev";
  return fmt::format("{}:{}", n.name(), index);  // no such output: TensorFlow's import names it
}

Status ExportComposite(const Node& n, const std::function<std::string(const Output&)>& tensor_name,
                       tf::GraphDef& out) {
  auto it = Compositions().find(n.op_name());
  if (it == Compositions().end()) return ComposeFail(n, "no TensorFlow op for it");
  Composer c(n, tensor_name, out);
  const int first = out.node_size();
  Status s = it->second(c);
  if (!s.ok()) return s.WithSpan(n.span());
  // The node's control inputs hold for every part of its composition.
  for (int k = first; k < out.node_size(); ++k) {
    for (const Node* ctl : n.control_inputs()) out.mutable_node(k)->add_input("^" + ctl->name());
  }
  return Status::OK();
}

}  // namespace tfg::interop
