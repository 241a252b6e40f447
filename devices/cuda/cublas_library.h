// Loading cuBLAS, as any file may see it (no CUDA types here; the table
// itself is in devices/cuda/cuda_cublas.h). cuBLAS is loaded with dlopen
// the first time a GPU needs it instead of being linked: linked, every
// tfg process loaded libcublas and libcublasLt at start-up (~0.1 s), GPU
// or not. A build without CUDA (devices/cuda/no_cuda.cc) never loads it.
#pragma once

#include <string>
#include <vector>

#include "ops/core/status.h"

namespace tfg {

struct CublasApi;

// The table of the cuBLAS functions tfg calls. The first call loads the
// library (thread-safe); every later call returns the same table, or the
// same Unavailable error "cuBLAS could not be loaded: <why>".
Result<const CublasApi*> LoadCublas();

// The exported names of the table's functions that `api` lacks: none once
// LoadCublas has succeeded (for tests and diagnostics).
std::vector<std::string> MissingCublasFunctions(const CublasApi& api);

}  // namespace tfg
