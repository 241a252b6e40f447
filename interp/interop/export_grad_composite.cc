#include "interp/interop/export_grad_composite.h"

#include <algorithm>
#include <vector>

namespace tfg::interop {
namespace {

// The forward reduction's axes, or none for all of them.
std::optional<std::vector<int64_t>> ReducedAxes(const Node& n) {
  auto it = n.attrs().find("axis");
  if (it == n.attrs().end()) return std::nullopt;
  if (const auto* l = std::get_if<std::vector<int64_t>>(&it->second)) return *l;
  if (const auto* i = std::get_if<int64_t>(&it->second)) return std::vector<int64_t>{*i};
  return std::nullopt;
}

bool KeepDims(const Node& n) {
  const bool* keepdims = n.attr<bool>("keepdims");
  return keepdims && *keepdims;
}

// A reduction over `axes` (kept or not) with TensorFlow's Sum/Prod.
std::string Reduce(Composer& c, const std::string& part, const std::string& op, const std::string& x,
                   const std::string& axes, DType t, bool keep_dims) {
  tf::NodeDef* d = c.Op(part, op, {x, axes});
  Composer::SetType(d, "T", t);
  Composer::SetType(d, "Tidx", DType::kI32);
  (*d->mutable_attr())["keep_dims"].set_b(keep_dims);
  return d->name();
}

std::string Transpose(Composer& c, const std::string& part, const std::string& x, const std::string& perm, DType t) {
  tf::NodeDef* d = c.Op(part, "Transpose", {x, perm});
  Composer::SetType(d, "T", t);
  Composer::SetType(d, "Tperm", DType::kI32);
  return d->name();
}

// The statically known rank of input `i`, or an error saying export needs it.
Result<int64_t> KnownRank(Composer& c, int i, const char* what) {
  const PartialShape& s = c.node().inputs()[static_cast<size_t>(i)].shape();
  if (!s.known_rank()) {
    return ComposeFail(c.node(), std::string(what) + " of unknown rank is not supported by export yet");
  }
  return static_cast<int64_t>(s.rank());
}

// Axes taken modulo `rank`, refused outside [-rank, rank).
Result<std::vector<int64_t>> Normalized(const Node& n, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return ComposeFail(n, "axis out of range for the input's rank");
    if (a < 0) a += rank;
  }
  return axes;
}

std::vector<int64_t> Inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inv;
}

// The reduced axes as a TensorFlow tensor: the constant list, or
// Range(0, Rank(x), 1) for every axis.
Result<std::string> AxesTensor(Composer& c, const std::string& x, DType x_dtype) {
  if (std::optional<std::vector<int64_t>> axes = ReducedAxes(c.node())) {
    return c.Const("reduced_axes", AttrValue(*axes), DType::kI32);
  }
  tf::NodeDef* rank = c.Op("rank", "Rank", {x});
  Composer::SetType(rank, "T", x_dtype);
  TFG_ASSIGN_OR_RETURN(std::string zero, c.Const("range_start", AttrValue(int64_t{0}), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string one, c.Const("range_delta", AttrValue(int64_t{1}), DType::kI32));
  tf::NodeDef* range = c.Op("all_axes", "Range", {zero, rank->name(), one});
  Composer::SetType(range, "Tidx", DType::kI32);
  return range->name();
}

}  // namespace

