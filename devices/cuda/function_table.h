// A table of C functions looked up by name in a shared library opened with
// dlopen: how cuBLAS (cuda_cublas.cc) and cuDNN (cuda_cudnn.cc) are loaded
// the first time a GPU needs them. `for_each(api, fn)` calls fn(exported
// name, table entry) for every entry, so one list serves loading and
// checking.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/core/status.h"

namespace tfg::cuda {

// Opens the first of `sonames` that loads (the versioned name of the
// headers tfg was built with, then the development link) and fills every
// entry, or fails with Unavailable "<library> could not be loaded: <why>":
// the versioned name's dlopen error, which says more than the link's, or
// the first function missing. The library stays open on success: the
// table serves until the process exits.
template <typename Api, size_t N, typename ForEach>
Result<Api> LoadFunctionTable(const char* library, const char* const (&sonames)[N], ForEach for_each) {
  std::string error;
  void* handle = nullptr;
  for (const char* name : sonames) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    const char* why = dlerror();
    if (error.empty()) error = why != nullptr ? why : name;
  }
  if (handle == nullptr) return Error(Code::kUnavailable, "{} could not be loaded: {}", library, error);
  error.clear();
  Api api;
  for_each(api, [&](const char* name, auto& entry) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(handle, name));
    const char* why = entry == nullptr ? dlerror() : nullptr;
    if (entry == nullptr && error.empty()) error = why != nullptr ? why : std::string(name) + " not found";
  });
  if (!error.empty()) {
    dlclose(handle);
    return Error(Code::kUnavailable, "{} could not be loaded: {}", library, error);
  }
  return api;
}

// The exported names of the entries `api` lacks.
template <typename Api, typename ForEach>
std::vector<std::string> MissingFunctions(const Api& api, ForEach for_each) {
  std::vector<std::string> missing;
  for_each(api, [&](const char* name, const auto& entry) {
    if (entry == nullptr) missing.push_back(name);
  });
  return missing;
}

}  // namespace tfg::cuda
