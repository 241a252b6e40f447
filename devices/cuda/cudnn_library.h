// Loading cuDNN, as any file may see it (no CUDA types here; the table is
// in devices/cuda/cuda_cudnn.h). Like cuBLAS (cublas_library.h), cuDNN is
// loaded with dlopen the first time a GPU convolution runs, never at
// start-up: the library is large, and most processes never need it. A
// build without CUDA, or whose toolkit has no cuDNN headers, links
// devices/cuda/no_cudnn.cc instead and has no GPU convolutions.
#pragma once

#include <string>
#include <vector>

#include "ops/core/status.h"

namespace tfg {

struct CudnnApi;

// The table of the cuDNN functions tfg calls. The first call loads the
// library (thread-safe); later calls return the same table, or the same
// Unavailable error "cuDNN could not be loaded: <why>".
Result<const CudnnApi*> LoadCudnn();

// The exported names of the table's functions that `api` lacks: none once
// LoadCudnn has succeeded.
std::vector<std::string> MissingCudnnFunctions(const CudnnApi& api);

}  // namespace tfg
