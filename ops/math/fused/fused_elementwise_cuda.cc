// fused_elementwise on a GPU: the group's CUDA source is generated when
// the kernel is made (at plan time, fused_cuda_source.h), compiled by
// NVRTC for the device's architecture, loaded once per process and
// source, and launched as one grid-stride loop over the output. Groups
// come from the fusion pass run after placement (interp/runtime/
// fuse_elementwise.h), which puts on a GPU only members that
// FindGpuMemberOp knows, with one dtype, and no trailing reduction.
#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <utility>

#include "devices/cuda/cuda_kernel.h"
#include "devices/cuda/launch_grid.h"
#include "ops/core/op_registry.h"
#include "ops/math/fused/fused_cuda_source.h"
#include "ops/math/fused/fused_program.h"
#include "ops/nn/bias_add.h"

namespace tfg::fused {
namespace {

// Kernels by (source, architecture), for the life of the process: plans
// are made again often (new signatures, the REPL), a group's code seldom
// changes, and a compile takes tens of milliseconds.
Result<cudaKernel_t> CompiledKernel(const std::string &source, int arch) {
  static std::mutex mu;
  static auto *kernels = new std::map<std::pair<std::string, int>, cudaKernel_t>;
  std::lock_guard<std::mutex> lock(mu);
  auto it = kernels->find({source, arch});
  if (it != kernels->end()) return it->second;
  TFG_ASSIGN_OR_RETURN(std::string cubin, cuda::CompileToCubin(source, FusedCudaHeaders(), arch));
  cudaLibrary_t library = nullptr;
  TFG_CUDA_RETURN_IF_ERROR(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  cudaKernel_t kernel = nullptr;
  TFG_CUDA_RETURN_IF_ERROR(cudaLibraryGetKernel(&kernel, library, kGpuKernelName));
  kernels->emplace(std::make_pair(source, arch), kernel);
  return kernel;
}

Result<int> Architecture(const CudaDevice &dev) {
  int major = 0, minor = 0;
  TFG_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev.ordinal()));
  TFG_CUDA_RETURN_IF_ERROR(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev.ordinal()));
  return major * 10 + minor;
}

// Each input's place for output element i (GpuIndex), with the output's
// dims collapsed: size-1 dims dropped, and neighbours merged where every
// strided input runs through both contiguously.
Result<GpuIndex> MakeIndex(const TensorShape &out, const std::vector<TensorShape> &inputs) {
  GpuIndex index;
  const int rank = out.rank();
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> strides(inputs.size());
  for (int d = 0; d < rank; ++d) {
    if (out.dim(d) == 1) continue;
    dims.push_back(out.dim(d));
    for (size_t k = 0; k < inputs.size(); ++k) {
      const TensorShape &s = inputs[k];
      const int at = d - (rank - s.rank());
      int64_t stride = 0;
      if (at >= 0 && s.dim(at) != 1) {
        stride = 1;
        for (int e = at + 1; e < s.rank(); ++e) stride *= s.dim(e);
      }
      strides[k].push_back(stride);
    }
  }
  std::vector<int64_t> merged_dims;
  std::vector<std::vector<int64_t>> merged(inputs.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    bool joins = !merged_dims.empty();
    for (size_t k = 0; k < inputs.size() && joins; ++k) {
      joins = merged[k].back() == strides[k][d] * dims[d];
    }
    if (joins) {
      merged_dims.back() *= dims[d];
      for (size_t k = 0; k < inputs.size(); ++k) merged[k].back() = strides[k][d];
      continue;
    }
    merged_dims.push_back(dims[d]);
    for (size_t k = 0; k < inputs.size(); ++k) merged[k].push_back(strides[k][d]);
  }
  if (merged_dims.size() > static_cast<size_t>(kMaxGpuRank)) {
    return Unimplemented(
        "fused_elementwise on a GPU: broadcasting over more "
        "than {} dimensions is not supported yet",
        kMaxGpuRank);
  }
  index.rank = static_cast<int32_t>(merged_dims.size());
  for (size_t d = 0; d < merged_dims.size(); ++d) index.dims[d] = merged_dims[d];
  for (size_t k = 0; k < inputs.size(); ++k) {
    index.mode[k] = inputs[k] == out ? 0 : inputs[k].num_elements() == 1 ? 1 : 2;
    for (size_t d = 0; d < merged[k].size(); ++d) index.strides[k][d] = merged[k][d];
  }
  return index;
}

class FusedElementwiseGpuKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction &c) override {
    TFG_RETURN_IF_ERROR(program_.Init(c));
    if (program_.reduces()) return Unimplemented("fused_elementwise: a reduction on a GPU is not supported yet");
    if (program_.num_inputs() > kMaxGpuInputs) {
      return Unimplemented(
          "fused_elementwise: more than {} inputs on a GPU is "
          "not supported yet",
          kMaxGpuInputs);
    }
    GpuProgram gpu;
    gpu.type = c.output_types[0];
    gpu.num_inputs = program_.num_inputs();
    for (const auto &m : program_.members()) {
      const GpuMemberOp *op = FindGpuMemberOp(m->op, m->type);
      if (op == nullptr || m->type != gpu.type) {
        return Unimplemented("fused_elementwise: {} on {} has no fused GPU form yet", m->op, DTypeName(m->type));
      }
      for (int a : m->args) {
        if (program_.TypeOf(a) != gpu.type) return InvalidArgument("fused_elementwise: a GPU group has one dtype");
      }
      gpu.functors.push_back(op->functor);
      gpu.args.push_back(m->args);
    }
    gpu.outputs.push_back(static_cast<int>(program_.members().size()) - 1);
    for (int k : program_.exports()) gpu.outputs.push_back(k);
    TFG_ASSIGN_OR_RETURN(CudaDevice * dev, AsCudaDevice(c.device));
    TFG_RETURN_IF_ERROR(dev->Activate());
    TFG_ASSIGN_OR_RETURN(int arch, Architecture(*dev));
    TFG_ASSIGN_OR_RETURN(kernel_, CompiledKernel(FusedCudaSource(gpu), arch));
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext &ctx, CudaDevice &dev) const override {
    TFG_ASSIGN_OR_RETURN(std::vector<TensorShape> shapes, MemberShapes(ctx));
    const TensorShape &shape = shapes.back();
    std::vector<void *> outputs;
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, shape));
    outputs.push_back(out->raw_data());
    for (size_t e = 0; e < program_.exports().size(); ++e) {
      const TensorShape &s = shapes[program_.exports()[e]];
      if (s != shape)
        return Internal("fused_elementwise: exported member of shape {}, not {}", s.ToString(), shape.ToString());
      TFG_ASSIGN_OR_RETURN(Tensor * extra, ctx.allocate_output(static_cast<int>(e) + 1, shape));
      outputs.push_back(extra->raw_data());
    }
    long long n = shape.num_elements();
    if (n == 0) return Status::OK();
    std::vector<TensorShape> input_shapes;
    std::vector<const void *> inputs;
    for (int i = 0; i < program_.num_inputs(); ++i) {
      input_shapes.push_back(ctx.input(i).shape());
      inputs.push_back(ctx.input(i).raw_data());
    }
    TFG_ASSIGN_OR_RETURN(GpuIndex index, MakeIndex(shape, input_shapes));
    std::vector<void *> args;
    for (const void *&p : inputs) args.push_back(&p);
    for (void *&p : outputs) args.push_back(&p);
    args.push_back(&n);
    args.push_back(&index);
    TFG_CUDA_RETURN_IF_ERROR(cudaLaunchKernel(reinterpret_cast<const void *>(kernel_), cuda::Blocks(n), cuda::kThreads,
                                              args.data(), 0, dev.compute_stream()));
    return Status::OK();
  }

 private:
  // Every member's shape, as its own kernel would find it, failing at the
  // member's line as that kernel would.
  Result<std::vector<TensorShape>> MemberShapes(const OpKernelContext &ctx) const {
    std::vector<TensorShape> shapes;
    auto shape_of = [&](int a) -> const TensorShape & { return a >= 0 ? ctx.input(a).shape() : shapes[-a - 1]; };
    for (size_t k = 0; k < program_.members().size(); ++k) {
      const Member &m = *program_.members()[k];
      Result<TensorShape> s = shape_of(m.args[0]);
      if (m.block->shapes == ShapeRule::kBiasAdd) {
        auto layout = nn::BiasAddLayout(shape_of(m.args[0]), shape_of(m.args[1]));
        if (!layout.ok()) s = layout.status();
      } else if (m.args.size() == 2) {
        s = BroadcastShapes(shape_of(m.args[0]), shape_of(m.args[1]));
      }
      if (!s.ok()) {
        Status error = s.status();
        return error.Prepend(fmt::format("{} '{}': ", m.op, m.name)).WithSpan(m.span);
      }
      shapes.push_back(*s);
    }
    return shapes;
  }

  Program program_;
  cudaKernel_t kernel_ = nullptr;
};

TFG_REGISTER_KERNEL(KernelDef("fused_elementwise", DeviceType::kGpu)
                        .TypeConstraint({DType::kF32, DType::kF64, DType::kI32, DType::kI64}, "Tout")
                        .Create<FusedElementwiseGpuKernel>());

}  // namespace
}  // namespace tfg::fused
