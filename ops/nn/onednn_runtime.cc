// Compiled to nothing without oneDNN (cmake/onednn.cmake).
#if defined(TFG_HAVE_ONEDNN)
#include "ops/nn/onednn_runtime.h"

#include <dlfcn.h>

#include <array>
#include <cstring>

#ifndef EIGEN_USE_THREADS
#define EIGEN_USE_THREADS  // ThreadPoolDevice (CMake defines it for every file)
#endif
#include <unsupported/Eigen/CXX11/Tensor>

#include "ops/core/device.h"

namespace tfg::nn::onednn {

namespace d = dnnl;

d::engine& Engine() {
  static d::engine engine(d::engine::kind::cpu, 0);
  return engine;
}

// libgomp is loaded with libdnnl; asked by name so tfg need not link it
// itself.
void SetOmpThreads(int threads) {
  using SetNumThreads = void (*)(int);
  static const auto set = reinterpret_cast<SetNumThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  thread_local int current = -1;
  if (set != nullptr && current != threads) {
    set(threads);
    current = threads;
  }
}

// A device without an Eigen pool (tests' threaded devices) splits work its
// own way; this many slices give it something to split.
constexpr int64_t kDefaultSlices = 4;

Slices SliceBatch(const OpKernelContext& ctx, int64_t n) {
  const Eigen::ThreadPoolDevice* pool = ctx.device() != nullptr ? ctx.device()->eigen_cpu_device() : nullptr;
  const int64_t threads = pool != nullptr ? std::max(pool->numThreads(), 1) : kDefaultSlices;
  Slices s;
  s.count = std::min(threads, n);
  s.size = (n + s.count - 1) / s.count;
  s.count = (n + s.size - 1) / s.size;
  s.omp_threads = s.count == 1 ? static_cast<int>(threads) : 1;
  return s;
}

d::memory ThreadBuffer(const d::memory::desc& md, Buffer slot) {
  thread_local std::array<std::vector<char>, kBufferSlots> buffers;
  std::vector<char>& buffer = buffers[static_cast<size_t>(slot)];
  // One byte more: a zero-sized desc still gets a valid pointer.
  if (buffer.size() < md.get_size() + 1) buffer.resize(md.get_size() + 1);
  return d::memory(md, Engine(), buffer.data());
}

bool IsJitted(const char* impl) { return std::strncmp(impl, "ref", 3) != 0; }

}  // namespace tfg::nn::onednn

#endif  // TFG_HAVE_ONEDNN
