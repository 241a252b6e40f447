// Which CPU convolution backend runs, and whether oneDNN may use
// Winograd (ops/nn/conv_backend.h): chosen at startup from the build and
// the environment, switched by tests.
#include "ops/nn/conv_backend.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace tfg::nn {
namespace {

// -1 until first asked: then the build's default, or the environment's
// choice.
std::atomic<int> selected_backend{-1};
std::atomic<int> winograd_policy{-1};

ConvBackend StartupBackend() {
  const char* env = std::getenv("TFG_CPU_CONV");
  if (!OneDnnBuilt() || (env != nullptr && std::strcmp(env, "reference") == 0)) return ConvBackend::kReference;
  return ConvBackend::kOneDnn;
}

}  // namespace

bool OneDnnBuilt() {
#if defined(TFG_HAVE_ONEDNN)
  return true;
#else
  return false;
#endif
}

ConvBackend CpuConvBackend() {
  int b = selected_backend.load(std::memory_order_relaxed);
  if (b < 0) {
    b = static_cast<int>(StartupBackend());
    selected_backend.store(b, std::memory_order_relaxed);
  }
  return static_cast<ConvBackend>(b);
}

void SetCpuConvBackend(ConvBackend backend) {
  if (!OneDnnBuilt()) backend = ConvBackend::kReference;
  selected_backend.store(static_cast<int>(backend), std::memory_order_relaxed);
}

WinogradPolicy CpuConvWinograd() {
  int p = winograd_policy.load(std::memory_order_relaxed);
  if (p < 0) {
    const char* env = std::getenv("TFG_CONV_WINOGRAD");
    p = static_cast<int>(env != nullptr && std::strcmp(env, "0") == 0 ? WinogradPolicy::kOff : WinogradPolicy::kAuto);
    winograd_policy.store(p, std::memory_order_relaxed);
  }
  return static_cast<WinogradPolicy>(p);
}

void SetCpuConvWinograd(WinogradPolicy policy) {
  winograd_policy.store(static_cast<int>(policy), std::memory_order_relaxed);
}

}  // namespace tfg::nn
