// encode_raw(values, dest): the inverse of decode_raw — each vector along
// the last dimension as one string of its elements' bytes (little-endian),
// e.g. to write examples into a record file: encode_raw(pixels, dest="u8").
#include <bit>
#include <cmath>

#include "ops/core/dtype_traits.h"
#include "ops/core/op_registry.h"

namespace tfg {
namespace {

struct RawDest {
  int bytes = 0;  // per element; 0: the input dtype's own encoding
  int64_t lo = 0, hi = 0;
};

Result<RawDest> ParseDest(const std::string& name) {
  if (name.empty()) return RawDest{};
  if (name == "u8") return RawDest{1, 0, 255};
  if (name == "i8") return RawDest{1, -128, 127};
  if (name == "u16") return RawDest{2, 0, 65535};
  if (name == "i16") return RawDest{2, -32768, 32767};
  return InvalidArgument("encode_raw: dest must be \"\" (the input dtype), \"u8\", \"i8\", \"u16\" or \"i16\", got \"{}\"",
                         name);
}

void AppendBits(std::string& out, uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

template <typename T>
uint64_t OwnBits(T v) {
  if constexpr (sizeof(T) == 2) return std::bit_cast<uint16_t>(v);  // f16: IEEE binary16
  else if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(v);
  else return std::bit_cast<uint64_t>(v);
}

template <typename T>
Status Encode(const Tensor& in, const RawDest& dest, Tensor& out) {
  const int64_t n = in.rank() ? in.dim(in.rank() - 1) : 1;
  const T* src = in.data<T>();
  std::string* dst = out.data<std::string>();
  for (int64_t s = 0; s < out.num_elements(); ++s) {
    std::string& bytes = dst[s];
    for (int64_t i = 0; i < n; ++i) {
      T v = src[s * n + i];
      if (dest.bytes == 0) {
        AppendBits(bytes, OwnBits(v), sizeof(T));
        continue;
      }
      double d = static_cast<double>(v);
      if (!(d >= static_cast<double>(dest.lo) && d <= static_cast<double>(dest.hi)) || d != std::floor(d)) {
        return InvalidArgument("encode_raw: element {} is {}, which is not an integer in [{}, {}]", s * n + i, d,
                               dest.lo, dest.hi);
      }
      AppendBits(bytes, static_cast<uint64_t>(static_cast<int64_t>(d)), dest.bytes);
    }
  }
  return Status::OK();
}

class EncodeRawKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(dest_, ParseDest(*c.attr<std::string>("dest")));
    return Status::OK();
  }
  Status Compute(OpKernelContext& ctx) override {
    const Tensor& in = ctx.input(0);
    std::vector<int64_t> dims = in.shape().dims();
    if (!dims.empty()) dims.pop_back();
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, TensorShape(dims)));
    switch (in.dtype()) {
      case DType::kF16: return Encode<half>(in, dest_, *out);
      case DType::kF32: return Encode<float>(in, dest_, *out);
      case DType::kF64: return Encode<double>(in, dest_, *out);
      case DType::kI32: return Encode<int32_t>(in, dest_, *out);
      case DType::kI64: return Encode<int64_t>(in, dest_, *out);
      default: return InvalidArgument("encode_raw: {} is not supported", DTypeName(in.dtype()));
    }
  }

 private:
  RawDest dest_;
};

Status EncodeRawShape(ShapeContext& c) {
  TFG_RETURN_IF_ERROR(ParseDest(*c.attr<std::string>("dest")).status());
  const PartialShape& in = c.input(0);
  if (!in.known_rank() || in.rank() == 0) {
    c.set_output(0, in.known_rank() ? PartialShape::Scalar() : PartialShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  dims.pop_back();
  c.set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

TFG_REGISTER_OP(OpDefBuilder("encode_raw")
                    .Input("values", "T")
                    .TypeAttr("T", {DType::kF16, DType::kF32, DType::kF64, DType::kI32, DType::kI64})
                    .Attr("dest", AttrType::kString, std::string(),
                          "stored element type: \"\" (the input's own), \"u8\", \"i8\", \"u16\", \"i16\"")
                    .Output("bytes", "string")
                    .SetShapeFn(EncodeRawShape)
                    .NoGradient("the output is strings")
                    .Doc("Each vector along the last dimension as one string of its elements' bytes, "
                         "little-endian (output shape: the input's without its last dimension). dest=\"u8\" "
                         "stores each element as one unsigned byte (it must be an integer in [0, 255]). The "
                         "inverse of decode_raw."));
TFG_REGISTER_KERNEL(KernelDef("encode_raw", DeviceType::kCpu).Create<EncodeRawKernel>());

}  // namespace tfg
