// Queues (white paper §4.6): bounded buffers of tuples of tensors that
// decouple producers from consumers, live in a container of the session's
// ResourceMgr, and are shared by every step that names them. The queue ops
// (fifo_queue, random_shuffle_queue, padding_fifo_queue) output a handle, a
// string scalar naming the queue; enqueue/dequeue/close/size and the input
// readers take that handle and find the queue with LookupQueue.
//
// Waiting never blocks a thread: a call that cannot finish now keeps its
// callback and completes it later, from whichever thread makes room,
// brings data, closes the queue or cancels the step.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/core/resource_mgr.h"
#include "ops/core/shape.h"

namespace tfg {

class CancellationManager;
class OpKernelContext;

class QueueInterface : public Resource {
 public:
  using Tuple = std::vector<Tensor>;  // one tensor per component
  using DoneCallback = std::function<void(Status)>;
  using TupleCallback = std::function<void(Result<Tuple>)>;

  virtual const std::string& name() const = 0;
  virtual const std::vector<DType>& component_types() const = 0;
  // Declared per-element shapes; empty when the queue was made without shapes.
  virtual const std::vector<PartialShape>& component_shapes() const = 0;

  // Enqueues one element. `done` gets OK once it is in the queue; Cancelled
  // when `cm` cancels the wait; Aborted when the queue is closed (before or
  // while waiting, with cancel_pending_enqueues). `cm` may be null.
  virtual void TryEnqueue(Tuple element, CancellationManager* cm, DoneCallback done) = 0;
  // Enqueues the slices along dimension 0 of each component, as elements.
  virtual void TryEnqueueMany(Tuple batch, CancellationManager* cm, DoneCallback done) = 0;
  // Dequeues one element. OutOfRange when the queue is closed and empty.
  virtual void TryDequeue(CancellationManager* cm, TupleCallback done) = 0;
  // Dequeues n elements stacked along a new dimension 0. With
  // `allow_smaller` (dequeue_up_to) a closed queue hands out what is left
  // (at least one element); else fewer than n left in a closed queue is
  // OutOfRange.
  virtual void TryDequeueMany(int64_t n, bool allow_smaller, CancellationManager* cm, TupleCallback done) = 0;
  // Refuses further enqueues; waiting dequeues that cannot be satisfied fail
  // with OutOfRange. With `cancel_pending_enqueues`, waiting enqueues fail
  // with Aborted instead of completing.
  virtual void Close(bool cancel_pending_enqueues) = 0;
  virtual bool is_closed() const = 0;
  virtual int64_t size() const = 0;
  // "queue 'q' (empty, 2 dequeues waiting)": for the hang watchdog.
  virtual std::string WaitDescription() const = 0;
};

// The queue a handle tensor (the output of a queue op) names, from the
// context's ResourceMgr. NotFound when it does not exist (any more: reset()).
Result<std::shared_ptr<QueueInterface>> LookupQueue(OpKernelContext& ctx, const Tensor& handle);

}  // namespace tfg