Result<std::optional<std::string>> KeptShape(Composer& c, const std::string& x_shape) {
  std::optional<std::vector<int64_t>> axes = ReducedAxes(c.node());
  if (!axes || KeepDims(c.node())) return std::optional<std::string>();
  // x's shape with 1 at each reduced axis (negative axes taken modulo x's rank).
  TFG_ASSIGN_OR_RETURN(std::string axes_c, c.Const("axes", AttrValue(*axes), DType::kI32));
  std::string rank = c.Size("rank", x_shape, DType::kI32);
  std::string axes_mod = c.OpT("axes_mod", "FloorMod", {axes_c, rank}, DType::kI32);
  TFG_ASSIGN_OR_RETURN(std::string column, c.Const("column", AttrValue(std::vector<int64_t>{-1, 1}), DType::kI32));
  std::string indices = c.Reshape("axes_column", axes_mod, column, DType::kI32);
  const std::vector<int64_t> ones_list(axes->size(), 1);
  TFG_ASSIGN_OR_RETURN(std::string ones, c.Const("ones", AttrValue(ones_list), DType::kI32));
  tf::NodeDef* kept_shape = c.Op("kept_shape", "TensorScatterUpdate", {x_shape, indices, ones});
  Composer::SetType(kept_shape, "T", DType::kI32);
  Composer::SetType(kept_shape, "Tindices", DType::kI32);
  return std::optional<std::string>(kept_shape->name());
}

// softmax/log_softmax along `axis`: TensorFlow's ops take the last axis,
// so another axis is swapped to the end and back (Transpose).
Status SoftmaxAlongAxis(Composer& c, const std::string& tf_op) {
  const Node& n = c.node();
  const int64_t* axis_attr = n.attr<int64_t>("axis");
  const int64_t axis = axis_attr ? *axis_attr : -1;
  const PartialShape& x = n.inputs()[0].shape();
  int64_t last = -1;
  if (x.known_rank()) {
    TFG_ASSIGN_OR_RETURN(std::vector<int64_t> a, Normalized(n, {axis}, x.rank()));
    last = a[0] == x.rank() - 1 ? -1 : a[0];
  } else if (axis != -1) {
    return ComposeFail(n, "softmax along another axis than the last of an input of unknown rank "
                          "is not supported by export yet");
  }
  if (last < 0) {
    c.OpT("", tf_op, {c.in(0)}, c.t());
    return Status::OK();
  }
  std::vector<int64_t> swap(static_cast<size_t>(x.rank()));
  for (size_t i = 0; i < swap.size(); ++i) swap[i] = static_cast<int64_t>(i);
  std::swap(swap[static_cast<size_t>(last)], swap.back());
  TFG_ASSIGN_OR_RETURN(std::string swap_c, c.Const("swap", AttrValue(swap), DType::kI32));
  std::string moved = Transpose(c, "to_last", c.in(0), swap_c, c.t());
  Transpose(c, "", c.OpT("along_last", tf_op, {moved}, c.t()), swap_c, c.t());
  return Status::OK();
}

// softmax_grad(dy, y) = (dy - sum(dy * y, axis, keepdims)) * y, TensorFlow's
// gradient of Softmax.
Status SoftmaxGrad(Composer& c) {
  const int64_t* axis = c.node().attr<int64_t>("axis");
  const DType t = c.t();
  TFG_ASSIGN_OR_RETURN(std::string axis_c, c.Const("axis", AttrValue(axis ? *axis : int64_t{-1}), DType::kI32));
  std::string dot = Reduce(c, "dot", "Sum", c.OpT("dy_y", "Mul", {c.in(0), c.in(1)}, t), axis_c, t, true);
  c.OpT("", "Mul", {c.OpT("centered", "Sub", {c.in(0), dot}, t), c.in(1)}, t);
  return Status::OK();
}

// log_softmax_grad(dy, y) = dy - exp(y) * sum(dy, axis, keepdims), as
// TensorFlow's gradient of LogSoftmax.
Status LogSoftmaxGrad(Composer& c) {
  const int64_t* axis = c.node().attr<int64_t>("axis");
  const DType t = c.t();
  TFG_ASSIGN_OR_RETURN(std::string axis_c, c.Const("axis", AttrValue(axis ? *axis : int64_t{-1}), DType::kI32));
  std::string total = Reduce(c, "total", "Sum", c.in(0), axis_c, t, true);
  std::string p = c.OpT("p", "Exp", {c.in(1)}, t);
  c.OpT("", "Sub", {c.in(0), c.OpT("p_total", "Mul", {p, total}, t)}, t);
  return Status::OK();
}

