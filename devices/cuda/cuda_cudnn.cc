#include "devices/cuda/cuda_cudnn.h"

#include <map>
#include <memory>
#include <mutex>

#include "devices/cuda/function_table.h"

namespace tfg {
namespace {

#define TFG_CUDNN_STRINGIZE_INNER(x) #x
#define TFG_CUDNN_STRINGIZE(x) TFG_CUDNN_STRINGIZE_INNER(x)

// The soname of the cuDNN whose headers tfg was built with, then the
// unversioned development link.
constexpr const char* kCudnnNames[] = {"libcudnn.so." TFG_CUDNN_STRINGIZE(CUDNN_MAJOR), "libcudnn.so"};

// Calls fn(exported name, table entry) for each function of the table
// (cuda::LoadFunctionTable).
constexpr auto kFunctions = [](auto& api, auto&& fn) {
  fn("cudnnCreate", api.create);
  fn("cudnnSetStream", api.set_stream);
  fn("cudnnGetErrorString", api.get_error_string);
  fn("cudnnCreateTensorDescriptor", api.create_tensor);
  fn("cudnnDestroyTensorDescriptor", api.destroy_tensor);
  fn("cudnnSetTensor4dDescriptor", api.set_tensor_4d);
  fn("cudnnCreateFilterDescriptor", api.create_filter);
  fn("cudnnDestroyFilterDescriptor", api.destroy_filter);
  fn("cudnnSetFilter4dDescriptor", api.set_filter_4d);
  fn("cudnnCreateConvolutionDescriptor", api.create_convolution);
  fn("cudnnDestroyConvolutionDescriptor", api.destroy_convolution);
  fn("cudnnSetConvolution2dDescriptor", api.set_convolution_2d);
  fn("cudnnSetConvolutionMathType", api.set_convolution_math_type);
  fn("cudnnGetConvolutionForwardAlgorithm_v7", api.get_convolution_forward_algorithm);
  fn("cudnnConvolutionForward", api.convolution_forward);
};

// One handle per GPU, made at first use and kept until exit (devices may
// be destroyed and made again by tests; the handle outlives them all).
struct DeviceHandle {
  std::mutex mu;
  cudnnHandle_t handle = nullptr;
};

DeviceHandle& HandleOf(int ordinal) {
  static std::mutex mu;
  static auto* handles = new std::map<int, std::unique_ptr<DeviceHandle>>();
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<DeviceHandle>& h = (*handles)[ordinal];
  if (h == nullptr) h = std::make_unique<DeviceHandle>();
  return *h;
}

}  // namespace

Result<const CudnnApi*> LoadCudnn() {
  // Never destroyed, and never closed: the table serves until exit.
  static const Result<CudnnApi>* loaded =
      new Result<CudnnApi>(cuda::LoadFunctionTable<CudnnApi>("cuDNN", kCudnnNames, kFunctions));
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

std::vector<std::string> MissingCudnnFunctions(const CudnnApi& api) {
  return cuda::MissingFunctions(api, kFunctions);
}

Status CudnnError(cudnnStatus_t status, const char* call) {
  Code code = status == CUDNN_STATUS_ALLOC_FAILED ? Code::kResourceExhausted : Code::kInternal;
  Result<const CudnnApi*> api = LoadCudnn();
  if (!api.ok()) return Error(code, "cuDNN error in {}: status {}", call, static_cast<int>(status));
  return Error(code, "cuDNN error in {}: {}", call, (*api)->get_error_string(status));
}

Status WithCudnn(CudaDevice& dev, const std::function<Status(const CudnnApi&, cudnnHandle_t)>& fn) {
  TFG_ASSIGN_OR_RETURN(const CudnnApi* api, LoadCudnn());
  DeviceHandle& h = HandleOf(dev.ordinal());
  std::lock_guard<std::mutex> lock(h.mu);
  TFG_RETURN_IF_ERROR(dev.Activate());  // the handle belongs to the current device
  if (h.handle == nullptr) {
    cudnnHandle_t handle = nullptr;
    cudnnStatus_t st = api->create(&handle);
    if (st != CUDNN_STATUS_SUCCESS) return CudnnError(st, "cudnnCreate");
    h.handle = handle;
  }
  // Each device object has its own stream: bind the handle to this one.
  cudnnStatus_t st = api->set_stream(h.handle, dev.compute_stream());
  if (st != CUDNN_STATUS_SUCCESS) return CudnnError(st, "cudnnSetStream");
  return fn(*api, h.handle);
}

}  // namespace tfg
