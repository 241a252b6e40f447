#include "tests/devices/cuda/gpu_test_util.h"

#include <future>
#include <memory>

#include "devices/cuda/cuda_devices.h"
#include "ops/core/graph.h"
#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"

namespace tfg::test {

Device* TestGpuDevice() {
  static std::vector<std::unique_ptr<Device>>* devices =
      new std::vector<std::unique_ptr<Device>>(CreateCudaDevices());  // never destroyed: outlives every tensor
  return devices->empty() ? nullptr : devices->front().get();
}

bool HasGpuKernel(const std::string& name, const std::vector<DType>& input_types, AttrMap attrs) {
  const OpDef* op = OpRegistry::Global().Find(name);
  if (op == nullptr) return false;
  if (!ResolveSignature(*op, input_types, attrs).ok()) return false;
  return OpRegistry::Global().FindKernel(*op, DeviceType::kGpu, attrs).ok();
}

Result<std::vector<Tensor>> RunOpOnGpu(Device* gpu, const std::string& name, const std::vector<Tensor>& inputs,
                                       AttrMap attrs) {
  const OpDef* op = OpRegistry::Global().Find(name);
  if (op == nullptr) return NotFound("no op named '{}' is registered", name);
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  TFG_ASSIGN_OR_RETURN(Signature sig, ResolveSignature(*op, dtypes, attrs));
  TFG_ASSIGN_OR_RETURN(const KernelDef* kdef, OpRegistry::Global().FindKernel(*op, DeviceType::kGpu, attrs));
  KernelConstruction info;
  info.op = op;
  info.attrs = &attrs;
  info.input_types = sig.input_types;
  info.output_types = sig.output_types;
  info.node_name = name;
  info.device = gpu;
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, kdef->factory(info));

  std::vector<Tensor> on_gpu;
  for (const Tensor& t : inputs) {
    TFG_ASSIGN_OR_RETURN(Tensor copy, CopyHostToCudaSync(gpu, t));
    on_gpu.push_back(std::move(copy));
  }
  std::vector<Tensor> outputs(sig.output_types.size());
  ResourceMgr resources;
  StepInfo step;
  OpKernelContext ctx(&info, on_gpu.data(), static_cast<int>(on_gpu.size()), outputs.data(),
                      static_cast<int>(outputs.size()), &resources, &step);
  std::promise<Status> done;
  kernel->ComputeAsync(ctx, [&done](Status s) { done.set_value(std::move(s)); });
  TFG_RETURN_IF_ERROR(done.get_future().get());
  std::vector<Tensor> host;
  for (const Tensor& t : outputs) {
    TFG_ASSIGN_OR_RETURN(Tensor copy, CopyCudaToHostSync(gpu, t));
    host.push_back(std::move(copy));
  }
  return host;
}

}  // namespace tfg::test
