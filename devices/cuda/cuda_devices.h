// The CUDA devices, as the rest of tfg sees them: how many there are, the
// Device objects, and tensor copies between host memory and a GPU (what
// Send/Recv between a CPU and a GPU become). No CUDA types here, so any
// file may include it; a build without CUDA (TFG_CUDA=OFF or no nvcc)
// links devices/cuda/no_cuda.cc instead, which has no devices.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/core/device.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

// GPUs tfg can use. 0 — never an error — when tfg was built without CUDA,
// when the machine has no CUDA driver, or the driver sees no GPU.
int CudaDeviceCount();

// Why there is no CUDA device, for messages: "built without CUDA", "no
// CUDA driver (...)", "no GPU". Empty when CudaDeviceCount() > 0.
std::string CudaUnavailableReason();

// The error for a `--device gpu` or `/device:gpu:N` request that cannot be
// met: "no CUDA device available (<reason>)".
Status NoCudaDeviceError(int requested_ordinal = 0);

// One device per GPU, named "/job:localhost/task:0/device:gpu:N". Empty
// when CudaDeviceCount() == 0. A GPU that fails to initialise is left out
// (with a warning on stderr) rather than failing the others.
std::vector<std::unique_ptr<Device>> CreateCudaDevices();

// Copies a host tensor to `gpu` (a device CreateCudaDevices made), through
// a pinned staging buffer on the device's host-to-device stream; kernels
// queued on the device after the call see the data. `done` runs exactly
// once: from the device's completion thread when the copy has finished, or
// at once with an error (strings cannot go to a GPU; out of memory).
void CopyHostToCuda(Device* gpu, const Tensor& host, std::function<void(Result<Tensor>)> done);
// Copies a tensor on `gpu` to host memory, after every kernel queued on
// the device before the call (device-to-host stream, pinned staging).
void CopyCudaToHost(Device* gpu, const Tensor& on_gpu, std::function<void(Result<Tensor>)> done);

// Blocking forms, for tests and tools (never on an executor pool thread).
Result<Tensor> CopyHostToCudaSync(Device* gpu, const Tensor& host);
Result<Tensor> CopyCudaToHostSync(Device* gpu, const Tensor& on_gpu);

}  // namespace tfg
