// State that outlives a run: variables, queues, random generators. Resources
// live in named containers ("" is the default container); reset(container)
// drops one. Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ops/core/status.h"
#include "ops/core/tensor.h"

namespace tfg {

class Resource {
 public:
  virtual ~Resource() = default;
  virtual std::string DebugString() const = 0;
};

// A variable's value. Readers take a copy of `value` under the lock (cheap:
// the buffer is shared); writers replace it or, when they are the only
// holder, update it in place.
class Variable : public Resource {
 public:
  std::string DebugString() const override;
  std::mutex mu;
  Tensor value;  // !IsInitialized() until first assigned
};

class ResourceMgr {
 public:
  // Returns the resource, creating it with `make` when absent. Error when a
  // resource of another type already has the name.
  template <typename R>
  Result<std::shared_ptr<R>> LookupOrCreate(const std::string& container, const std::string& name,
                                            const std::function<std::shared_ptr<R>()>& make);
  template <typename R>
  std::shared_ptr<R> Lookup(const std::string& container, const std::string& name);

  // Drops every resource of `container`; "" is the default container.
  void Reset(const std::string& container);
  void ResetAll();

  // A container that lives for one step only: the executor drops the
  // step's containers when it ends, however it ends.
  std::string StepContainer(int64_t step_id, const std::string& name);
  void DropStepContainers(int64_t step_id);

 private:
  std::mutex mu_;
  std::map<std::string, std::map<std::string, std::shared_ptr<Resource>>> containers_;
  // Every step ends with DropStepContainers: until a step container has
  // been named, that is a load, not a lock and a map search.
  std::atomic<bool> step_containers_used_{false};
};

template <typename R>
Result<std::shared_ptr<R>> ResourceMgr::LookupOrCreate(const std::string& container, const std::string& name,
                                                       const std::function<std::shared_ptr<R>()>& make) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = containers_[container][name];
  if (!slot) slot = make();
  auto typed = std::dynamic_pointer_cast<R>(slot);
  if (!typed) return FailedPrecondition("resource '{}' already exists with another type ({})", name, slot->DebugString());
  return typed;
}

template <typename R>
std::shared_ptr<R> ResourceMgr::Lookup(const std::string& container, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(container);
  if (c == containers_.end()) return nullptr;
  auto it = c->second.find(name);
  if (it == c->second.end()) return nullptr;
  return std::dynamic_pointer_cast<R>(it->second);
}

}  // namespace tfg
