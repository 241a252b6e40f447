// Finding the GPUs. The CUDA runtime is linked statically and loads the
// driver (libcuda) itself when first called: without a driver, or with a
// driver that sees no GPU, cudaGetDeviceCount fails and tfg has 0 GPUs.
#include <cstdio>
#include <mutex>

#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_devices.h"

namespace tfg {

namespace {

struct Probe {
  int count = 0;
  std::string reason;  // why count is 0
};

const Probe& ProbeOnce() {
  static const Probe probe = [] {
    Probe p;
    cudaError_t e = cudaGetDeviceCount(&p.count);
    if (e == cudaErrorNoDevice || (e == cudaSuccess && p.count == 0)) {
      p.count = 0;
      p.reason = "the CUDA driver sees no GPU";
    } else if (e == cudaErrorInsufficientDriver) {
      p.count = 0;
      p.reason = "no CUDA driver, or one older than the CUDA runtime tfg was built with";
    } else if (e != cudaSuccess) {
      p.count = 0;
      p.reason = std::string("CUDA could not be initialised: ") + cudaGetErrorString(e);
    }
    // A failed call leaves its error as the thread's last error; clear it
    // so later checks do not report it again.
    cudaGetLastError();
    return p;
  }();
  return probe;
}

}  // namespace

int CudaDeviceCount() { return ProbeOnce().count; }

std::string CudaUnavailableReason() { return ProbeOnce().reason; }

std::vector<std::unique_ptr<Device>> CreateCudaDevices() {
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < CudaDeviceCount(); ++i) {
    Result<std::unique_ptr<CudaDevice>> device = CudaDevice::Create(i);
    if (!device.ok()) {
      std::fprintf(stderr, "tfg: warning: GPU %d is not used: %s\n", i, device.status().message().c_str());
      continue;
    }
    devices.push_back(std::move(*device));
  }
  return devices;
}

}  // namespace tfg
