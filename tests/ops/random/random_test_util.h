// Runs a random op's kernel the way the executor does for one node: with a
// node name, a graph seed, a ResourceMgr that persists across runs, and a
// device whose ParallelFor splits work into a chosen number of shards.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ops/core/device.h"
#include "ops/core/graph.h"
#include "ops/core/op_registry.h"
#include "ops/core/resource_mgr.h"
#include "tests/ops/op_test_util.h"

namespace tfg::test {

// Runs ParallelFor as exactly `shards` pieces, each on its own thread.
class ShardedDevice final : public Device {
 public:
  explicit ShardedDevice(int shards) : Device("/job:localhost/task:0/device:cpu:0", DeviceType::kCpu), shards_(shards) {}
  Allocator* allocator() override { return HostAllocator(); }
  void ParallelFor(int64_t total, int64_t, const std::function<void(int64_t, int64_t)>& fn) override {
    if (total <= 0) return;
    const int64_t block = (total + shards_ - 1) / shards_;
    std::vector<std::thread> threads;
    for (int64_t begin = 0; begin < total; begin += block) {
      threads.emplace_back([&fn, begin, block, total] { fn(begin, std::min(total, begin + block)); });
    }
    for (auto& t : threads) t.join();
  }

 private:
  int shards_;
};

struct RandomRun {
  uint64_t graph_seed = 0;
  std::string node = "random";
  int shards = 1;
};

inline Result<Tensor> RunRandom(const std::string& op_name, AttrMap attrs, ResourceMgr& resources,
                                const RandomRun& run = {}) {
  const OpDef* op = OpRegistry::Global().Find(op_name);
  if (op == nullptr) return NotFound("no op {}", op_name);
  TFG_ASSIGN_OR_RETURN(Signature sig, ResolveSignature(*op, {}, attrs));
  TFG_ASSIGN_OR_RETURN(const KernelDef* kdef, OpRegistry::Global().FindKernel(*op, DeviceType::kCpu, attrs));
  ShardedDevice device(run.shards);
  KernelConstruction info;
  info.op = op;
  info.attrs = &attrs;
  info.output_types = sig.output_types;
  info.node_name = run.node;
  info.device = &device;
  TFG_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, kdef->factory(info));
  std::vector<Tensor> outputs(1);
  StepInfo step;
  step.graph_seed = run.graph_seed;
  OpKernelContext ctx(&info, nullptr, 0, outputs.data(), 1, &resources, &step);
  TFG_RETURN_IF_ERROR(kernel->Compute(ctx));
  return outputs[0];
}

// Runs with a fresh ResourceMgr (a fresh process, as far as state goes).
inline Result<Tensor> RunRandomFresh(const std::string& op, AttrMap attrs, const RandomRun& run = {}) {
  ResourceMgr resources;
  return RunRandom(op, std::move(attrs), resources, run);
}

struct Moments {
  double mean = 0, stddev = 0, min = 0, max = 0;
};
inline Moments MomentsOf(const Tensor& t) {
  const std::vector<double> v = ToDoubles(t);
  Moments m;
  if (v.empty()) return m;
  m.min = *std::min_element(v.begin(), v.end());
  m.max = *std::max_element(v.begin(), v.end());
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - m.mean) * (x - m.mean);
  m.stddev = std::sqrt(ss / static_cast<double>(v.size()));
  return m;
}

}  // namespace tfg::test
