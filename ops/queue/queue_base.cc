#include "ops/queue/queue_base.h"

#include <fmt/ranges.h>

#include <iterator>

#include "ops/queue/tuple_batch.h"

namespace tfg {
namespace {

void RunAll(std::vector<std::function<void()>>& finished) {
  for (auto& f : finished) f();
}

std::string DTypeList(const std::vector<DType>& types) {
  std::vector<std::string> names;
  for (DType t : types) names.emplace_back(DTypeName(t));
  return fmt::format("[{}]", fmt::join(names, ", "));
}

std::string ShapeList(const std::vector<PartialShape>& shapes) {
  if (shapes.empty()) return "any";
  std::vector<std::string> out;
  for (const PartialShape& s : shapes) out.push_back(s.ToString());
  return fmt::format("[{}]", fmt::join(out, ", "));
}

}  // namespace

// ------------------------------------------------------------------ checks

Status QueueBase::CheckElement(const Tuple& element, const char* op) const {
  if (element.size() != config_.types.size()) {
    return InvalidArgument("{} into queue '{}': got {} component{}, the queue holds {} ({})", op, name(),
                           element.size(), element.size() == 1 ? "" : "s", config_.types.size(),
                           DTypeList(config_.types));
  }
  for (size_t c = 0; c < element.size(); ++c) {
    const Tensor& t = element[c];
    if (t.dtype() != config_.types[c]) {
      return InvalidArgument("{} into queue '{}': component {} is {}, the queue holds {}", op, name(), c,
                             t.DebugString(), DTypeName(config_.types[c]));
    }
    if (!config_.shapes.empty() && !config_.shapes[c].IsCompatibleWith(t.shape())) {
      return InvalidArgument("{} into queue '{}': component {} has shape {}, the queue holds {}", op, name(), c,
                             t.shape().ToString(), config_.shapes[c].ToString());
    }
  }
  return Status::OK();
}

Status QueueBase::CheckBatch(const Tuple& batch, const char* op) const {
  if (batch.size() != config_.types.size()) return CheckElement(batch, op);
  for (size_t c = 0; c < batch.size(); ++c) {
    if (batch[c].rank() == 0) {
      return InvalidArgument("{} into queue '{}': component {} is a scalar; {} needs a batch (dimension 0)", op,
                             name(), c, op);
    }
    if (batch[c].dim(0) != batch[0].dim(0)) {
      return InvalidArgument("{} into queue '{}': component {} has {} elements along dimension 0, component 0 has {}",
                             op, name(), c, batch[c].dim(0), batch[0].dim(0));
    }
  }
  return Status::OK();
}

Status QueueBase::CheckCompatible(const std::string& other_kind, const QueueConfig& other) const {
  if (other_kind == kind() && other.capacity == config_.capacity && other.types == config_.types &&
      other.shapes == config_.shapes) {
    return Status::OK();
  }
  return FailedPrecondition(
      "queue '{}' already exists as {}; a {} of capacity {}, dtypes {}, shapes {} cannot share its name "
      "(give another shared_name)",
      name(), DebugString(), other_kind, other.capacity, DTypeList(other.types), ShapeList(other.shapes));
}

// ---------------------------------------------------------------- requests

void QueueBase::TryEnqueue(Tuple element, CancellationManager* cm, DoneCallback done) {
  Status s = CheckElement(element, "enqueue");
  if (!s.ok()) return done(s);
  std::deque<Tuple> elements;
  elements.push_back(std::move(element));
  AddEnqueue(std::move(elements), cm, std::move(done));
}

void QueueBase::TryEnqueueMany(Tuple batch, CancellationManager* cm, DoneCallback done) {
  Status s = CheckBatch(batch, "enqueue_many");
  if (!s.ok()) return done(s);
  auto elements = queue::Unbatch(batch, batch.empty() ? 0 : batch[0].dim(0));
  if (!elements.ok()) return done(elements.status());
  for (const Tuple& e : *elements) {
    s = CheckElement(e, "enqueue_many");
    if (!s.ok()) return done(s);
  }
  AddEnqueue(std::deque<Tuple>(std::make_move_iterator(elements->begin()), std::make_move_iterator(elements->end())),
             cm, std::move(done));
}

void QueueBase::TryDequeue(CancellationManager* cm, TupleCallback done) {
  AddDequeue(1, false, false, cm, std::move(done));
}

void QueueBase::TryDequeueMany(int64_t n, bool allow_smaller, CancellationManager* cm, TupleCallback done) {
  const char* op = allow_smaller ? "dequeue_up_to" : "dequeue_many";
  if (n < 1) return done(InvalidArgument("{} from queue '{}': n must be at least 1, got {}", op, name(), n));
  if (n > config_.capacity) {
    return done(InvalidArgument("{} from queue '{}': n = {} can never be ready in a queue of capacity {}", op, name(),
                                n, config_.capacity));
  }
  AddDequeue(n, true, allow_smaller, cm, std::move(done));
}

void QueueBase::AddEnqueue(std::deque<Tuple> elements, CancellationManager* cm, DoneCallback done) {
  Finished finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      finished.push_back([done, n = name()] { done(Error(Code::kAborted, "queue '{}' is closed", n)); });
    } else {
      const int64_t id = next_id_++;
      enqueues_.push_back({id, std::move(elements), std::move(done), cm, 0, nullptr});
      Progress(finished);
      if (!enqueues_.empty() && enqueues_.back().id == id) {
        EnqueueWait& w = enqueues_.back();
        if (WatchCancellation(cm, id, w.token)) {
          w.keep_alive = shared_from_this();
        } else {
          finished.push_back([done = std::move(w.done)] { done(Error(Code::kCancelled, "enqueue was cancelled")); });
          enqueues_.pop_back();
        }
      }
    }
  }
  RunAll(finished);
}

