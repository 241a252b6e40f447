#include "devices/cuda/cuda_cublas.h"

#include <dlfcn.h>

#include <type_traits>

namespace tfg {
namespace {

#define TFG_CUBLAS_STRINGIZE_INNER(x) #x
#define TFG_CUBLAS_STRINGIZE(x) TFG_CUBLAS_STRINGIZE_INNER(x)

// The soname of the cuBLAS whose headers tfg was built with (the one
// whose ABI the table assumes), then the unversioned development link.
constexpr const char* kCublasNames[] = {"libcublas.so." TFG_CUBLAS_STRINGIZE(CUBLAS_VER_MAJOR), "libcublas.so"};

// Calls fn(exported name, table entry) for each function of the table:
// one list for loading and for checking.
template <typename Api, typename Fn>
void ForEachFunction(Api& api, Fn&& fn) {
  fn("cublasCreate_v2", api.create);
  fn("cublasDestroy_v2", api.destroy);
  fn("cublasSetStream_v2", api.set_stream);
  fn("cublasGetStatusString", api.get_status_string);
  fn("cublasSgemmStridedBatched", api.sgemm_strided_batched);
  fn("cublasDgemmStridedBatched", api.dgemm_strided_batched);
  fn("cublasGemmStridedBatchedEx", api.gemm_strided_batched_ex);
}

// The library, or null with why in *error: the versioned name's failure,
// which says more than the development link's.
void* OpenLibrary(std::string* error) {
  for (const char* name : kCublasNames) {
    void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) return library;
    const char* why = dlerror();
    if (error->empty()) *error = why != nullptr ? why : name;
  }
  return nullptr;
}

Result<CublasApi> OpenCublas() {
  std::string error;
  void* library = OpenLibrary(&error);
  if (library == nullptr) return Error(Code::kUnavailable, "cuBLAS could not be loaded: {}", error);
  error.clear();  // a versioned name that failed before the link opened is no error
  CublasApi api;
  ForEachFunction(api, [&](const char* name, auto& entry) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(library, name));
    const char* why = entry == nullptr ? dlerror() : nullptr;
    if (entry == nullptr && error.empty()) error = why != nullptr ? why : std::string(name) + " not found";
  });
  if (!error.empty()) {
    dlclose(library);
    return Error(Code::kUnavailable, "cuBLAS could not be loaded: {}", error);
  }
  // Never closed: the table serves until the process exits.
  return api;
}

}  // namespace

Result<const CublasApi*> LoadCublas() {
  // The first caller loads it; threads that come meanwhile wait for it.
  // Never destroyed: devices destroyed at exit still call through it.
  static const Result<CublasApi>* loaded = new Result<CublasApi>(OpenCublas());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

std::vector<std::string> MissingCublasFunctions(const CublasApi& api) {
  std::vector<std::string> missing;
  ForEachFunction(api, [&](const char* name, const auto& entry) {
    if (entry == nullptr) missing.push_back(name);
  });
  return missing;
}

Status CublasError(cublasStatus_t status, const char* call) {
  Code code = status == CUBLAS_STATUS_ALLOC_FAILED ? Code::kResourceExhausted : Code::kInternal;
  // A status comes from a cuBLAS call, so the table is there.
  Result<const CublasApi*> api = LoadCublas();
  if (!api.ok()) return Error(code, "cuBLAS error in {}: status {}", call, static_cast<int>(status));
  return Error(code, "cuBLAS error in {}: {}", call, (*api)->get_status_string(status));
}

}  // namespace tfg
