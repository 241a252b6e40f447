// The machinery the queue kinds share: stored elements, the enqueues and
// dequeues waiting for room or data (kept as callbacks, never as blocked
// threads), closing and cancellation. Kinds differ only in which element
// a dequeue takes, how many must stay behind, and whether batches pad.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/core/cancellation.h"
#include "ops/queue/queue.h"

namespace tfg {

struct QueueConfig {
  std::string name;  // the shared name, for messages
  int64_t capacity = 1;
  std::vector<DType> types;
  std::vector<PartialShape> shapes;  // per component; empty: any shape
};

class QueueBase : public QueueInterface, public std::enable_shared_from_this<QueueBase> {
 public:
  explicit QueueBase(QueueConfig config) : config_(std::move(config)) {}

  const std::string& name() const override { return config_.name; }
  const std::vector<DType>& component_types() const override { return config_.types; }
  const std::vector<PartialShape>& component_shapes() const override { return config_.shapes; }
  int64_t capacity() const { return config_.capacity; }
  // "fifo_queue", ...: the op that makes this kind.
  virtual std::string kind() const = 0;

  void TryEnqueue(Tuple element, CancellationManager* cm, DoneCallback done) override;
  void TryEnqueueMany(Tuple batch, CancellationManager* cm, DoneCallback done) override;
  void TryDequeue(CancellationManager* cm, TupleCallback done) override;
  void TryDequeueMany(int64_t n, bool allow_smaller, CancellationManager* cm, TupleCallback done) override;
  void Close(bool cancel_pending_enqueues) override;
  bool is_closed() const override;
  int64_t size() const override;
  std::string WaitDescription() const override;
  std::string DebugString() const override;

  // OK when a queue op asking for `kind` and `config` may share this queue
  // (same shared name): everything but the name must match.
  Status CheckCompatible(const std::string& other_kind, const QueueConfig& other) const;

 protected:
  // Which of the `size` stored elements the next dequeue takes (under the
  // lock). FIFO: the oldest.
  virtual size_t PickIndex(size_t /*size*/) { return 0; }
  // How many elements must stay after a dequeue while the queue is open.
  virtual int64_t min_after_dequeue() const { return 0; }
  // Whether batches pad unknown dimensions to the largest element.
  virtual bool pads() const { return false; }
  // Kind-specific settings for CheckCompatible and DebugString.
  virtual std::string Settings() const;

 private:
  struct EnqueueWait {
    int64_t id;
    std::deque<Tuple> pending;
    DoneCallback done;
    CancellationManager* cm;
    CancellationManager::Token token;
    std::shared_ptr<QueueBase> keep_alive;  // a waiting queue outlives reset()
  };
  struct DequeueWait {
    int64_t id;
    int64_t n;
    bool batch;
    bool allow_smaller;
    TupleCallback done;
    CancellationManager* cm;
    CancellationManager::Token token;
    std::shared_ptr<QueueBase> keep_alive;
  };
  using Finished = std::vector<std::function<void()>>;

  Status CheckElement(const Tuple& element, const char* op) const;
  Status CheckBatch(const Tuple& batch, const char* op) const;
  void AddEnqueue(std::deque<Tuple> elements, CancellationManager* cm, DoneCallback done);
  void AddDequeue(int64_t n, bool batch, bool allow_smaller, CancellationManager* cm, TupleCallback done);
  // Registers a wait that could not finish at once; false (and nothing
  // registered) when `cm` is already cancelled.
  bool WatchCancellation(CancellationManager* cm, int64_t id, CancellationManager::Token& token);
  void CancelWait(int64_t id);
  // Completes every wait that can complete now; callbacks go to `finished`,
  // run after the lock is released.
  void Progress(Finished& finished);
  bool ProgressEnqueues(Finished& finished);
  bool ProgressDequeues(Finished& finished);
  std::vector<Tuple> TakeElements(int64_t n);
  // n elements for a dequeue (`batch`: to be stacked); elements that cannot
  // be stacked are put back and the dequeue gets the error.
  Result<std::vector<Tuple>> TakeForDequeue(int64_t n, bool batch);
  void FinishDequeue(DequeueWait& w, Result<std::vector<Tuple>> taken, Finished& finished);
  std::string DescribeLocked() const;

  const QueueConfig config_;
  mutable std::mutex mu_;
  std::deque<Tuple> elements_;
  std::list<EnqueueWait> enqueues_;
  std::list<DequeueWait> dequeues_;
  bool closed_ = false;
  int64_t next_id_ = 0;
};

}  // namespace tfg
