// string_split(input, delimiter=" ", skip_empty=true): TensorFlow 1's
// tf.string_split, which returns a SparseTensor. tfg has no sparse tensors,
// so the tokens come back dense: a scalar input gives the rank-1 tensor of
// its tokens; a rank-1 input of n strings gives [n, max tokens], each row
// padded with "" (what tf.sparse.to_dense(..., default_value="") of
// TensorFlow's result gives). Every character of `delimiter` splits; an
// empty delimiter splits into single bytes; skip_empty drops empty tokens.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/core/op_registry.h"

namespace tfg::string_ops {
namespace {

struct SplitAttrs {
  std::string delimiter = " ";
  bool skip_empty = true;
};

SplitAttrs ReadSplitAttrs(const AttrMap& attrs) {
  SplitAttrs a;
  if (const std::string* d = FindAttr<std::string>(attrs, "delimiter")) a.delimiter = *d;
  if (const bool* s = FindAttr<bool>(attrs, "skip_empty")) a.skip_empty = *s;
  return a;
}

std::vector<std::string> SplitOne(const std::string& s, const SplitAttrs& a) {
  std::vector<std::string> tokens;
  if (a.delimiter.empty()) {
    for (char ch : s) tokens.emplace_back(1, ch);
    return tokens;
  }
  std::string token;
  for (char ch : s) {
    if (a.delimiter.find(ch) == std::string::npos) {
      token += ch;
      continue;
    }
    if (!token.empty() || !a.skip_empty) tokens.push_back(token);
    token.clear();
  }
  if (!token.empty() || !a.skip_empty) tokens.push_back(token);
  return tokens;
}

Status CheckSplitRank(const PartialShape& s) {
  if (!s.known_rank() || s.rank() <= 1) return Status::OK();
  return InvalidArgument("string_split: input must be a scalar or a vector of strings, got shape {}", s.ToString());
}

Status StringSplitShapeFn(ShapeContext& c) {
  const PartialShape& in = c.input(0);
  TFG_RETURN_IF_ERROR(CheckSplitRank(in));
  if (!in.known_rank()) {
    c.set_output(0, PartialShape());
  } else {
    c.set_output(0, in.rank() == 0 ? PartialShape({-1}) : PartialShape({in.dim(0), -1}));
  }
  return Status::OK();
}

class StringSplitKernel final : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    attrs_ = ReadSplitAttrs(*c.attrs);
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& x = ctx.input(0);
    TFG_RETURN_IF_ERROR(CheckSplitRank(PartialShape(x.shape())));
    const std::string* in = x.data<std::string>();
    std::vector<std::vector<std::string>> rows;
    size_t width = 0;
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      rows.push_back(SplitOne(in[i], attrs_));
      width = std::max(width, rows.back().size());
    }
    const int64_t w = static_cast<int64_t>(width);
    const TensorShape shape = x.rank() == 0 ? TensorShape({w}) : TensorShape({x.dim(0), w});
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape));
    std::string* y = out->data<std::string>();
    for (size_t r = 0; r < rows.size(); ++r) {
      for (size_t t = 0; t < rows[r].size(); ++t) y[static_cast<int64_t>(r) * w + static_cast<int64_t>(t)] = rows[r][t];
    }
    return Status::OK();
  }

 private:
  SplitAttrs attrs_;
};

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("string_split")
                    .Input("input", "string")
                    .Attr("delimiter", AttrType::kString, std::string(" "),
                          "each of its characters splits; \"\" splits into single bytes")
                    .Attr("skip_empty", AttrType::kBool, true, "drop empty tokens")
                    .Output("tokens", "string")
                    .SetShapeFn(StringSplitShapeFn)
                    .NoGradient("string output")
                    .Doc("Splits strings into tokens, as TensorFlow 1's tf.string_split, but dense: a scalar "
                         "gives the vector of its tokens, a vector of n strings gives [n, max tokens] padded with "
                         "\"\" (TensorFlow returns a SparseTensor of the same tokens; tfg has no sparse tensors)."));
TFG_REGISTER_KERNEL(KernelDef("string_split", DeviceType::kCpu).Create<StringSplitKernel>());

}  // namespace tfg::string_ops
