// NVRTC, CUDA's compiler at run time, as any file may see it (no CUDA
// types here). Fused elementwise kernels (ops/math/fused/
// fused_elementwise_cuda.cc) are generated when a plan is made and
// compiled through it. Like cuBLAS, NVRTC is loaded with dlopen at its
// first use, so only a process that fuses on a GPU loads it; a build
// without CUDA (devices/cuda/no_cuda.cc) never does.
#pragma once

#include <string>
#include <vector>

#include "ops/core/status.h"

namespace tfg::cuda {

// A file the program may #include, by the name it is included as.
struct SourceFile {
  std::string name;
  std::string text;
};

// Compiles `source` for the GPU architecture `arch` (major * 10 + minor,
// e.g. 90) into a cubin. `headers` are the only files it can include.
// Errors: Unavailable "NVRTC could not be loaded: <why>", or
// InvalidArgument with NVRTC's log when the source does not compile.
Result<std::string> CompileToCubin(const std::string &source, const std::vector<SourceFile> &headers, int arch);

}  // namespace tfg::cuda
