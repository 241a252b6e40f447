#include "interp/runtime/queue_runner.h"

#include <fmt/format.h>

#include <map>

namespace tfg {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

std::map<Session*, std::unique_ptr<QueueRunners>>& Registry() {
  static auto* registry = new std::map<Session*, std::unique_ptr<QueueRunners>>();
  return *registry;
}

// The ways a runner's run ends that are not errors.
bool EndsQuietly(Code code) {
  return code == Code::kAborted || code == Code::kCancelled || code == Code::kOutOfRange;
}

}  // namespace

QueueRunners& QueueRunners::For(Session& session) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto& slot = Registry()[&session];
  if (!slot) slot = std::make_unique<QueueRunners>(session);
  return *slot;
}

Status QueueRunners::Finish(Session& session) {
  std::unique_ptr<QueueRunners> runners;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    auto it = Registry().find(&session);
    if (it == Registry().end()) return Status::OK();
    runners = std::move(it->second);
    Registry().erase(it);
  }
  return runners->Stop();
}

Status QueueRunners::TakeErrorOf(Session& session) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(&session);
  return it == Registry().end() ? Status::OK() : it->second->TakeError();
}

QueueRunners::~QueueRunners() { (void)Stop(); }

void QueueRunners::Start(Node* enqueue, Node* close, Node* cancel, int threads, const SourceSpan& span) {
  std::lock_guard<std::mutex> lock(mu_);
  auto runner = std::make_unique<Runner>();
  runner->enqueue = enqueue;
  runner->close = close;
  runner->cancel = cancel;
  runner->span = span;
  runner->live = threads;
  live_threads_ += threads;
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this, r = runner.get()] { Loop(r); });
  runners_.push_back(std::move(runner));
}

void QueueRunners::Loop(Runner* runner) {
  RunOptions options;
  options.cancellation = cancel_.get();
  Status ended;
  while (!stopping_.load()) {
    auto r = session_.Run({}, {}, {runner->enqueue}, options);
    if (r.ok()) continue;
    ended = r.status();
    if (!EndsQuietly(ended.code())) Record(ended, *runner);
    break;
  }
  // The last thread of a runner that ended on its own closes the queue, so
  // its consumers see the end of the data.
  if (--runner->live == 0 && !stopping_.load() && runner->close != nullptr) {
    auto closed = session_.Run({}, {}, {runner->close}, options);
    if (!closed.ok() && !EndsQuietly(closed.status().code())) Record(closed.status(), *runner);
  }
  --live_threads_;
}

void QueueRunners::Record(const Status& s, const Runner& runner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!error_.ok()) return;
  const char* what = runner.close != nullptr ? "a queue runner" : "a runner";
  error_ = Status(s.code(), fmt::format("{} of '{}' failed: {}", what, runner.enqueue->name(), s.message()),
                  runner.span);
  if (s.span().valid()) error_.AddNote(s.span(), "the op that failed");
}

Status QueueRunners::Stop() {
  if (stopping_.exchange(true)) return TakeError();
  cancel_->StartCancel();
  std::vector<std::thread> threads;
  std::vector<Node*> cancels;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
    for (const auto& r : runners_) {
      if (r->cancel != nullptr) cancels.push_back(r->cancel);
    }
  }
  // Closing with cancel_pending_enqueues frees a thread blocked on a full
  // queue even where the step's cancellation cannot reach its kernel.
  for (Node* cancel : cancels) (void)session_.Run({}, {}, {cancel});
  for (std::thread& t : threads) t.join();
  return TakeError();
}

Status QueueRunners::TakeError() {
  std::lock_guard<std::mutex> lock(mu_);
  Status s = error_;
  if (!s.ok()) error_ = Status::OK();
  return s;
}

}  // namespace tfg
