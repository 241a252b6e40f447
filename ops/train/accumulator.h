// A conditional accumulator (TensorFlow's ConditionalAccumulator, OSDI §4.4):
// the parameter-server side of synchronous training with backup workers.
// Replicas hand it gradients tagged with the global step they computed them
// at (their local step); a gradient older than the accumulator's global
// step is stale and dropped. take_gradient(m) waits, without holding a
// thread, until m fresh gradients have arrived, returns the mean of the
// first m, drops the rest and advances the global step, so gradients still
// being computed from the old variables are dropped when they come.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/core/cancellation.h"
#include "ops/core/resource_mgr.h"
#include "ops/core/shape.h"

namespace tfg {

class OpKernelContext;

class ConditionalAccumulator : public Resource, public std::enable_shared_from_this<ConditionalAccumulator> {
 public:
  using TakeCallback = std::function<void(Result<Tensor>)>;

  // dtype: f32 or f64 (checked by the op); shape: the gradients' shape,
  // partially known or unknown.
  ConditionalAccumulator(std::string name, DType dtype, PartialShape shape)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {}

  // Keeps `gradient` when local_step >= the global step (true), else drops
  // it (false). A gradient of another dtype or shape is an error.
  Result<bool> ApplyGradient(int64_t local_step, const Tensor& gradient);
  // Calls `done` with the mean of the first num_required gradients once
  // that many are kept (at once when they already are); waiting takes are
  // served in order. Cancellation through `cm` fails the take with Cancelled.
  void TakeGradient(int64_t num_required, CancellationManager* cm, TakeCallback done);
  // Sets the global step (e.g. after restoring a checkpoint).
  void SetGlobalStep(int64_t step);

  int64_t num_accumulated() const;
  int64_t global_step() const;
  const std::string& name() const { return name_; }
  DType dtype() const { return dtype_; }
  const PartialShape& shape() const { return shape_; }
  // "accumulator 'w/grad_accum' (1 of 2 gradients, global step 3)".
  std::string WaitDescription() const;
  std::string DebugString() const override;
  // Whether another accumulator op may share this one (same shared name).
  Status CheckCompatible(DType dtype, const PartialShape& shape) const;

 private:
  struct Take {
    int64_t id;
    int64_t num_required;
    TakeCallback done;
    CancellationManager* cm;
    CancellationManager::Token token;
    std::shared_ptr<ConditionalAccumulator> keep_alive;  // a waiting accumulator outlives reset()
  };
  // Serves the first waiting take if it can be; returns the callback to
  // run once the lock is released (empty: none).
  std::function<void()> ServeLocked();
  Result<Tensor> MeanOfFirstLocked(int64_t n) const;
  void CancelTake(int64_t id);

  const std::string name_;
  const DType dtype_;
  const PartialShape shape_;
  mutable std::mutex mu_;
  std::vector<Tensor> gradients_;  // kept for the current global step, in arrival order
  int64_t global_step_ = 0;
  std::list<Take> takes_;
  int64_t next_id_ = 0;
};

// The accumulator a handle (from conditional_accumulator) names.
Result<std::shared_ptr<ConditionalAccumulator>> LookupAccumulator(ResourceMgr* resources, const Tensor& handle);
std::string AccumulatorHandle(const std::string& container, const std::string& name);

}  // namespace tfg