void QueueBase::AddDequeue(int64_t n, bool batch, bool allow_smaller, CancellationManager* cm, TupleCallback done) {
  Finished finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t id = next_id_++;
    dequeues_.push_back({id, n, batch, allow_smaller, std::move(done), cm, 0, nullptr});
    Progress(finished);
    if (!dequeues_.empty() && dequeues_.back().id == id) {
      DequeueWait& w = dequeues_.back();
      if (WatchCancellation(cm, id, w.token)) {
        w.keep_alive = shared_from_this();
      } else {
        finished.push_back([done = std::move(w.done)] { done(Error(Code::kCancelled, "dequeue was cancelled")); });
        dequeues_.pop_back();
      }
    }
  }
  RunAll(finished);
}

// ------------------------------------------------------------ cancellation

bool QueueBase::WatchCancellation(CancellationManager* cm, int64_t id, CancellationManager::Token& token) {
  if (cm == nullptr) return true;  // nothing can cancel this wait
  std::weak_ptr<QueueBase> weak = weak_from_this();
  token = cm->Register([weak, id] {
    if (auto self = weak.lock()) self->CancelWait(id);
  });
  return token != CancellationManager::kAlreadyCancelled;
}

void QueueBase::CancelWait(int64_t id) {
  Finished finished;
  std::shared_ptr<QueueBase> keep_alive;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = enqueues_.begin(); it != enqueues_.end(); ++it) {
      if (it->id != id) continue;
      finished.push_back([done = std::move(it->done), n = name()] {
        done(Error(Code::kCancelled, "enqueue into queue '{}' was cancelled", n));
      });
      keep_alive = std::move(it->keep_alive);
      enqueues_.erase(it);
      break;
    }
    for (auto it = dequeues_.begin(); it != dequeues_.end(); ++it) {
      if (it->id != id) continue;
      finished.push_back([done = std::move(it->done), n = name()] {
        done(Error(Code::kCancelled, "dequeue from queue '{}' was cancelled", n));
      });
      keep_alive = std::move(it->keep_alive);
      dequeues_.erase(it);
      break;
    }
    // A cancelled dequeue_many may have held back smaller dequeues.
    Progress(finished);
  }
  RunAll(finished);
}

// ---------------------------------------------------------------- progress

void QueueBase::Progress(Finished& finished) {
  while (ProgressEnqueues(finished) | ProgressDequeues(finished)) {
  }
}

bool QueueBase::ProgressEnqueues(Finished& finished) {
  bool progressed = false;
  while (!enqueues_.empty()) {
    EnqueueWait& w = enqueues_.front();
    while (!w.pending.empty() && static_cast<int64_t>(elements_.size()) < config_.capacity) {
      elements_.push_back(std::move(w.pending.front()));
      w.pending.pop_front();
      progressed = true;
    }
    if (!w.pending.empty()) break;
    finished.push_back([done = std::move(w.done), cm = w.cm, token = w.token, keep = std::move(w.keep_alive)] {
      if (cm && keep) cm->Deregister(token);
      done(Status::OK());
    });
    enqueues_.pop_front();
    progressed = true;
  }
  return progressed;
}

