#include "ops/summary/summary_util.h"

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"
#include "ops/core/utf8.h"

namespace tfg::summary {
namespace {

template <typename T>
void AppendAsDoubles(const Tensor& t, std::vector<double>& out) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) out.push_back(static_cast<double>(p[i]));
}

}  // namespace

const DTypeSet& SummaryValueTypes() {
  static const DTypeSet types = {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64, DType::kBool};
  return types;
}

std::vector<double> ValuesAsDoubles(const Tensor& t) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(t.num_elements()));
  switch (t.dtype()) {
    case DType::kF16: AppendAsDoubles<half>(t, out); break;
    case DType::kF32: AppendAsDoubles<float>(t, out); break;
    case DType::kF64: AppendAsDoubles<double>(t, out); break;
    case DType::kI32: AppendAsDoubles<int32_t>(t, out); break;
    case DType::kI64: AppendAsDoubles<int64_t>(t, out); break;
    case DType::kBool: AppendAsDoubles<bool>(t, out); break;
    default: break;  // the op signatures admit no other dtype
  }
  return out;
}

namespace {

// The byte offset of the first byte that breaks UTF-8, or npos.
size_t FirstInvalidUtf8(std::string_view s) {
  uint32_t c = 0;
  for (size_t i = 0; i < s.size();) {
    const int len = DecodeUtf8At(s, i, c);
    if (len == 0) return i;
    i += static_cast<size_t>(len);
  }
  return std::string_view::npos;
}

}  // namespace

// Tags are protobuf strings, which must be UTF-8: TensorBoard may not read
// an event file holding another kind.
Result<std::string> ReadTag(const OpKernelContext& ctx, const char* op, int input) {
  const Tensor& tag = ctx.input(input);
  if (tag.rank() != 0) return InvalidArgument("{}: the tag must be a string scalar, got {}", op, tag.DebugString());
  const std::string& s = tag.scalar<std::string>();
  if (s.empty()) return InvalidArgument("{}: the tag must not be empty", op);
  if (const size_t bad = FirstInvalidUtf8(s); bad != std::string_view::npos) {
    return InvalidArgument("{}: the tag is not UTF-8 text (byte {} of {} is 0x{:02x})", op, bad, s.size(),
                           static_cast<unsigned char>(s[bad]));
  }
  return s;
}

Status SetSummaryOutput(OpKernelContext& ctx, const pb::Summary& s) {
  TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape({})));
  if (!s.SerializeToString(&out->data<std::string>()[0])) {
    return Internal("{}: the summary could not be serialized", ctx.info().op->name);
  }
  return Status::OK();
}

Status SummaryShapeFn(ShapeContext& c) {
  const OpDef& op = c.op();
  for (int i = 0; i < c.num_inputs() && i < static_cast<int>(op.inputs.size()); ++i) {
    if (op.inputs[i].name != "tag") continue;
    const PartialShape& tag = c.input(i);
    if (tag.known_rank() && tag.rank() != 0) {
      return InvalidArgument("{}: the tag must be a string scalar, got shape {}", op.name, tag.ToString());
    }
  }
  c.set_output(0, PartialShape::Scalar());
  return Status::OK();
}

}  // namespace tfg::summary
