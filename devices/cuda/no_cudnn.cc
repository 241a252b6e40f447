// cuDNN in a build without it (TFG_CUDA=OFF, or a CUDA toolkit without
// cuDNN's headers): it can never be loaded, and no op has a cuDNN kernel.
// cmake/cuda.cmake compiles this file instead of devices/cuda/cuda_cudnn.cc.
#include "devices/cuda/cudnn_library.h"

namespace tfg {

Result<const CudnnApi*> LoadCudnn() {
  return Error(Code::kUnavailable, "cuDNN could not be loaded: tfg was built without cuDNN's headers");
}

std::vector<std::string> MissingCudnnFunctions(const CudnnApi&) { return {}; }

}  // namespace tfg
