// Cancelling a step's blocked kernels. A step is cancelled when a kernel
// fails, run(timeout=) expires, Ctrl-C arrives or the hang watchdog fires;
// asynchronous kernels that wait (dequeue from an empty queue, enqueue into
// a full one) register a callback here so they can give up at once instead
// of holding the step open. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace tfg {

class CancellationManager {
 public:
  using Token = int64_t;
  static constexpr Token kAlreadyCancelled = -1;

  // Registers `fn` to run (once, on the cancelling thread) when the step is
  // cancelled. Returns kAlreadyCancelled, without registering, when that has
  // already happened: the caller must then give up itself.
  Token Register(std::function<void()> fn);
  // Forgets a callback that is no longer needed (the wait ended). Returns
  // false when cancellation already started: the callback has run or is
  // running, and the caller must not complete twice.
  bool Deregister(Token token);
  // Runs every registered callback; later Register calls are refused.
  void StartCancel();
  bool IsCancelled() const;

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  Token next_ = 0;
  std::map<Token, std::function<void()>> callbacks_;
};

}  // namespace tfg
