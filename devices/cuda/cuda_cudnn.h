// The cuDNN functions tfg calls, as a table of pointers that LoadCudnn
// (devices/cuda/cudnn_library.h) fills from the library at first use, and
// each GPU's cuDNN handle. Only cuDNN's headers are used at build time,
// for its types.
#pragma once

#include <cudnn.h>

#include <functional>

#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cudnn_library.h"
#include "ops/core/status.h"

namespace tfg {

struct CudnnApi {
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnGetErrorString) get_error_string = nullptr;
  decltype(&cudnnCreateTensorDescriptor) create_tensor = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor = nullptr;
  decltype(&cudnnSetTensor4dDescriptor) set_tensor_4d = nullptr;
  decltype(&cudnnCreateFilterDescriptor) create_filter = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) destroy_filter = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) set_filter_4d = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) create_convolution = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) destroy_convolution = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) set_convolution_2d = nullptr;
  decltype(&cudnnSetConvolutionMathType) set_convolution_math_type = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) get_convolution_forward_algorithm = nullptr;
  decltype(&cudnnConvolutionForward) convolution_forward = nullptr;
};

// "cuDNN error in cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM".
Status CudnnError(cudnnStatus_t status, const char* call);

#define TFG_CUDNN_RETURN_IF_ERROR(api, call_name, ...)                         \
  do {                                                                         \
    cudnnStatus_t tfg_cudnn_status_ = (api).call_name(__VA_ARGS__);            \
    if (tfg_cudnn_status_ != CUDNN_STATUS_SUCCESS) return ::tfg::CudnnError(tfg_cudnn_status_, #call_name); \
  } while (0)

// Runs fn with the loaded table and `dev`'s cuDNN handle (made at the first
// call, bound to the device's compute stream), holding the device's cuDNN
// lock: handles are not thread-safe. An Unavailable error when cuDNN
// cannot be loaded.
Status WithCudnn(CudaDevice& dev, const std::function<Status(const CudnnApi&, cudnnHandle_t)>& fn);

}  // namespace tfg
