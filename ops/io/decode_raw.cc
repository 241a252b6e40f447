// decode_raw(bytes, out_type, little_endian, source): the bytes of each
// string as a vector of numbers. tfg has no 8- or 16-bit integer dtypes, so
// `source` names the stored element type when it differs from out_type
// ("u8": one unsigned byte per element, widened), e.g. pixels:
// decode_raw(record, f32, source="u8").
#include <bit>
#include <cstring>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

struct RawSource {
  int bytes = 0;        // per element; 0: out_type's own encoding
  bool is_signed = false;
};

Result<RawSource> ParseSource(const std::string& name) {
  if (name.empty()) return RawSource{};
  if (name == "u8") return RawSource{1, false};
  if (name == "i8") return RawSource{1, true};
  if (name == "u16") return RawSource{2, false};
  if (name == "i16") return RawSource{2, true};
  return InvalidArgument("decode_raw: source must be \"\" (out_type itself), \"u8\", \"i8\", \"u16\" or \"i16\", got \"{}\"",
                         name);
}

uint64_t LoadBits(const unsigned char* p, int bytes, bool little_endian) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    int shift = 8 * (little_endian ? i : bytes - 1 - i);
    v |= static_cast<uint64_t>(p[i]) << shift;
  }
  return v;
}

// One element from its bits: a narrow stored integer widened (sign-extended
// for i8/i16), or the out type's own bit pattern.
template <typename T>
T FromBits(uint64_t bits, const RawSource& source) {
  if (source.bytes == 0) {
    if constexpr (sizeof(T) == 2) return std::bit_cast<T>(static_cast<uint16_t>(bits));  // f16
    else if constexpr (sizeof(T) == 4) return std::bit_cast<T>(static_cast<uint32_t>(bits));
    else return std::bit_cast<T>(bits);
  }
  int64_t v = static_cast<int64_t>(bits);
  if (source.is_signed && (bits >> (8 * source.bytes - 1)) & 1) v -= int64_t{1} << (8 * source.bytes);
  if constexpr (std::is_same_v<T, half>) return static_cast<half>(static_cast<float>(v));
  else return static_cast<T>(v);
}

class DecodeRawKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    out_type_ = c.output_types[0];
    little_endian_ = *c.attr<bool>("little_endian");
    TFG_ASSIGN_OR_RETURN(source_, ParseSource(*c.attr<std::string>("source")));
    return Status::OK();
  }

  Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    const int width = source_.bytes ? source_.bytes : static_cast<int>(DTypeSize(out_type_));
    const std::string* strings = in.data<std::string>();
    int64_t n = in.num_elements() ? static_cast<int64_t>(strings[0].size()) / width : 0;
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      if (strings[i].size() % width != 0) {
        return InvalidArgument("decode_raw: string {} has {} bytes, not a whole number of {}-byte elements", i,
                               strings[i].size(), width);
      }
      if (static_cast<int64_t>(strings[i].size()) / width != n) {
        return InvalidArgument("decode_raw: string {} has {} bytes; expected {} ({} elements of {} bytes, as the first "
                               "string)",
                               i, strings[i].size(), n * width, n, width);
      }
    }
    std::vector<int64_t> dims = in.shape().dims();
    dims.push_back(n);
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    switch (out_type_) {
      case DType::kF16: Fill<half>(in, n, width, *out); break;
      case DType::kF32: Fill<float>(in, n, width, *out); break;
      case DType::kF64: Fill<double>(in, n, width, *out); break;
      case DType::kI32: Fill<int32_t>(in, n, width, *out); break;
      case DType::kI64: Fill<int64_t>(in, n, width, *out); break;
      default: return InvalidArgument("decode_raw: out_type {} is not supported", DTypeName(out_type_));
    }
    return Status::OK();
  }

 private:
  template <typename T>
  void Fill(const Tensor& in, int64_t n, int width, Tensor& out) const {
    T* dst = out.data<T>();
    for (int64_t s = 0; s < in.num_elements(); ++s) {
      const auto* p = reinterpret_cast<const unsigned char*>(in.data<std::string>()[s].data());
      for (int64_t i = 0; i < n; ++i) *dst++ = FromBits<T>(LoadBits(p + i * width, width, little_endian_), source_);
    }
  }

  DType out_type_ = DType::kInvalid;
  bool little_endian_ = true;
  RawSource source_;
};

Status DecodeRawShape(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(ParseSource(*c.attr<std::string>("source")).status());
  const PartialShape& in = c.input(0);
  if (!in.known_rank()) {
    c.set_output(0, PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  dims.push_back(PartialShape::kUnknown);
  c.set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("decode_raw")
                    .Input("bytes", "string")
                    .TypeAttr("out_type", {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64})
                    .Attr("little_endian", AttrType::kBool, true, "byte order of multi-byte elements")
                    .Attr("source", AttrType::kString, std::string(),
                          "stored element type: \"\" (out_type's own), \"u8\", \"i8\", \"u16\", \"i16\"")
                    .Output("output", "out_type")
                    .SetShapeFn(DecodeRawShape)
                    .NoGradient("strings are not differentiable")
                    .Doc("Reinterprets the bytes of each string as a vector of numbers: output shape is the "
                         "input's plus [n]; every string must hold the same n elements. source=\"u8\" reads one "
                         "unsigned byte per element and widens it to out_type (tfg has no 8-bit dtypes): "
                         "decode_raw(record, f32, source=\"u8\") gives pixels 0..255."));
TFG_REGISTER_KERNEL(KernelDef("decode_raw", DeviceType::kCpu).Create<DecodeRawKernel>());

}  // namespace tfg