bool QueueBase::ProgressDequeues(Finished& finished) {
  bool progressed = false;
  while (!dequeues_.empty()) {
    DequeueWait& w = dequeues_.front();
    const int64_t size = static_cast<int64_t>(elements_.size());
    const int64_t ready = closed_ ? size : size - min_after_dequeue();
    if (ready >= w.n) {
      FinishDequeue(w, TakeForDequeue(w.n, w.batch), finished);
    } else if (closed_ && enqueues_.empty()) {
      // Nothing more can arrive.
      if (w.allow_smaller && size > 0) {
        FinishDequeue(w, TakeForDequeue(size, w.batch), finished);
      } else {
        const std::string what = w.batch ? fmt::format("{} requested", w.n) : "one requested";
        FinishDequeue(w,
                      Error(Code::kOutOfRange, "queue '{}' is closed and has {} element{} left, fewer than the {}",
                            name(), size, size == 1 ? "" : "s", what),
                      finished);
      }
    } else {
      break;
    }
    dequeues_.pop_front();
    progressed = true;
  }
  return progressed;
}

std::vector<QueueBase::Tuple> QueueBase::TakeElements(int64_t n) {
  std::vector<Tuple> out;
  for (int64_t i = 0; i < n; ++i) {
    const size_t at = PickIndex(elements_.size());
    out.push_back(std::move(elements_[at]));
    elements_.erase(elements_.begin() + static_cast<std::ptrdiff_t>(at));
  }
  return out;
}

Result<std::vector<QueueBase::Tuple>> QueueBase::TakeForDequeue(int64_t n, bool batch) {
  std::vector<Tuple> taken = TakeElements(n);
  if (!batch) return taken;
  Status s = queue::CheckStackable(taken, pads(), "queue '" + name() + "'");
  if (s.ok()) return taken;
  // Back at the front, in the order they were taken.
  elements_.insert(elements_.begin(), std::make_move_iterator(taken.begin()), std::make_move_iterator(taken.end()));
  return s;
}

// Batches are stacked outside the lock, in the completing callback.
void QueueBase::FinishDequeue(DequeueWait& w, Result<std::vector<Tuple>> taken, Finished& finished) {
  finished.push_back([done = std::move(w.done), cm = w.cm, token = w.token, keep = std::move(w.keep_alive),
                      taken = std::move(taken), batch = w.batch, pad = pads(), types = config_.types.size(),
                      what = "queue '" + name() + "'"]() mutable {
    if (cm && keep) cm->Deregister(token);
    if (!taken.ok()) return done(taken.status());
    if (!batch) return done(std::move((*taken)[0]));
    Tuple out;
    for (size_t c = 0; c < types; ++c) {
      auto stacked = queue::Stack(*taken, c, pad, what);
      if (!stacked.ok()) return done(stacked.status());
      out.push_back(std::move(*stacked));
    }
    done(std::move(out));
  });
}

// ----------------------------------------------------------- close, status

void QueueBase::Close(bool cancel_pending_enqueues) {
  Finished finished;
  std::vector<std::shared_ptr<QueueBase>> released;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      for (EnqueueWait& w : enqueues_) {
        finished.push_back([done = std::move(w.done), cm = w.cm, token = w.token, n = name()] {
          if (cm) cm->Deregister(token);
          done(Error(Code::kAborted, "queue '{}' was closed while the enqueue waited", n));
        });
        released.push_back(std::move(w.keep_alive));
      }
      enqueues_.clear();
    }
    Progress(finished);
  }
  RunAll(finished);
}

bool QueueBase::is_closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

int64_t QueueBase::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(elements_.size());
}

std::string QueueBase::DescribeLocked() const {
  const int64_t size = static_cast<int64_t>(elements_.size());
  std::string state = size == 0                  ? "empty"
                      : size >= config_.capacity ? "full"
                                                 : fmt::format("{} element{}", size, size == 1 ? "" : "s");
  std::string out = fmt::format("queue '{}' ({}, capacity {}", name(), state, config_.capacity);
  if (closed_) out += ", closed";
  if (!enqueues_.empty()) out += fmt::format(", {} enqueue{} waiting", enqueues_.size(), enqueues_.size() == 1 ? "" : "s");
  if (!dequeues_.empty()) out += fmt::format(", {} dequeue{} waiting", dequeues_.size(), dequeues_.size() == 1 ? "" : "s");
  return out + ")";
}

std::string QueueBase::WaitDescription() const {
  std::lock_guard<std::mutex> lock(mu_);
  return DescribeLocked();
}

std::string QueueBase::Settings() const { return ""; }

std::string QueueBase::DebugString() const {
  return fmt::format("{}(capacity={}, dtypes={}, shapes={}{})", kind(), config_.capacity, DTypeList(config_.types),
                     ShapeList(config_.shapes), Settings());
}

}  // namespace tfg
