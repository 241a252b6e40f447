#include "devices/cuda/cuda_cublas.h"

#include "devices/cuda/function_table.h"

namespace tfg {
namespace {

#define TFG_CUBLAS_STRINGIZE_INNER(x) #x
#define TFG_CUBLAS_STRINGIZE(x) TFG_CUBLAS_STRINGIZE_INNER(x)

// The soname of the cuBLAS whose headers tfg was built with (the one
// whose ABI the table assumes), then the unversioned development link.
constexpr const char* kCublasNames[] = {"libcublas.so." TFG_CUBLAS_STRINGIZE(CUBLAS_VER_MAJOR), "libcublas.so"};

// Calls fn(exported name, table entry) for each function of the table
// (cuda::LoadFunctionTable).
constexpr auto kFunctions = [](auto& api, auto&& fn) {
  fn("cublasCreate_v2", api.create);
  fn("cublasDestroy_v2", api.destroy);
  fn("cublasSetStream_v2", api.set_stream);
  fn("cublasGetStatusString", api.get_status_string);
  fn("cublasSgemmStridedBatched", api.sgemm_strided_batched);
  fn("cublasDgemmStridedBatched", api.dgemm_strided_batched);
  fn("cublasGemmStridedBatchedEx", api.gemm_strided_batched_ex);
};

}  // namespace

Result<const CublasApi*> LoadCublas() {
  // The first caller loads it; threads that come meanwhile wait for it.
  // Never destroyed: devices destroyed at exit still call through it.
  static const Result<CublasApi>* loaded =
      new Result<CublasApi>(cuda::LoadFunctionTable<CublasApi>("cuBLAS", kCublasNames, kFunctions));
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

std::vector<std::string> MissingCublasFunctions(const CublasApi& api) {
  return cuda::MissingFunctions(api, kFunctions);
}

Status CublasError(cublasStatus_t status, const char* call) {
  Code code = status == CUBLAS_STATUS_ALLOC_FAILED ? Code::kResourceExhausted : Code::kInternal;
  // A status comes from a cuBLAS call, so the table is there.
  Result<const CublasApi*> api = LoadCublas();
  if (!api.ok()) return Error(code, "cuBLAS error in {}: status {}", call, static_cast<int>(status));
  return Error(code, "cuBLAS error in {}: {}", call, (*api)->get_status_string(status));
}

}  // namespace tfg
