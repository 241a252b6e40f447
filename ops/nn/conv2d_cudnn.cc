// The GPU kernel of conv2d (f32) through cuDNN, loaded at first use
// (devices/cuda/cuda_cudnn.h): NHWC images as they are, the HWIO filter
// transposed to cuDNN's OHWI, cross-correlation with TensorFlow's padding
// (SAME padding with one more row or column after than before is applied
// by padding a copy of the input, which cuDNN's symmetric padding cannot
// express), FMA math only (no TF32), so results match the CPU's to f32
// rounding. Operands are checked by ops/nn/conv2d.h, as on the CPU. The
// backprops have no GPU kernels yet and run on the CPU.
#include <climits>
#include <vector>

#include "devices/cuda/cuda_cudnn.h"
#include "devices/cuda/cuda_kernel.h"
#include "ops/core/op_registry.h"
#include "ops/nn/conv2d.h"
#include "ops/nn/conv2d_cuda.h"
#include "ops/nn/nn_util.h"

namespace tfg {
namespace nn::conv2d_cudnn {

constexpr const char* kOp = "conv2d";
// The largest scratch space a convolution algorithm may ask for.
constexpr size_t kMaxWorkspaceBytes = size_t{256} << 20;

// The descriptors of one call, destroyed when it has been queued (cuDNN
// copies what it needs).
struct Descriptors {
  explicit Descriptors(const CudnnApi& api) : api(api) {}
  ~Descriptors() {
    if (x) api.destroy_tensor(x);
    if (y) api.destroy_tensor(y);
    if (w) api.destroy_filter(w);
    if (conv) api.destroy_convolution(conv);
  }
  const CudnnApi& api;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
};

// What the cuDNN call sees: the (maybe padded) input, its padding, the
// transposed filter and the output.
struct ConvCall {
  const void* x = nullptr;
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t pad_h = 0, pad_w = 0;
  const void* filter = nullptr;  // OHWI
  int64_t o = 0, kh = 0, kw = 0;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  void* y = nullptr;
  int64_t oh = 0, ow = 0;
};

Status Describe(const CudnnApi& api, const ConvCall& k, Descriptors& d) {
  TFG_CUDNN_RETURN_IF_ERROR(api, create_tensor, &d.x);
  TFG_CUDNN_RETURN_IF_ERROR(api, create_tensor, &d.y);
  TFG_CUDNN_RETURN_IF_ERROR(api, create_filter, &d.w);
  TFG_CUDNN_RETURN_IF_ERROR(api, create_convolution, &d.conv);
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  TFG_CUDNN_RETURN_IF_ERROR(api, set_tensor_4d, d.x, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, i(k.n), i(k.c), i(k.h), i(k.w));
  TFG_CUDNN_RETURN_IF_ERROR(api, set_tensor_4d, d.y, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, i(k.n), i(k.o), i(k.oh),
                            i(k.ow));
  TFG_CUDNN_RETURN_IF_ERROR(api, set_filter_4d, d.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, i(k.o), i(k.c), i(k.kh),
                            i(k.kw));
  TFG_CUDNN_RETURN_IF_ERROR(api, set_convolution_2d, d.conv, i(k.pad_h), i(k.pad_w), i(k.sh), i(k.sw), i(k.dh),
                            i(k.dw), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  TFG_CUDNN_RETURN_IF_ERROR(api, set_convolution_math_type, d.conv, CUDNN_FMA_MATH);
  return Status::OK();
}

// The fastest algorithm cuDNN's heuristics offer within the workspace bound.
Result<cudnnConvolutionFwdAlgoPerf_t> ChooseAlgorithm(const CudnnApi& api, cudnnHandle_t handle,
                                                      const Descriptors& d) {
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int returned = 0;
  TFG_CUDNN_RETURN_IF_ERROR(api, get_convolution_forward_algorithm, handle, d.x, d.w, d.conv, d.y,
                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf);
  for (int a = 0; a < returned; ++a) {
    if (perf[a].status == CUDNN_STATUS_SUCCESS && perf[a].memory <= kMaxWorkspaceBytes) return perf[a];
  }
  return Unimplemented("{}: cuDNN offers no algorithm for this convolution on the GPU", kOp);
}

// Queues the convolution; a workspace it needs joins `keep`.
Status RunConvolution(CudaDevice& dev, const ConvCall& k, std::vector<Tensor>& keep) {
  return WithCudnn(dev, [&](const CudnnApi& api, cudnnHandle_t handle) -> Status {
    Descriptors d(api);
    TFG_RETURN_IF_ERROR(Describe(api, k, d));
    TFG_ASSIGN_OR_RETURN(cudnnConvolutionFwdAlgoPerf_t algo, ChooseAlgorithm(api, handle, d));
    void* workspace = nullptr;
    if (algo.memory > 0) {
      const int64_t words = static_cast<int64_t>((algo.memory + 3) / 4);
      TFG_ASSIGN_OR_RETURN(Tensor ws, Tensor::Allocate(dev.allocator(), DType::kF32, TensorShape({words})));
      workspace = ws.raw_data();
      keep.push_back(std::move(ws));
    }
    const float alpha = 1, beta = 0;
    TFG_CUDNN_RETURN_IF_ERROR(api, convolution_forward, handle, &alpha, d.x, k.x, d.w, k.filter, d.conv, algo.algo,
                              workspace, algo.memory, &beta, d.y, k.y);
    return Status::OK();
  });
}

Status CheckFitsInt(const nn::Geometry& g, int64_t o) {
  for (int64_t v : {g.n, g.h + g.kh * g.dh, g.w + g.kw * g.dw, g.c, o}) {
    if (v > INT_MAX / 2) {
      return Unimplemented("{}: dimensions above {} are not supported on the GPU yet", kOp, INT_MAX / 2);
    }
  }
  return Status::OK();
}

class Conv2DKernel final : public CudaOpKernel {
 public:
  Status Init(const KernelConstruction& c) override {
    TFG_ASSIGN_OR_RETURN(attrs_, nn::ReadWindowAttrs(c.op->name, *c.attrs));
    return Status::OK();
  }

 protected:
  Status Enqueue(OpKernelContext& ctx, CudaDevice& dev) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& filter = ctx.input(1);
    TFG_ASSIGN_OR_RETURN(nn::Conv2DRun run, nn::PlanConv2D(nn::OpName(ctx), input.shape(), filter.shape(), attrs_));
    const nn::Geometry& g = run.g;
    const int64_t o = run.out_channels;
    TFG_RETURN_IF_ERROR(CheckFitsInt(g, o));
    TFG_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output(0, run.out));
    if (out->num_elements() == 0) return Status::OK();
    if (g.in_image() == 0 || g.kh * g.kw == 0) {
      // A sum over nothing (no input channels).
      TFG_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out->raw_data(), 0, out->bytes(), dev.compute_stream()));
      return Status::OK();
    }
    std::vector<Tensor> keep;  // temporaries, freed when the GPU is done with them
    ConvCall k;
    TFG_RETURN_IF_ERROR(Prepare(dev, input, filter, g, o, k, keep));
    k.y = out->raw_data();
    TFG_RETURN_IF_ERROR(RunConvolution(dev, k, keep));
    dev.ThenExecute(dev.compute_stream(), [keep = std::move(keep)](Status) {});
    return Status::OK();
  }

 private:
  // Queues the filter's transposition and, when needed, the input's padding.
  static Status Prepare(CudaDevice& dev, const Tensor& input, const Tensor& filter, const nn::Geometry& g, int64_t o,
                        ConvCall& k, std::vector<Tensor>& keep) {
    TFG_ASSIGN_OR_RETURN(Tensor ohwi, Tensor::Allocate(dev.allocator(), filter.dtype(), TensorShape({o, g.kh, g.kw, g.c})));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchTranspose2D(4, filter.raw_data(), ohwi.raw_data(), g.kh * g.kw * g.c, o,
                                                     dev.compute_stream()));
    k = ConvCall{input.raw_data(), g.n, g.h, g.w, g.c, g.pad_top, g.pad_left, ohwi.raw_data(), o, g.kh, g.kw,
                 g.sh, g.sw, g.dh, g.dw, nullptr, g.oh, g.ow};
    keep.push_back(std::move(ohwi));
    if (g.pad_bottom == g.pad_top && g.pad_right == g.pad_left) return Status::OK();
    const cuda::PadArgs p{g.n, g.h, g.w, g.c, g.pad_top, g.pad_bottom, g.pad_left, g.pad_right};
    TFG_ASSIGN_OR_RETURN(Tensor padded, Tensor::Allocate(dev.allocator(), input.dtype(),
                                                         TensorShape({g.n, p.h + p.top + p.bottom, p.w + p.left + p.right, g.c})));
    TFG_CUDA_RETURN_IF_ERROR(cuda::LaunchPadImages(4, p, input.raw_data(), padded.raw_data(), dev.compute_stream()));
    k.x = padded.raw_data();
    k.h = padded.dim(1);
    k.w = padded.dim(2);
    k.pad_h = k.pad_w = 0;
    keep.push_back(std::move(padded));
    return Status::OK();
  }

  nn::WindowAttrs attrs_;
};

// f32 only: f16 and f64 convolutions run on the CPU.
TFG_REGISTER_KERNEL(KernelDef(kOp, DeviceType::kGpu).TypeConstraint({DType::kF32}, "T").Create<Conv2DKernel>());

}  // namespace nn::conv2d_cudnn
}  // namespace tfg
