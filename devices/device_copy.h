// Moving tensors between a device's memory and host memory, whatever the
// device: a CPU device's tensors are host memory already (the tensor is
// passed on as is), a GPU's are copied through the CUDA device's streams
// (devices/cuda/cuda_devices.h). What crosses a Rendezvous, what a run
// fetches and what it feeds is always host memory; _send and _recv on a
// device with memory of its own copy on the way out and in.
#pragma once

#include <functional>
#include <vector>

#include "ops/core/device.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

using TensorDone = std::function<void(Result<Tensor>)>;

// Whether tensors allocated on `device` live in host memory.
bool UsesHostMemory(const Device& device);

// `done` runs exactly once, with the tensor in host memory: at once for a
// host-memory device (the same buffer), else when the copy has finished
// (after every kernel queued on the device before the call).
void CopyToHost(Device* device, const Tensor& t, TensorDone done);
// `done` runs exactly once, with a tensor in `device`'s memory.
void CopyFromHost(Device* device, const Tensor& host, TensorDone done);

// Blocking forms for a run's fetches and feeds (called by the thread that
// runs the step, never by a pool thread). Uninitialized (dead or unset)
// tensors pass through unchanged.
Result<std::vector<Tensor>> TensorsToHost(Device* device, std::vector<Tensor> tensors);
Result<std::vector<Tensor>> TensorsFromHost(Device* device, std::vector<Tensor> tensors);

}  // namespace tfg
