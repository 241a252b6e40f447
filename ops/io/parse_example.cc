// parse_example_feature(serialized, default_value): one feature of
// tf.train.Example records (ops/io/example_proto.h), as TensorFlow's
// ParseExample gives it. The script builtins parse_example and
// parse_single_example make one per feature (interp/language/builtins/
// builtins_example.cc).
//
// A fixed-length feature (FixedLenFeature) is dense: [batch] + shape.
// A variable-length one (VarLenFeature) is dense too, padded: [batch,
// longest] with 0 (or "") after each example's values, its lengths beside
// it; TensorFlow returns a SparseTensor of the same values (the padded form
// is tf.sparse.to_dense's), and tfg has no sparse tensors.
#include <optional>

#include "ops/core/op_registry.h"
#include "ops/io/example_proto.h"

namespace tfg {
namespace {

using example::Feature;

Feature::Kind KindOf(DType t) {
  return t == DType::kI64 ? Feature::Kind::kInt64 : t == DType::kF32 ? Feature::Kind::kFloat : Feature::Kind::kBytes;
}

template <typename T>
const std::vector<T>& ValuesOf(const Feature& f) {
  if constexpr (std::is_same_v<T, int64_t>) return f.ints;
  else if constexpr (std::is_same_v<T, float>) return f.floats;
  else return f.bytes;
}

class ParseExampleFeatureKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    key_ = *c.attr<std::string>("key");
    dtype_ = c.output_types[0];
    var_len_ = *c.attr<bool>("var_len");
    const PartialShape& shape = *c.attr<PartialShape>("shape");
    if (!var_len_ && !shape.fully_defined()) {
      return InvalidArgument("parse_example: the shape of fixed-length feature '{}' must be fully defined, got {}",
                             key_, shape.ToString());
    }
    if (!var_len_) shape_ = shape.ToTensorShape();
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& serialized = ctx.input(0);
    if (serialized.rank() > 1) {
      return InvalidArgument("parse_example: serialized must be a scalar or a vector of records, got {}",
                             serialized.DebugString());
    }
    std::vector<std::optional<Feature>> found;
    for (int64_t i = 0; i < serialized.num_elements(); ++i) {
      auto f = example::FindFeature(serialized.data<std::string>()[i], key_);
      if (!f.ok()) return Status(f.status()).Prepend(fmt::format("parse_example: record {}: ", i));
      if (*f && (*f)->kind != Feature::Kind::kNone && (*f)->kind != KindOf(dtype())) {
        return InvalidArgument("parse_example: feature '{}' of record {} is a {} list, but a {} one was asked for",
                               key_, i, example::KindName((*f)->kind), example::KindName(KindOf(dtype())));
      }
      found.push_back(std::move(*f));
    }
    switch (dtype()) {
      case DType::kI64: return Fill<int64_t>(ctx, found);
      case DType::kF32: return Fill<float>(ctx, found);
      default: return Fill<std::string>(ctx, found);
    }
  }

 private:
  DType dtype() const { return dtype_; }

  // Prepends the batch dimension when the records are a vector.
  TensorShape Batched(const OpKernelContext& ctx, std::vector<int64_t> dims) const {
    if (ctx.input(0).rank() == 1) dims.insert(dims.begin(), ctx.input(0).dim(0));
    return TensorShape(std::move(dims));
  }

