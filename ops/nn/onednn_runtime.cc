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

// Two slices a thread where each still gets this many images: threads
// claim slices as they come free, so a thread whose core is not shared
// (with an op running beside this one, or another process) takes over a
// slice of one whose core is, where one slice each left it idle until the
// slower finished. In the Fashion-MNIST CNN step on 2 threads that took
// the median of 10 paired runs from 9.91 to 9.52 ms; 16 images keep
// Winograd (8 or more) and its efficiency.
constexpr int64_t kImagesToSplitFurther = 16;

Slices SliceBatch(const OpKernelContext& ctx, int64_t n) {
  const Eigen::ThreadPoolDevice* pool = ctx.device() != nullptr ? ctx.device()->eigen_cpu_device() : nullptr;
  const int64_t threads = pool != nullptr ? std::max(pool->numThreads(), 1) : kDefaultSlices;
  Slices s;
  const bool split_further = threads > 1 && n >= 2 * threads * kImagesToSplitFurther;
  s.count = std::min(split_further ? 2 * threads : threads, n);
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
