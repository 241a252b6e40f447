// The CUDA devices of a build without CUDA (TFG_CUDA=OFF, or no nvcc when
// configured): there are none. cmake/cuda.cmake compiles this file
// instead of devices/cuda/cuda_*.cc.
#include "devices/cuda/cublas_library.h"
#include "devices/cuda/cuda_devices.h"
#include "devices/cuda/nvrtc_library.h"

namespace tfg {

int CudaDeviceCount() { return 0; }

std::string CudaUnavailableReason() { return "tfg was built without CUDA"; }

std::vector<std::unique_ptr<Device>> CreateCudaDevices() { return {}; }

void CopyHostToCuda(Device*, const Tensor&, std::function<void(Result<Tensor>)> done) {
  done(NoCudaDeviceError());
}

void CopyCudaToHost(Device*, const Tensor&, std::function<void(Result<Tensor>)> done) {
  done(NoCudaDeviceError());
}

Result<Tensor> CopyHostToCudaSync(Device*, const Tensor&) { return NoCudaDeviceError(); }
Result<Tensor> CopyCudaToHostSync(Device*, const Tensor&) { return NoCudaDeviceError(); }

Result<const CublasApi*> LoadCublas() {
  return Error(Code::kUnavailable, "cuBLAS could not be loaded: {}", CudaUnavailableReason());
}

// No table can exist without CUDA, so it can lack nothing.
std::vector<std::string> MissingCublasFunctions(const CublasApi&) { return {}; }

Result<std::string> cuda::CompileToCubin(const std::string&, const std::vector<cuda::SourceFile>&, int) {
  return Error(Code::kUnavailable, "NVRTC could not be loaded: {}", CudaUnavailableReason());
}

}  // namespace tfg
