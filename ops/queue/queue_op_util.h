// What the queue ops share: the handle format, the kernel that makes a
// queue on its first run, the base of the waiting (asynchronous) kernels,
// and the attrs a dequeue node carries about its queue.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/core/kernel.h"
#include "ops/core/op_registry.h"
#include "ops/queue/queue_base.h"
#include "ops/queue/tuple_batch.h"

namespace tfg::queue {

// A handle names (container, shared name) in the session's ResourceMgr.
std::string MakeHandle(const std::string& container, const std::string& name);
Result<std::shared_ptr<QueueInterface>> LookupQueueIn(ResourceMgr* resources, const Tensor& handle);

// Makes the queue a queue op names on its first run, or finds the one
// already there (checking it has the same kind and settings), and outputs
// its handle. Subclasses say which kind to make.
class MakeQueueKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override;
  Status Compute(OpKernelContext& ctx) override;
  bool IsExpensive() const override { return false; }

 protected:
  virtual std::string kind() const = 0;
  virtual std::shared_ptr<QueueBase> Make(const OpKernelContext& ctx, QueueConfig config) const = 0;

  std::string container_;
  QueueConfig config_;
};

// Shape function of the queue ops: checks capacity, dtypes and shapes
// agree; the output is a scalar handle.
Status MakeQueueShapeFn(ShapeContext& c);

// What every queue-making op declares after its own attrs: shared_name and
// container, the handle output, statefulness, `shape_fn` and no gradient.
OpDefBuilder& QueueMakerOp(OpDefBuilder& b, ShapeFn shape_fn = MakeQueueShapeFn);

// Base of enqueue/dequeue kernels: asynchronous (they wait on the queue
// without holding a thread), and when waiting they name the queue and its
// state for the hang watchdog.
class QueueWaitKernel : public OpKernel {
 public:
  Status Init(const KernelConstruction& c) override;
  bool IsAsync() const override { return true; }
  Status Compute(OpKernelContext&) override;  // never called: see ComputeAsync
  std::string BlockedOn(const OpKernelContext& ctx) const override;

 protected:
  std::string op_;
};

// Shape function of dequeue, dequeue_many and dequeue_up_to: one output per
// component, of the shape in attr `component_shapes` (unknown when absent),
// with a leading batch dimension `batch` (nullopt: none; -1: unknown).
Status DequeueShapes(ShapeContext& c, std::optional<int64_t> batch);

// The signatures two ops each share: enqueue and enqueue_many take the
// handle and a list of components; dequeue_many and dequeue_up_to take
// the handle and `n` (documented as `n_doc`) and give the components.
OpDefBuilder EnqueueOpDef(std::string name);
OpDefBuilder DequeueBatchOpDef(std::string name, const char* n_doc);

// Hands a dequeued tuple to the kernel's outputs, checking it against the
// node's declared dtypes.
Status SetDequeueOutputs(OpKernelContext& ctx, const QueueInterface& q, Tuple tuple);

}  // namespace tfg::queue

namespace tfg::queue {

// The kernel of dequeue_many (allow_smaller = false) and dequeue_up_to
// (true): n elements, stacked, from attr `n`.
class DequeueBatchKernel : public QueueWaitKernel {
 public:
  explicit DequeueBatchKernel(bool allow_smaller) : allow_smaller_(allow_smaller) {}
  Status Init(const KernelConstruction& c) override;
  void ComputeAsync(OpKernelContext& ctx, std::function<void(Status)> done) override;

 private:
  bool allow_smaller_;
  int64_t n_ = 1;
};

}  // namespace tfg::queue
