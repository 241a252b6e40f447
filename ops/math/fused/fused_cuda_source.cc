#include "ops/math/fused/fused_cuda_source.h"

#include <fmt/format.h>

#include <utility>

namespace tfg::fused {

// cmake/nvrtc_headers.cmake writes it: {file name, text}.
const std::vector<std::pair<const char *, const char *>> &EmbeddedNvrtcHeaders();

namespace {

// The ops of ops/math/cwise_cuda.cc and ops/nn/bias_add_cuda.cc, with the
// functor each one's GPU kernel launches (ops/math/cwise_cuda.cu);
// GpuMemberOpsTest checks them against the registered GPU kernels.
constexpr GpuMemberOp kOps[] = {
    {"add", "Add", 2, true},
    {"sub", "Sub", 2, true},
    {"mul", "Mul", 2, true},
    {"maximum", "Maximum", 2, true},
    {"minimum", "Minimum", 2, true},
    {"bias_add", "Add", 2, true},
    {"div", "Div", 2, false},
    {"pow", "Pow", 2, false},
    {"relu_grad", "ReluGrad", 2, false},
    {"sigmoid_grad", "SigmoidGrad", 2, false},
    {"tanh_grad", "TanhGrad", 2, false},
    {"sqrt_grad", "SqrtGrad", 2, false},
    {"rsqrt_grad", "RsqrtGrad", 2, false},
    {"atan2", "Atan2", 2, false},
    {"neg", "Neg", 1, false},
    {"abs", "Abs", 1, false},
    {"square", "Square", 1, false},
    {"relu", "Relu", 1, false},
    {"exp", "Exp", 1, false},
    {"log", "Log", 1, false},
    {"sqrt", "Sqrt", 1, false},
    {"rsqrt", "Rsqrt", 1, false},
    {"tanh", "Tanh", 1, false},
    {"sigmoid", "Sigmoid", 1, false},
    {"sin", "Sin", 1, false},
    {"cos", "Cos", 1, false},
    {"erf", "Erf", 1, false},
    {"erfc", "Erfc", 1, false},
    {"asin", "Asin", 1, false},
    {"acos", "Acos", 1, false},
    {"atan", "Atan", 1, false},
    {"sinh", "Sinh", 1, false},
    {"cosh", "Cosh", 1, false},
    {"tan", "Tan", 1, false},
    {"selu", "Selu", 1, false},
};

const char *CudaTypeOf(DType t) {
  switch (t) {
    case DType::kF64: return "double";
    case DType::kI32: return "int";
    case DType::kI64: return "long long";
    default: return "float";
  }
}

std::string Operand(int arg) { return arg >= 0 ? fmt::format("a{}", arg) : fmt::format("m{}", -arg - 1); }

std::string Parameters(const GpuProgram &p, const char *type) {
  std::string s;
  for (int i = 0; i < p.num_inputs; ++i) s += fmt::format("const {}* __restrict__ in{}, ", type, i);
  for (size_t o = 0; o < p.outputs.size(); ++o) s += fmt::format("{}* __restrict__ out{}, ", type, o);
  return s + "long long n, TfgIndex index";
}

std::string Body(const GpuProgram &p, const char *type) {
  std::string s;
  for (int i = 0; i < p.num_inputs; ++i)
    s += fmt::format("    const {} a{} = in{}[TfgOffset(index, {}, i)];\n", type, i, i, i);
  for (size_t k = 0; k < p.functors.size(); ++k) {
    std::string operands;
    for (size_t j = 0; j < p.args[k].size(); ++j) operands += (j ? ", " : "") + Operand(p.args[k][j]);
    s += fmt::format("    {} m{} = tfg::functor::{}()({});\n", type, k, p.functors[k], operands);
  }
  for (size_t o = 0; o < p.outputs.size(); ++o) s += fmt::format("    out{}[i] = m{};\n", o, p.outputs[o]);
  return s;
}

}  // namespace

const GpuMemberOp *FindGpuMemberOp(const std::string &op, DType type) {
  const bool is_float = type == DType::kF32 || type == DType::kF64;
  const bool is_int = type == DType::kI32 || type == DType::kI64;
  for (const GpuMemberOp &entry : kOps) {
    if (op == entry.op && (is_float || (is_int && entry.integers))) return &entry;
  }
  return nullptr;
}

std::vector<GpuMemberOp> GpuMemberOps() { return std::vector<GpuMemberOp>(std::begin(kOps), std::end(kOps)); }

std::string FusedCudaSource(const GpuProgram &p) {
  const char *type = CudaTypeOf(p.type);
  return fmt::format(
      R"(#include "ops/math/cwise_functors.h"
#include "ops/math/cwise_special_functors.h"

struct TfgIndex {{
  long long dims[{rank}];
  long long strides[{inputs}][{rank}];
  int mode[{inputs}];
  int rank;
}};

__device__ __forceinline__ long long TfgOffset(const TfgIndex& index, int k, long long i) {{
  if (index.mode[k] == 0) return i;
  if (index.mode[k] == 1) return 0;
  long long offset = 0;
  for (int d = index.rank - 1; d >= 0; --d) {{
    offset += (i % index.dims[d]) * index.strides[k][d];
    i /= index.dims[d];
  }}
  return offset;
}}

extern "C" __global__ void {name}({params}) {{
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {{
{body}  }}
}}
)",
      fmt::arg("rank", kMaxGpuRank), fmt::arg("inputs", kMaxGpuInputs), fmt::arg("name", kGpuKernelName),
      fmt::arg("params", Parameters(p, type)), fmt::arg("body", Body(p, type)));
}

const std::vector<cuda::SourceFile> &FusedCudaHeaders() {
  static const std::vector<cuda::SourceFile> headers = [] {
    std::vector<cuda::SourceFile> files;
    const char *std_text = nullptr;
    for (const auto &[name, text] : EmbeddedNvrtcHeaders()) {
      if (std::string(name) == "ops/math/fused/nvrtc_std.h") {
        std_text = text;
      } else {
        files.push_back({name, text});
      }
    }
    // The one file stands for each standard header the functors include.
    for (const char *name : {"cmath", "cstdint", "limits", "type_traits"}) {
      files.push_back({name, std_text != nullptr ? std_text : ""});
    }
    return files;
  }();
  return headers;
}

}  // namespace tfg::fused