  template <typename T>
  Status Fill(OpKernelContext& ctx, const std::vector<std::optional<Feature>>& found) {
    static const std::vector<T> kNone;
    std::vector<const std::vector<T>*> values;
    int64_t longest = 0;
    for (const auto& f : found) {
      values.push_back(f ? &ValuesOf<T>(*f) : &kNone);
      longest = std::max<int64_t>(longest, static_cast<int64_t>(values.back()->size()));
    }
    TFG_ASSIGN_OR_RETURN(Tensor * lengths, ctx.allocate_output(1, Batched(ctx, {})));
    for (size_t i = 0; i < values.size(); ++i) lengths->data<int64_t>()[i] = static_cast<int64_t>(values[i]->size());
    if (var_len_) {
      TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, Batched(ctx, {longest})));
      T* o = out->data<T>();
      for (size_t i = 0; i < values.size(); ++i) {
        for (int64_t j = 0; j < longest; ++j) {
          o[i * longest + j] = j < static_cast<int64_t>(values[i]->size()) ? (*values[i])[j] : T{};
        }
      }
      return Status::OK();
    }
    return FillDense<T>(ctx, found, values);
  }

  template <typename T>
  Status FillDense(OpKernelContext& ctx, const std::vector<std::optional<Feature>>& found,
                   const std::vector<const std::vector<T>*>& values) {
    const Tensor& def = ctx.input(1);
    const int64_t n = shape_.num_elements();
    if (def.num_elements() != 0 && def.num_elements() != 1 && def.num_elements() != n) {
      return InvalidArgument("parse_example: the default of feature '{}' has {} values; shape {} needs {} (or one)",
                             key_, def.num_elements(), shape_.ToString(), n);
    }
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, Batched(ctx, shape_.dims())));
    T* o = out->data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      const std::vector<T>& v = *values[i];
      if (!found[i] || v.empty()) {
        if (def.num_elements() == 0) {
          return InvalidArgument("parse_example: record {} has no feature '{}', which has no default_value", i, key_);
        }
        for (int64_t j = 0; j < n; ++j) o[i * n + j] = def.data<T>()[def.num_elements() == 1 ? 0 : j];
        ctx.output(1).data<int64_t>()[i] = n;
        continue;
      }
      if (static_cast<int64_t>(v.size()) != n) {
        return InvalidArgument("parse_example: feature '{}' of record {} has {} values, but shape {} needs {}", key_,
                               i, v.size(), shape_.ToString(), n);
      }
      std::copy(v.begin(), v.end(), o + i * n);
    }
    return Status::OK();
  }

  std::string key_;
  DType dtype_ = DType::kInvalid;
  bool var_len_ = false;
  TensorShape shape_;
};

Status ParseExampleFeatureShape(ShapeContext& c) {
  const PartialShape& records = c.input(0);
  if (records.known_rank() && records.rank() > 1) {
    return InvalidArgument("serialized must be a scalar or a vector of records, got shape {}", records.ToString());
  }
  if (c.attr<std::string>("key")->empty()) return InvalidArgument("the feature key is empty");
  std::vector<int64_t> batch;
  if (!records.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    c.set_output(1, PartialShape::Unknown());
    return Status::OK();
  }
  if (records.rank() == 1) batch.push_back(records.dim(0));
  c.set_output(1, PartialShape(batch));
  std::vector<int64_t> dims = batch;
  if (*c.attr<bool>("var_len")) {
    dims.push_back(PartialShape::kUnknown);
  } else {
    const PartialShape& shape = *c.attr<PartialShape>("shape");
    if (!shape.fully_defined()) {
      return InvalidArgument("the shape of fixed-length feature '{}' must be fully defined, got {}",
                             *c.attr<std::string>("key"), shape.ToString());
    }
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
  }
  c.set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("parse_example_feature")
                    .Input("serialized", "string")
                    .Input("default_value", "T")
                    .TypeAttr("T", {DType::kI64, DType::kF32, DType::kString})
                    .Attr("key", AttrType::kString, std::nullopt, "the feature's name in the Example")
                    .Attr("shape", AttrType::kShape, PartialShape::Scalar(),
                          "a fixed-length feature's shape (per record)")
                    .Attr("var_len", AttrType::kBool, false,
                          "a variable-length feature: padded to the longest record's length")
                    .Output("values", "T")
                    .Output("lengths", "i64")
                    .SetShapeFn(ParseExampleFeatureShape)
                    .NoGradient("parses strings; nothing to differentiate")
                    .Doc("One feature of serialized tf.train.Example records (a scalar or a vector of them): "
                         "fixed-length as [batch] + shape, a missing one taking default_value (one value or "
                         "shape's; empty: required); variable-length (var_len) padded with 0 or \"\" to "
                         "[batch, longest]. lengths: each record's count of values. T: i64, f32 or string for "
                         "int64, float and bytes lists. parse_example(serialized, features) and "
                         "parse_single_example are the usual way in."));
TFG_REGISTER_KERNEL(KernelDef("parse_example_feature", DeviceType::kCpu).Create<ParseExampleFeatureKernel>());

}  // namespace tfg