// max_grad/min_grad(dy, x, y): dy split evenly among the elements of x equal
// to the result y, TensorFlow's gradient of Max and Min (a NaN result
// selects nothing there, where tfg's kernel matches NaNs).
Status SelectGrad(Composer& c) {
  const DType t = c.t();
  std::string dy = c.in(0), y = c.in(2);
  std::string x_shape = c.Shape("x_shape", c.in(1), c.dtype(1));
  TFG_ASSIGN_OR_RETURN(std::optional<std::string> kept_shape, KeptShape(c, x_shape));
  if (kept_shape) {
    dy = c.Reshape("dy_kept", dy, *kept_shape, t);
    y = c.Reshape("y_kept", y, *kept_shape, c.dtype(2));
  }
  tf::NodeDef* equal = c.Op("equal", "Equal", {c.in(1), y});
  Composer::SetType(equal, "T", c.dtype(1));
  (*equal->mutable_attr())["incompatible_shape_error"].set_b(true);
  tf::NodeDef* hits = c.Op("hits", "Cast", {equal->name()});
  Composer::SetType(hits, "SrcT", DType::kBool);
  Composer::SetType(hits, "DstT", t);
  (*hits->mutable_attr())["Truncate"].set_b(false);
  TFG_ASSIGN_OR_RETURN(std::string axes, AxesTensor(c, c.in(1), c.dtype(1)));
  std::string ties = Reduce(c, "ties", "Sum", hits->name(), axes, t, true);
  c.OpT("", "Mul", {c.OpT("share", "RealDiv", {hits->name(), ties}, t), dy}, t);
  return Status::OK();
}

