#include "ops/core/cancellation.h"

#include <utility>
#include <vector>

namespace tfg {

CancellationManager::Token CancellationManager::Register(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return kAlreadyCancelled;
  Token t = next_++;
  callbacks_.emplace(t, std::move(fn));
  return t;
}

bool CancellationManager::Deregister(Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  callbacks_.erase(token);
  return true;
}

void CancellationManager::StartCancel() {
  std::map<Token, std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    callbacks.swap(callbacks_);
  }
  // Outside the lock: a callback may complete its kernel, which may touch
  // this manager again (Deregister) or finish the step.
  for (auto& [token, fn] : callbacks) fn();
}

bool CancellationManager::IsCancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

}  // namespace tfg
