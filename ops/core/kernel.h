// Kernels and shape functions: the two things an op provides to the runtime.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ops/core/attr.h"
#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

struct OpDef;
class Device;
class ResourceMgr;

// What a kernel knows when it is created: the node it runs for. Created
// once per node per prepared plan (and once per call for eager ops), so
// kernels parse their attrs in Init, not in Compute.
struct KernelConstruction {
  const OpDef* op = nullptr;
  const AttrMap* attrs = nullptr;
  std::vector<DType> input_types;
  std::vector<DType> output_types;
  std::string node_name;
  SourceSpan span;
  Device* device = nullptr;

  template <typename T>
  const T* attr(const std::string& name) const { return FindAttr<T>(*attrs, name); }
};

class OpKernelContext;
class CancellationManager;

// A kernel computes a node's outputs from its inputs. Thread safety: one
// kernel object may run Compute for several steps at once (the executor
// runs steps concurrently), so Compute must not mutate the kernel; state
// that persists across runs lives in the ResourceMgr.
class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Reads and checks attrs. Errors here are reported at the node's line.
  virtual Status Init(const KernelConstruction&) { return Status::OK(); }
  // Synchronous kernels override Compute.
  virtual Status Compute(OpKernelContext& ctx) = 0;
  // Asynchronous kernels (Recv, Dequeue, Enqueue, GPU work) return true and
  // override ComputeAsync: they must not block the calling pool thread, and
  // must call `done` exactly once, from any thread, after outputs are set.
  virtual bool IsAsync() const { return false; }
  virtual void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) { done(Compute(ctx)); }
  // Expensive kernels are dispatched to the pool; cheap ones may run inline
  // on the thread that made them ready.
  virtual bool IsExpensive() const { return true; }
  // What an asynchronous kernel that has not called `done` yet waits for
  // ("queue 'q' (empty)"), for the hang watchdog's report; empty: nothing
  // worth naming.
  virtual std::string BlockedOn(const OpKernelContext&) const { return std::string(); }
};

// Per-run state a kernel can see beyond its inputs.
struct StepInfo {
  int64_t step_id = 0;
  // Seed of the run (from --seed, 0 = nondeterministic), for random kernels.
  uint64_t graph_seed = 0;
  // Cancelled when the step fails, times out or is interrupted; blocking
  // kernels register with it. Null for eager ops, which never block.
  CancellationManager* cancellation = nullptr;
};

class OpKernelContext {
 public:
  OpKernelContext(const KernelConstruction* info, const Tensor* inputs, int num_inputs, Tensor* outputs,
                  int num_outputs, ResourceMgr* resources, const StepInfo* step)
      : info_(info), inputs_(inputs), num_inputs_(num_inputs), outputs_(outputs), num_outputs_(num_outputs),
        resources_(resources), step_(step) {}

  int num_inputs() const { return num_inputs_; }
  const Tensor& input(int i) const { return inputs_[i]; }
  int num_outputs() const { return num_outputs_; }
  DType output_type(int i) const { return info_->output_types[i]; }

  // Allocates output i with its declared dtype on this node's device.
  Result<Tensor*> allocate_output(int i, TensorShape shape);
  // Sets output i to an existing tensor (e.g. forwarding an input).
  void set_output(int i, Tensor t) { outputs_[i] = std::move(t); }
  Tensor& output(int i) { return outputs_[i]; }

  const KernelConstruction& info() const { return *info_; }
  Device* device() const { return info_->device; }
  Allocator* allocator() const;
  ResourceMgr* resources() const { return resources_; }
  const StepInfo& step() const { return *step_; }

  // Runs fn(begin, end) over [0, total) split across the device's intra-op
  // threads; `cost_per_unit` is a rough cycle count per element, so small
  // work stays on this thread.
  void ParallelFor(int64_t total, int64_t cost_per_unit, const std::function<void(int64_t, int64_t)>& fn) const;

 private:
  const KernelConstruction* info_;
  const Tensor* inputs_;
  int num_inputs_;
  Tensor* outputs_;
  int num_outputs_;
  ResourceMgr* resources_;
  const StepInfo* step_;
};

// What a shape function sees while a node is built.
class ShapeContext {
 public:
  ShapeContext(const OpDef* op, const AttrMap* attrs, std::vector<PartialShape> input_shapes,
               std::vector<DType> input_types, std::vector<const Tensor*> input_values, int num_outputs)
      : op_(op), attrs_(attrs), input_shapes_(std::move(input_shapes)), input_types_(std::move(input_types)),
        input_values_(std::move(input_values)), output_shapes_(num_outputs) {}

  const OpDef& op() const { return *op_; }
  int num_inputs() const { return static_cast<int>(input_shapes_.size()); }
  const PartialShape& input(int i) const { return input_shapes_[i]; }
  DType input_type(int i) const { return input_types_[i]; }
  // The value of input i when it is a constant known at build time, else null.
  const Tensor* input_value(int i) const { return input_values_[i]; }
  template <typename T>
  const T* attr(const std::string& name) const { return FindAttr<T>(*attrs_, name); }
  const AttrMap& attrs() const { return *attrs_; }

  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  void set_output(int i, PartialShape s) { output_shapes_[i] = std::move(s); }
  const std::vector<PartialShape>& output_shapes() const { return output_shapes_; }

 private:
  const OpDef* op_;
  const AttrMap* attrs_;
  std::vector<PartialShape> input_shapes_;
  std::vector<DType> input_types_;
  std::vector<const Tensor*> input_values_;
  std::vector<PartialShape> output_shapes_;
};

// Common shape functions.
namespace shape_fns {
Status Unchanged(ShapeContext& c);         // output 0 = input 0
Status Broadcast(ShapeContext& c);         // output 0 = broadcast of inputs 0 and 1
Status ScalarOutput(ShapeContext& c);      // output 0 = []
Status NoOutputs(ShapeContext& c);
}  // namespace shape_fns

}  // namespace tfg