// prod_grad(dy, x): dy times the product of the other elements of each
// reduced group, exact with zeros, as TensorFlow's gradient of Prod: the
// reduced axes are transposed to the front and flattened, and the product
// of the others is an exclusive Cumprod forward times one backward.
Status ProdGrad(Composer& c) {
  const Node& n = c.node();
  const DType t = c.dtype(1);
  TFG_ASSIGN_OR_RETURN(int64_t rank, KnownRank(c, 1, "prod_grad of an x"));
  std::vector<int64_t> reduced;
  if (std::optional<std::vector<int64_t>> axes = ReducedAxes(n)) {
    TFG_ASSIGN_OR_RETURN(reduced, Normalized(n, *axes, rank));
  } else {
    for (int64_t a = 0; a < rank; ++a) reduced.push_back(a);
  }
  std::sort(reduced.begin(), reduced.end());
  reduced.erase(std::unique(reduced.begin(), reduced.end()), reduced.end());
  if (reduced.empty()) return ComposeFail(n, "a product over no axes is not supported by export yet");
  std::vector<int64_t> perm = reduced;
  for (int64_t a = 0; a < rank; ++a) {
    if (!std::binary_search(reduced.begin(), reduced.end(), a)) perm.push_back(a);
  }
  std::string x_shape = c.Shape("x_shape", c.in(1), t);
  TFG_ASSIGN_OR_RETURN(std::string perm_c, c.Const("perm", AttrValue(perm), DType::kI32));
  std::string front = Transpose(c, "front", c.in(1), perm_c, t);
  TFG_ASSIGN_OR_RETURN(std::string reduced_c, c.Const("reduced", AttrValue(reduced), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string zero, c.Const("zero", AttrValue(int64_t{0}), DType::kI32));
  tf::NodeDef* reduced_dims = c.Op("reduced_dims", "GatherV2", {x_shape, reduced_c, zero});
  Composer::SetType(reduced_dims, "Tparams", DType::kI32);
  Composer::SetType(reduced_dims, "Tindices", DType::kI32);
  Composer::SetType(reduced_dims, "Taxis", DType::kI32);
  (*reduced_dims->mutable_attr())["batch_dims"].set_i(0);
  std::string group = Reduce(c, "group_size", "Prod", reduced_dims->name(), zero, DType::kI32, true);
  TFG_ASSIGN_OR_RETURN(std::string rest, c.Const("rest", AttrValue(std::vector<int64_t>{-1}), DType::kI32));
  tf::NodeDef* flat_shape = c.Op("flat_shape", "ConcatV2", {group, rest, zero});
  Composer::SetType(flat_shape, "T", DType::kI32);
  Composer::SetType(flat_shape, "Tidx", DType::kI32);
  (*flat_shape->mutable_attr())["N"].set_i(2);
  std::string flat = c.Reshape("flat", front, flat_shape->name(), t);
  auto cumprod = [&](const std::string& part, bool reverse) {
    tf::NodeDef* d = c.Op(part, "Cumprod", {flat, zero});
    Composer::SetType(d, "T", t);
    Composer::SetType(d, "Tidx", DType::kI32);
    (*d->mutable_attr())["exclusive"].set_b(true);
    (*d->mutable_attr())["reverse"].set_b(reverse);
    return d->name();
  };
  std::string others = c.OpT("others", "Mul", {cumprod("before", false), cumprod("after", true)}, t);
  std::string unflat = c.Reshape("unflat", others, c.Shape("front_shape", front, t), t);
  TFG_ASSIGN_OR_RETURN(std::string inv_c, c.Const("inverse_perm", AttrValue(Inverse(perm)), DType::kI32));
  std::string back = Transpose(c, "others_back", unflat, inv_c, t);
  std::string dy = c.in(0);
  TFG_ASSIGN_OR_RETURN(std::optional<std::string> kept_shape, KeptShape(c, x_shape));
  if (kept_shape) dy = c.Reshape("dy_kept", dy, *kept_shape, t);
  c.OpT("", "Mul", {back, dy}, t);
  return Status::OK();
}

// pad_grad(dy, like): CONSTANT padding's gradient is the slice of dy that
// holds x (TensorFlow's gradient of Pad); REFLECT and SYMMETRIC are
// TensorFlow's MirrorPadGrad.
Status PadGrad(Composer& c) {
  const Node& n = c.node();
  const auto* pads = n.attr<std::vector<int64_t>>("paddings");
  const std::string* mode = n.attr<std::string>("mode");
  if (!pads || pads->size() % 2 != 0) return ComposeFail(n, "paddings must be [before, after] pairs");
  if (std::any_of(pads->begin(), pads->end(), [](int64_t p) { return p < 0; })) {
    return ComposeFail(n, "negative paddings are not supported by export yet");
  }
  const DType t = c.t();
  if (!mode || *mode == "CONSTANT") {
    std::vector<int64_t> begin;
    for (size_t i = 0; i < pads->size(); i += 2) begin.push_back((*pads)[i]);
    TFG_ASSIGN_OR_RETURN(std::string begin_c, c.Const("begin", AttrValue(begin), DType::kI32));
    tf::NodeDef* slice = c.Op("", "Slice", {c.in(0), begin_c, c.Shape("like_shape", c.in(1), c.dtype(1))});
    Composer::SetType(slice, "T", t);
    Composer::SetType(slice, "Index", DType::kI32);
    return Status::OK();
  }
  if (*mode != "REFLECT" && *mode != "SYMMETRIC") return ComposeFail(n, "unknown padding mode " + *mode);
  TFG_ASSIGN_OR_RETURN(std::string flat, c.Const("paddings_flat", AttrValue(*pads), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string pairs, c.Const("pairs", AttrValue(std::vector<int64_t>{-1, 2}), DType::kI32));
  tf::NodeDef* grad = c.Op("", "MirrorPadGrad", {c.in(0), c.Reshape("paddings", flat, pairs, DType::kI32)});
  Composer::SetType(grad, "T", t);
  Composer::SetType(grad, "Tpaddings", DType::kI32);
  (*grad->mutable_attr())["mode"].set_s(*mode);
  return Status::OK();
}

// strided_slice_grad(dy, like) = StridedSliceGrad(Shape(like), begin, end,
// strides, dy): TensorFlow takes the shape and the slice spec as inputs
// (no strides means all 1).
Status StridedSliceGrad(Composer& c) {
  const Node& n = c.node();
  const auto* begin = n.attr<std::vector<int64_t>>("begin");
  const auto* end = n.attr<std::vector<int64_t>>("end");
  const auto* strides = n.attr<std::vector<int64_t>>("strides");
  if (!begin || !end) return ComposeFail(n, "begin and end are needed");
  std::vector<int64_t> steps = strides && !strides->empty() ? *strides : std::vector<int64_t>(begin->size(), 1);
  std::string shape = c.Shape("shape", c.in(1), c.dtype(1));
  TFG_ASSIGN_OR_RETURN(std::string begin_c, c.Const("begin", AttrValue(*begin), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string end_c, c.Const("end", AttrValue(*end), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string strides_c, c.Const("strides", AttrValue(steps), DType::kI32));
  tf::NodeDef* d = c.Op("", "StridedSliceGrad", {shape, begin_c, end_c, strides_c, c.in(0)});
  Composer::SetType(d, "T", c.t());
  Composer::SetType(d, "Index", DType::kI32);
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    const int64_t* m = n.attr<int64_t>(mask);
    (*d->mutable_attr())[mask].set_i(m ? *m : 0);
  }
  return Status::OK();
}

// pad(x): TensorFlow's PadV2 takes paddings as a [rank, 2] matrix (tfg
// keeps the pairs flat) and constant_values as an input; the REFLECT and
// SYMMETRIC modes are MirrorPad.
Status Pad(Composer& c) {
  const Node& n = c.node();
  const auto* pads = n.attr<std::vector<int64_t>>("paddings");
  const std::string* mode = n.attr<std::string>("mode");
  const double* fill = n.attr<double>("constant_values");
  if (!pads || pads->size() % 2 != 0) return ComposeFail(n, "paddings must be [before, after] pairs");
  TFG_ASSIGN_OR_RETURN(std::string flat, c.Const("paddings_flat", AttrValue(*pads), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string pairs, c.Const("pairs", AttrValue(std::vector<int64_t>{-1, 2}), DType::kI32));
  std::string paddings = c.Reshape("paddings", flat, pairs, DType::kI32);
  const bool mirror = mode && (*mode == "REFLECT" || *mode == "SYMMETRIC");
  tf::NodeDef* d = c.Op("", mirror ? "MirrorPad" : "PadV2", {c.in(0), paddings});
  Composer::SetType(d, "T", c.t());
  Composer::SetType(d, "Tpaddings", DType::kI32);
  if (mirror) {
    (*d->mutable_attr())["mode"].set_s(*mode);
    return Status::OK();
  }
  if (mode && *mode != "CONSTANT") return ComposeFail(n, "unknown padding mode " + *mode);
  TFG_ASSIGN_OR_RETURN(std::string value, c.Const("constant_values", AttrValue(fill ? *fill : 0.0), c.t()));
  d->add_input(value);
  return Status::OK();
}

// index_table_find(keys) is TensorFlow's static table from a vocabulary
// file: HashTableV2 filled by InitializeTableFromTextFileV2 (whole line ->
// line number) and LookupTableFindV2, which waits for the initializer
// (TensorFlow accepts re-initializing a table with the same data).
Status VocabularyLookup(Composer& c) {
  const Node& n = c.node();
  const std::string* file = n.attr<std::string>("vocabulary_file");
  const int64_t* fallback = n.attr<int64_t>("default_value");
  if (!file || n.inputs().size() != 1) return ComposeFail(n, "a vocabulary_file and one input of keys are needed");
  tf::NodeDef* table = c.Op("table", "HashTableV2", {});
  Composer::SetType(table, "key_dtype", DType::kString);
  Composer::SetType(table, "value_dtype", DType::kI64);
  (*table->mutable_attr())["use_node_name_sharing"].set_b(true);
  TFG_ASSIGN_OR_RETURN(std::string filename, c.Const("filename", AttrValue(*file), DType::kString));
  tf::NodeDef* init = c.Op("table_init", "InitializeTableFromTextFileV2", {table->name(), filename});
  auto& ia = *init->mutable_attr();
  ia["key_index"].set_i(-2);    // the whole line
  ia["value_index"].set_i(-1);  // the line number
  ia["vocab_size"].set_i(-1);
  ia["delimiter"].set_s("\t");
  ia["offset"].set_i(0);
  const double missing_id = static_cast<double>(fallback ? *fallback : -1);
  TFG_ASSIGN_OR_RETURN(std::string missing, c.Const("default_value", AttrValue(missing_id), DType::kI64));
  tf::NodeDef* find = c.Op("", "LookupTableFindV2", {table->name(), c.in(0), missing, "^" + init->name()});
  Composer::SetType(find, "Tin", DType::kString);
  Composer::SetType(find, "Tout", DType::kI64);
  return Status::OK();
}

// gather_grad(values, indices, params) along `axis`: values' index axes
// are transposed to the front, summed into params' rows there
// (UnsortedSegmentSum) and transposed back into place.
Status GatherGradAlongAxis(Composer& c, int64_t axis) {
  const Node& n = c.node();
  TFG_ASSIGN_OR_RETURN(int64_t params_rank, KnownRank(c, 2, "gather_grad of params"));
  TFG_ASSIGN_OR_RETURN(int64_t values_rank, KnownRank(c, 0, "gather_grad of values"));
  TFG_ASSIGN_OR_RETURN(std::vector<int64_t> a, Normalized(n, {axis}, params_rank));
  axis = a[0];
  const int64_t index_rank = values_rank - params_rank + 1;
  if (index_rank < 0) return ComposeFail(n, "values' rank does not match params' and the indices'");
  std::vector<int64_t> front;
  for (int64_t i = axis; i < axis + index_rank; ++i) front.push_back(i);
  for (int64_t i = 0; i < axis; ++i) front.push_back(i);
  for (int64_t i = axis + index_rank; i < values_rank; ++i) front.push_back(i);
  std::vector<int64_t> back;
  for (int64_t i = 1; i <= axis; ++i) back.push_back(i);
  back.push_back(0);
  for (int64_t i = axis + 1; i < params_rank; ++i) back.push_back(i);
  const DType t = c.t();
  TFG_ASSIGN_OR_RETURN(std::string front_c, c.Const("front_perm", AttrValue(front), DType::kI32));
  std::string values = Transpose(c, "values_front", c.in(0), front_c, t);
  TFG_ASSIGN_OR_RETURN(std::string axis_c, c.Const("axis", AttrValue(axis), DType::kI32));
  TFG_ASSIGN_OR_RETURN(std::string zero, c.Const("zero", AttrValue(int64_t{0}), DType::kI32));
  tf::NodeDef* rows = c.Op("rows", "GatherV2", {c.Shape("params_shape", c.in(2), c.dtype(2)), axis_c, zero});
  Composer::SetType(rows, "Tparams", DType::kI32);
  Composer::SetType(rows, "Tindices", DType::kI32);
  Composer::SetType(rows, "Taxis", DType::kI32);
  (*rows->mutable_attr())["batch_dims"].set_i(0);
  tf::NodeDef* sum = c.Op("sum", "UnsortedSegmentSum", {values, c.in(1), rows->name()});
  Composer::SetType(sum, "T", t);
  Composer::SetType(sum, "Tindices", c.dtype(1));
  Composer::SetType(sum, "Tnumsegments", DType::kI32);
  TFG_ASSIGN_OR_RETURN(std::string back_c, c.Const("back_perm", AttrValue(back), DType::kI32));
  Transpose(c, "", sum->name(), back_c, t);
  return Status::OK();
}

}  // namespace tfg::interop
