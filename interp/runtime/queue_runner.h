// Queue runners (TensorFlow's QueueRunner and Coordinator): background
// threads that keep running an enqueue op through the session, so a
// script's training loop finds its input queue filled.
//
// A runner thread runs its op until the run fails: with Aborted (its queue
// was closed), Cancelled (the runners were stopped) or OutOfRange (an
// upstream queue ran dry) it ends quietly, and when the last thread of a
// runner ends that way it closes the queue it feeds, so consumers drain it
// and then get OutOfRange. Any other error is kept and reported once, at
// the next run() or when the script ends, pointing at start_queue_runner.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "interp/runtime/session.h"
#include "ops/core/cancellation.h"

namespace tfg {

class QueueRunners {
 public:
  // The runners of `session`, made on first use.
  static QueueRunners& For(Session& session);
  // Stops and forgets the runners of `session` (if any); returns the first
  // error they met that was not reported yet.
  static Status Finish(Session& session);
  // The first unreported error of `session`'s runners (OK when none).
  static Status TakeErrorOf(Session& session);

  explicit QueueRunners(Session& session) : session_(session) {}
  ~QueueRunners();
  QueueRunners(const QueueRunners&) = delete;
  QueueRunners& operator=(const QueueRunners&) = delete;

  // Starts `threads` threads running `enqueue`. `close` closes its queue
  // (run when the runner ends on its own), `cancel` closes it cancelling
  // pending enqueues (run by Stop, so no thread stays blocked). Both are
  // null for a runner of any op (start_runner: a replica's training step),
  // which only the step's cancellation stops.
  void Start(Node* enqueue, Node* close, Node* cancel, int threads, const SourceSpan& span);
  // Cancels the runners' steps, closes their queues, joins every thread.
  Status Stop();
  Status TakeError();
  int running() const { return live_threads_.load(); }

 private:
  struct Runner {
    Node* enqueue;
    Node* close;
    Node* cancel;
    SourceSpan span;
    std::atomic<int> live{0};
  };
  void Loop(Runner* runner);
  void Record(const Status& s, const Runner& runner);

  Session& session_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> live_threads_{0};
  std::unique_ptr<CancellationManager> cancel_ = std::make_unique<CancellationManager>();
  std::mutex mu_;
  std::vector<std::unique_ptr<Runner>> runners_;  // guarded by mu_
  std::vector<std::thread> threads_;              // guarded by mu_
  Status error_;                                  // guarded by mu_
};

}  // namespace tfg
