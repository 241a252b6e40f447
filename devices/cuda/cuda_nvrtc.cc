#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>

#include "devices/cuda/function_table.h"
#include "devices/cuda/nvrtc_library.h"

namespace tfg::cuda {
namespace {

struct NvrtcApi {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
};

constexpr auto kFunctions = [](auto &api, auto &&fn) {
  fn("nvrtcCreateProgram", api.create);
  fn("nvrtcDestroyProgram", api.destroy);
  fn("nvrtcCompileProgram", api.compile);
  fn("nvrtcGetProgramLogSize", api.log_size);
  fn("nvrtcGetProgramLog", api.log);
  fn("nvrtcGetCUBINSize", api.cubin_size);
  fn("nvrtcGetCUBIN", api.cubin);
  fn("nvrtcGetErrorString", api.error_string);
};

// The NVRTC of the toolkit tfg was built with, one major version back
// (the functions used are the same), then the development link.
Result<NvrtcApi> LoadTable() {
  const std::string built = "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000);
  const std::string older = "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000 - 1);
  const char *names[] = {built.c_str(), older.c_str(), "libnvrtc.so"};
  return LoadFunctionTable<NvrtcApi>("NVRTC", names, kFunctions);
}

Result<const NvrtcApi *> LoadNvrtc() {
  static const Result<NvrtcApi> *loaded = new Result<NvrtcApi>(LoadTable());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

std::string ProgramLog(const NvrtcApi &api, nvrtcProgram program) {
  size_t size = 0;
  if (api.log_size(program, &size) != NVRTC_SUCCESS || size == 0) return "";
  std::string log(size, '\0');
  if (api.log(program, log.data()) != NVRTC_SUCCESS) return "";
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

Result<std::string> CompileToCubin(const std::string &source, const std::vector<SourceFile> &headers, int arch) {
  TFG_ASSIGN_OR_RETURN(const NvrtcApi *api, LoadNvrtc());
  std::vector<const char *> names, texts;
  for (const SourceFile &h : headers) {
    names.push_back(h.name.c_str());
    texts.push_back(h.text.c_str());
  }
  nvrtcProgram program = nullptr;
  nvrtcResult r = api->create(&program, source.c_str(), "tfg_fused.cu", static_cast<int>(headers.size()), texts.data(),
                              names.data());
  if (r != NVRTC_SUCCESS) return Error(Code::kInternal, "NVRTC: {}", api->error_string(r));
  // No product and sum contracted into one FMA, as in the single-op GPU
  // kernels (cmake/cuda.cmake): a fused kernel then has their bits.
  const std::string arch_option = "--gpu-architecture=sm_" + std::to_string(arch);
  const char *options[] = {arch_option.c_str(), "--std=c++17", "--fmad=false"};
  r = api->compile(program, 3, options);
  std::string result;
  if (r == NVRTC_SUCCESS) {
    size_t size = 0;
    r = api->cubin_size(program, &size);
    result.resize(size);
    if (r == NVRTC_SUCCESS) r = api->cubin(program, result.data());
  }
  const std::string log = r == NVRTC_SUCCESS ? "" : ProgramLog(*api, program);
  api->destroy(&program);
  if (r == NVRTC_ERROR_COMPILATION) {
    return Error(Code::kInvalidArgument, "NVRTC could not compile a fused kernel for sm_{}: {}", arch, log);
  }
  if (r != NVRTC_SUCCESS) return Error(Code::kInternal, "NVRTC: {} {}", api->error_string(r), log);
  return result;
}

}  // namespace tfg::cuda
