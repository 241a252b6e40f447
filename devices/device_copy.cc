#include "devices/device_copy.h"

#include <future>

#include "devices/cuda/cuda_devices.h"

namespace tfg {

bool UsesHostMemory(const Device& device) { return device.type() == DeviceType::kCpu; }

void CopyToHost(Device* device, const Tensor& t, TensorDone done) {
  if (UsesHostMemory(*device)) return done(t);
  CopyCudaToHost(device, t, std::move(done));
}

void CopyFromHost(Device* device, const Tensor& host, TensorDone done) {
  if (UsesHostMemory(*device)) return done(host);
  CopyHostToCuda(device, host, std::move(done));
}

namespace {

using CopyFn = void (*)(Device*, const Tensor&, TensorDone);

Result<std::vector<Tensor>> CopyAll(Device* device, std::vector<Tensor> tensors, CopyFn copy) {
  if (UsesHostMemory(*device)) return tensors;
  for (Tensor& t : tensors) {
    if (!t.IsInitialized()) continue;
    std::promise<Result<Tensor>> copied;
    std::future<Result<Tensor>> result = copied.get_future();
    copy(device, t, [&copied](Result<Tensor> r) { copied.set_value(std::move(r)); });
    TFG_ASSIGN_OR_RETURN(t, result.get());
  }
  return tensors;
}

}  // namespace

Result<std::vector<Tensor>> TensorsToHost(Device* device, std::vector<Tensor> tensors) {
  return CopyAll(device, std::move(tensors), &CopyToHost);
}

Result<std::vector<Tensor>> TensorsFromHost(Device* device, std::vector<Tensor> tensors) {
  return CopyAll(device, std::move(tensors), &CopyFromHost);
}

}  // namespace tfg
